"""Cut a release in two commits: the version, then the pin to the commit that carries it.

    python tools/release.py 0.5.0     # 1. set the version (CHANGELOG.md needs a "## 0.5.0" section)
    # re-execute the chapters whose outputs changed, make test, commit
    python tools/release.py --pin     # 2. pin every install to that commit, then commit the pins

Only branch main reaches the public repository (tags do not), so a reader's install names a commit of main:
step 2 writes the full hash of HEAD (the commit whose code the stored outputs came from) into the install cell
and the Colab badge of every chapter, the README's install commands and its Colab paragraph, and the book's launch
buttons (`_config.yml`). It refuses a working tree with uncommitted changes, since the pinned commit must hold them.
`tests/test_release.py` checks that every pin names one commit, that the commit is in main's history, and that the
package's version at that commit is `__version__`.
"""
import json, re, subprocess, sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
REPO = 'https://github.com/transformer-nb/transformer_nb'
INSTALL = re.compile(r"^(\s*'@)[0-9a-zA-Z.]+(',)$")  # an install cell's line of its own: '@<commit>',
BADGE = re.compile(r'(transformer_nb/blob/)[0-9a-zA-Z.]+(/nbs/)')  # a Colab link: blob/<commit>/nbs/
PROSE = re.compile(r'^(@)[0-9a-zA-Z.]+(")')  # a pip command continued onto a line of its own: @<commit>"
README_PINS = (
    re.compile(r'(transformer_nb@)[0-9a-zA-Z.]+(")'),  # pip install "transformer-nb @ git+...@<commit>"
    re.compile(r'(the commit `)[0-9a-f]+(`)'),  # the Colab paragraph
    re.compile(r'(release `)[0-9][0-9.]*(`)'),
)


def git(*args) -> str:
    return subprocess.run(['git', *args], cwd=ROOT, capture_output=True, text=True, check=True).stdout.strip()


def install_cell(nb: dict) -> dict:
    "The chapter's hidden install cell (tag `remove-cell`, first code cell)."
    cell = next(c for c in nb['cells'] if c['cell_type'] == 'code')
    if 'remove-cell' not in cell['metadata'].get('tags', []) or REPO not in ''.join(cell['source']):
        raise SystemExit('error: the first code cell is not the install cell')
    return cell


def version() -> str:
    return re.search(r'__version__ = "([^"]+)"', (ROOT / 'transformer_nb' / '__init__.py').read_text()).group(1)


def set_version(v: str) -> int:
    if not re.search(rf'^## {re.escape(v)}\b', (ROOT / 'CHANGELOG.md').read_text(), re.M):
        print(f'error: CHANGELOG.md has no "## {v}" section: write it first', file=sys.stderr)
        return 1
    init = ROOT / 'transformer_nb' / '__init__.py'
    init.write_text(re.sub(r'__version__ = "[^"]*"', f'__version__ = "{v}"', init.read_text()))
    print(f'version {v} set: re-execute the chapters whose outputs changed, make test, commit, '
          'then python tools/release.py --pin')
    return 0


def pin(commit: str, v: str):
    "Write `commit` into every install cell, badge, the README and the launch buttons."
    for path in sorted((ROOT / 'nbs').glob('*.ipynb')):
        nb = json.loads(path.read_text(encoding='utf-8'))
        cell = install_cell(nb)
        cell['source'] = [INSTALL.sub(rf'\g<1>{commit}\g<2>', line) for line in cell['source']]
        title = nb['cells'][0]
        title['source'] = [BADGE.sub(rf'\g<1>{commit}\g<2>', line) for line in title['source']]
        for md in (c for c in nb['cells'] if c['cell_type'] == 'markdown'):  # pip lines in the prose
            md['source'] = [PROSE.sub(rf'\g<1>{commit}\g<2>', README_PINS[0].sub(rf'\g<1>{commit}\g<2>', line))
                            for line in md['source']]
        path.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + '\n', encoding='utf-8')
    readme = ROOT / 'README.md'
    text = readme.read_text(encoding='utf-8')
    for pattern, value in zip(README_PINS, (commit, commit[:12], v)):
        text = pattern.sub(rf'\g<1>{value}\g<2>', text)
    readme.write_text(text, encoding='utf-8')
    config = ROOT / '_config.yml'
    config.write_text(re.sub(r'(\n  branch: )\S+', rf'\g<1>{commit}', config.read_text()))


def main(argv: list) -> int:
    if argv == ['--pin']:
        if git('status', '--porcelain'):
            print('error: commit your changes first: the pinned commit must hold them', file=sys.stderr)
            return 1
        commit = git('rev-parse', 'HEAD')
        pin(commit, version())
        print(f'install cells, badges, README and _config.yml pin {commit} (release {version()}): commit them')
        return 0
    if len(argv) == 1 and re.fullmatch(r'\d+\.\d+\.\d+', argv[0]):
        return set_version(argv[0])
    print('usage: python tools/release.py MAJOR.MINOR.PATCH | --pin', file=sys.stderr)
    return 2


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
