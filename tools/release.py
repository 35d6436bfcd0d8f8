"""Cut a release in three commits: the version (R), the installs pinned to R (P), the
badges and launch buttons pointed at P.

    python tools/release.py 0.5.0   # 1. the version (CHANGELOG.md: a "## 0.5.0" part)
    # re-execute the changed chapters, make test, commit "Release 0.5.0": R
    python tools/release.py --pin   # 2. every install pins HEAD (R); commit the pins: P
    python tools/release.py --link  # 3. badges, launch buttons open HEAD (P); commit

Only branch main reaches the public repository (tags do not), so a reader's install
names a commit of main by its hash, and no commit can hold its own hash. Step 2 writes
the full hash of R (the commit whose code the stored outputs came from) into the install
cell of every chapter, the pip commands of the chapters' prose and of the README, and
the README's Colab paragraph. Step 3 writes the hash of P into the Colab badge of every
chapter and the book's launch buttons (`repository.branch` in `_config.yml`: Jupyter
Book's Colab button opens the notebook at that commit). The notebook a reader opens is
then the one at P, whose install cell installs R, P's parent, and P differs from R in
pin lines only: the package installed is exactly the code of the notebook opened.

Steps 2 and 3 refuse a working tree with uncommitted changes (the commit they name must
hold everything); step 3 also refuses unless HEAD's parent is the commit the install
cells pin and HEAD changed nothing else but pin lines. `tests/test_release.py` checks
that the installs name one commit of main that carries `__version__`, and that each
chapter's badge opens a commit whose install cell pins its parent, the two commits
differing in pin lines only.
"""
import json, re, subprocess, sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
REPO = 'https://github.com/transformer-nb/transformer_nb'
# an install cell's line of its own: '@<commit>',
INSTALL = re.compile(r"^(\s*'@)[0-9a-zA-Z.]+(',)$")
# a Colab link: blob/<commit>/nbs/
BADGE = re.compile(r'(transformer_nb/blob/)[0-9a-zA-Z.]+(/nbs/)')
# a pip command continued onto a line of its own: @<commit>"
PROSE = re.compile(r'^(@)[0-9a-zA-Z.]+(")')
README_PINS = (
    # pip install "transformer-nb @ git+...@<commit>"
    re.compile(r'(transformer_nb@)[0-9a-zA-Z.]+(")'),
    re.compile(r'(the commit `)[0-9a-f]+(`)'),  # the Colab paragraph
    re.compile(r'(release `)[0-9][0-9.]*(`)'),
)
# _config.yml's repository.branch: the commit the launch buttons open
LAUNCH = re.compile(r'(\n  branch: )\S+')
# What a pin line may change between the release and the commit that pins it: a
# commit's hash (full or 12 digits), the release's version (README's Colab paragraph).
PIN_VALUE = re.compile(
    r'\b[0-9a-f]{40}\b|\b[0-9a-f]{12}\b|(?<=release `)[0-9][0-9.]*(?=`)'
)
# the files a pin commit may change
PIN_FILES = re.compile(r'nbs/[^/]+\.ipynb|README\.md')


def git(*args) -> str:
    run = subprocess.run(
        ['git', *args], cwd=ROOT, capture_output=True, text=True, check=True
    )
    return run.stdout.strip()


def fail(message: str) -> int:
    print(f'error: {message}', file=sys.stderr)
    return 1


def install_cell(nb: dict) -> dict:
    "The chapter's hidden install cell (tag `remove-cell`, first code cell)."
    cell = next(c for c in nb['cells'] if c['cell_type'] == 'code')
    tags = cell['metadata'].get('tags', [])
    if 'remove-cell' not in tags or REPO not in ''.join(cell['source']):
        raise SystemExit('error: the first code cell is not the install cell')
    return cell


def notebooks() -> list:
    return sorted((ROOT / 'nbs').glob('*.ipynb'))


def rewrite(path: Path, change) -> None:
    "Apply `change` to the notebook at `path`; write it back as nbdev-clean leaves it."
    nb = json.loads(path.read_text(encoding='utf-8'))
    change(nb)
    text = json.dumps(nb, indent=1, ensure_ascii=False) + '\n'
    path.write_text(text, encoding='utf-8')


def version() -> str:
    init = (ROOT / 'transformer_nb' / '__init__.py').read_text()
    return re.search(r'__version__ = "([^"]+)"', init).group(1)


def set_version(v: str) -> int:
    changelog = (ROOT / 'CHANGELOG.md').read_text()
    if not re.search(rf'^## {re.escape(v)}\b', changelog, re.M):
        return fail(f'CHANGELOG.md has no "## {v}" section: write it first')
    init = ROOT / 'transformer_nb' / '__init__.py'
    text = re.sub(r'__version__ = "[^"]*"', f'__version__ = "{v}"', init.read_text())
    init.write_text(text)
    print(f'version {v} set: re-execute the chapters whose outputs changed, make test, '
          'commit, then python tools/release.py --pin')
    return 0


def pin(commit: str, v: str):
    "Step 2: `commit` in every install cell and pip command, the README's Colab text."
    def sub(pattern, line):
        return pattern.sub(rf'\g<1>{commit}\g<2>', line)

    def change(nb):
        cell = install_cell(nb)
        cell['source'] = [sub(INSTALL, line) for line in cell['source']]
        for md in nb['cells']:  # pip commands in the prose
            if md['cell_type'] == 'markdown':
                md['source'] = [sub(PROSE, sub(README_PINS[0], x))
                                for x in md['source']]

    for path in notebooks():
        rewrite(path, change)
    readme = ROOT / 'README.md'
    text = readme.read_text(encoding='utf-8')
    for pattern, value in zip(README_PINS, (commit, commit[:12], v)):
        text = pattern.sub(rf'\g<1>{value}\g<2>', text)
    readme.write_text(text, encoding='utf-8')


def link(commit: str):
    "Step 3: every chapter's Colab badge and the book's launch buttons open `commit`."
    def change(nb):
        title = nb['cells'][0]
        title['source'] = [BADGE.sub(rf'\g<1>{commit}\g<2>', x)
                           for x in title['source']]

    for path in notebooks():
        rewrite(path, change)
    config = ROOT / '_config.yml'
    config.write_text(LAUNCH.sub(rf'\g<1>{commit}', config.read_text()))


def pinned() -> set:
    "The commits the install cells pin."
    found = set()
    for path in notebooks():
        cell = install_cell(json.loads(path.read_text(encoding='utf-8')))
        found |= {m.group(0).strip()[2:-2] for line in cell['source']
                  if (m := INSTALL.match(line.rstrip('\n')))}
    return found


def not_pins(old: str, new: str) -> list:
    """What commit `new` changes beyond the pin lines of commit `old`: files other than
    the notebooks and the README, and lines that differ in more than a commit's hash or
    the release's version ([] when none)."""
    files = git('diff', '--name-only', old, new).splitlines()
    bad = [f'{f}: not a file pins live in' for f in files if not PIN_FILES.fullmatch(f)]
    for f in filter(PIN_FILES.fullmatch, files):
        diff = git('diff', '-U0', '--no-color', old, new, '--', f).splitlines()
        lines = {s: Counter(PIN_VALUE.sub('#', x[1:]) for x in diff
                            if x.startswith(s) and not x.startswith(s * 3))
                 for s in '-+'}
        changed = (lines['-'] - lines['+']) + (lines['+'] - lines['-'])
        bad += [f'{f}: {line.strip()[:80]!r}' for line in changed]
    return bad


def clean() -> bool:
    if git('status', '--porcelain'):
        fail('commit your changes first: the commit named must hold them')
        return False
    return True


def link_head() -> int:
    "Step 3, once HEAD is checked to be the commit that pins its parent, and only that."
    commit, parent = git('rev-parse', 'HEAD'), git('rev-parse', 'HEAD^')
    if pinned() != {parent}:
        return fail(f"the install cells pin {sorted(pinned())}, not HEAD's parent "
                    f'{parent}: run python tools/release.py --pin and commit the pins')
    if bad := not_pins(parent, commit):
        return fail('HEAD changes more than the pins of its parent:\n  '
                    + '\n  '.join(bad))
    link(commit)
    print(f'Colab badges and launch buttons open {commit}, which installs {parent}: '
          'commit them')
    return 0


def main(argv: list) -> int:
    if argv == ['--pin']:
        if not clean(): return 1
        commit = git('rev-parse', 'HEAD')
        pin(commit, version())
        print(f'install cells and commands pin {commit} (release {version()}): commit '
              'them, then python tools/release.py --link')
        return 0
    if argv == ['--link']:
        return link_head() if clean() else 1
    if len(argv) == 1 and re.fullmatch(r'\d+\.\d+\.\d+', argv[0]):
        return set_version(argv[0])
    print('usage: python tools/release.py MAJOR.MINOR.PATCH | --pin | --link',
          file=sys.stderr)
    return 2


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
