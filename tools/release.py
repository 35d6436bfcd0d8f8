"""Cut a release: one command sets the version everywhere it is written.

    python tools/release.py 0.2.0

It sets `__version__` in transformer_nb/__init__.py (the version pip sees), pins the install cell of
every chapter to that version's tag (so a reader on Colab gets the code the stored outputs came from),
pins the README's install commands to it too, and checks that CHANGELOG.md has a section for it. Then:
commit, `git tag vX.Y.Z`, push the tag.
"""
import json, re, sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
REPO = 'git+https://github.com/transformer-nb/transformer_nb'
PIN = re.compile(r"transformer_nb@v[0-9][^'\"]*'")
README_PIN = re.compile(r'(transformer_nb@v|the tag `v)\d+\.\d+\.\d+')


def install_cell(nb: dict) -> dict:
    "The chapter's hidden install cell (tag `remove-cell`, first code cell)."
    cell = next(c for c in nb['cells'] if c['cell_type'] == 'code')
    if 'remove-cell' not in cell['metadata'].get('tags', []) or REPO not in ''.join(cell['source']):
        raise SystemExit('error: the first code cell is not the install cell')
    return cell


def main(argv: list) -> int:
    if len(argv) != 1 or not re.fullmatch(r'\d+\.\d+\.\d+', argv[0]):
        print('usage: python tools/release.py MAJOR.MINOR.PATCH', file=sys.stderr); return 2
    version = argv[0]
    if not re.search(rf'^## {re.escape(version)}\b', (ROOT / 'CHANGELOG.md').read_text(), re.M):
        print(f'error: CHANGELOG.md has no "## {version}" section: write it first', file=sys.stderr)
        return 1
    init = ROOT / 'transformer_nb' / '__init__.py'
    init.write_text(re.sub(r'__version__ = "[^"]*"', f'__version__ = "{version}"', init.read_text()))
    for path in sorted((ROOT / 'nbs').glob('*.ipynb')):
        text = path.read_text()
        nb = json.loads(text)
        cell = install_cell(nb)
        cell['source'] = [PIN.sub(f"transformer_nb@v{version}'", line) for line in cell['source']]
        path.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + '\n')
    readme = ROOT / 'README.md'
    readme.write_text(README_PIN.sub(rf'\g<1>{version}', readme.read_text()))
    print(f'version {version} set; now commit, then: git tag v{version} && git push origin v{version}')
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
