"""The release a reader installs resolves, and the notebook a reader opens installs
exactly its own code.

Only branch main reaches the public repository (tags do not), so the chapters' install
cells and the pip commands (the chapters' prose, the README) pin a commit by its hash
(`tools/release.py --pin`): one commit of main that carries this version. A pin that
names a commit outside main's history, or a commit of another version, would install
code that the stored outputs did not come from, or nothing at all.

No commit can hold its own hash, so the chapters' Colab badges and the book's launch
buttons (`tools/release.py --link`) open the commit after the release, the one that pins
it: the notebook opened there installs its parent and differs from it in pin lines
only, so what a reader runs on Colab is the code the notebook shows. Releases cut before
this procedure (`LEGACY`) opened the release commit itself, whose install cells pinned
the release before it: the badge check skips those, and only those."""
import functools, json, re, subprocess
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NBS = sorted((ROOT / 'nbs').glob('*.ipynb'))
TOC_FILES = re.findall(r'(?:root|file):\s*(nbs/\S+)', (ROOT / '_toc.yml').read_text())
HASH = r'[0-9a-f]{40}'
# the URL, then the commit on a line of its own
INSTALL = re.compile(rf"transformer_nb'\n\s*'@({HASH})',")
BADGE = re.compile(r'colab\.research\.google\.com/github/transformer-nb/transformer_nb'
                   r'/blob/([^/]+)/nbs/([^)\s]+)')
# _config.yml's repository.branch: the commit the launch buttons open
LAUNCH = re.compile(r'\n  branch: (\S+)')
# Releases whose badges and launch buttons open the release commit itself (a release was
# two commits: the version, then every pin to it), cut before a release took three:
# their notebooks install the release before them.
LEGACY = {'bfbf1145da16296ef8aafd52163669131076d56e': '0.12.1'}
# What a pin line may change between a release and the commit that pins it: a commit's
# hash (full, or the README's 12 digits), the version (the README's Colab paragraph).
PIN_VALUE = re.compile(
    r'\b[0-9a-f]{40}\b|\b[0-9a-f]{12}\b|(?<=release `)[0-9][0-9.]*(?=`)'
)
PIN_FILES = re.compile(r'nbs/[^/]+\.ipynb|README\.md')  # all a pin commit may change
RUN = 'run python tools/release.py --pin (installs) or --link (badges, launch buttons)'


def src(c): return ''.join(c['source'])


def pins() -> dict:
    "Every place that pins the commit a reader installs -> the commit (text) it names."
    out = {}
    for path in NBS:
        cells = json.loads(path.read_text(encoding='utf-8'))['cells']
        out[f'{path.name}: install cell'] = INSTALL.findall(src(cells[1]))
        prose = ''.join(src(c) for c in cells if c['cell_type'] == 'markdown')
        if 'pip install "transformer-nb @' in prose:  # the index's install command
            # the URL, then `@<commit>"` (on a line of its own after a backslash, in a
            # narrow code block)
            found = re.findall(r'transformer_nb(?:\\\n)?@([^"]*)"', prose)
            out[f'{path.name}: install command'] = found
    readme = (ROOT / 'README.md').read_text(encoding='utf-8')
    readme_pins = re.findall(rf'transformer_nb@({HASH})"', readme)
    out['README.md: install commands'] = readme_pins
    return out


def badge(path: Path) -> list:
    "The commits the Colab badge of a notebook (in its first cell) opens it at."
    first = json.loads(path.read_text(encoding='utf-8'))['cells'][0]
    return [c for c, name in BADGE.findall(src(first)) if name == path.name]


def launch_buttons() -> list:
    return LAUNCH.findall((ROOT / '_config.yml').read_text())


def links() -> dict:
    "Every place that opens a notebook at a commit -> the commit it names."
    out = {f'{path.name}: badge': badge(path) for path in NBS}
    out['_config.yml: launch buttons'] = launch_buttons()
    return out


def the_pin(found: dict) -> str:
    "The one commit every place names; an AssertionError naming the places that differ."
    bad = {k: v for k, v in found.items() if not v or len(set(v)) != 1}
    assert not bad, f'pins missing or not one commit: {bad}; {RUN}'
    commits = {v[0] for v in found.values()}
    assert len(commits) == 1 and re.fullmatch(HASH, next(iter(commits))), \
        f'the pins name {sorted(commits)}, not one commit: {RUN}'
    return commits.pop()


def git(*args) -> subprocess.CompletedProcess:
    return subprocess.run(['git', *args], cwd=ROOT, capture_output=True, text=True)


def is_commit(c: str) -> bool:
    return git('cat-file', '-e', f'{c}^{{commit}}').returncode == 0


def in_main(c: str) -> bool:
    return git('merge-base', '--is-ancestor', c, 'HEAD').returncode == 0


@functools.cache
def beyond_pins(old: str, new: str) -> tuple:
    """What commit `new` changes beyond the pin lines of `old`: a file other than the
    notebooks and the README (the package, pyproject.toml, ...), or a line that differs
    in more than a commit's hash or the version."""
    files = git('diff', '--name-only', old, new).stdout.split()
    bad = [f'{f} changed' for f in files if not PIN_FILES.fullmatch(f)]
    for f in filter(PIN_FILES.fullmatch, files):
        diff = git('diff', '-U0', '--no-color', old, new, '--', f).stdout.splitlines()
        lines = {s: Counter(PIN_VALUE.sub('<pin>', x[1:]) for x in diff
                            if x.startswith(s) and not x.startswith(s * 3))
                 for s in '-+'}
        changed = (lines['-'] - lines['+']) + (lines['+'] - lines['-'])
        bad += [f'{f}: {x.strip()[:100]!r}' for x in changed]
    return tuple(bad)


@pytest.fixture(scope='module')
def history():
    "A git checkout with its full history, or a skip saying why a pin cannot resolve."
    if git('rev-parse', '--git-dir').returncode:
        pytest.skip('not a git checkout: the pin is checked where the repository is')
    if git('rev-parse', '--is-shallow-repository').stdout.strip() == 'true':
        pytest.skip('a shallow clone: the pinned commit may lie before its first one')


def test_every_install_pins_one_commit():
    the_pin(pins())


def test_every_badge_and_launch_button_opens_one_commit():
    the_pin(links())


def test_the_pin_is_a_commit_of_main_with_this_version(history):
    from transformer_nb import __version__
    commit = the_pin(pins())
    assert is_commit(commit), f'{commit} is not a commit here'
    assert in_main(commit), \
        f'{commit} is not in the history of HEAD: a reader could not install it'
    init = git('show', f'{commit}:transformer_nb/__init__.py').stdout
    pinned = re.search(r'__version__ = "([^"]+)"', init).group(1)
    assert pinned == __version__, f'the pinned commit is release {pinned}, the ' \
        f'package is {__version__}: run python tools/release.py --pin'


def test_readme_names_the_release():
    from transformer_nb import __version__
    readme = (ROOT / 'README.md').read_text(encoding='utf-8')
    commit = the_pin(pins())
    assert f'the commit `{commit[:12]}`' in readme
    assert f'release `{__version__}`' in readme


@pytest.mark.parametrize('chapter', TOC_FILES)
def test_the_notebook_a_badge_opens_installs_its_own_code(chapter, history):
    """The chapter's badge opens the notebook at a commit B of main whose install cell
    pins B's parent, the release the book's installs name; B changes nothing of its
    parent but pin lines; the launch buttons open B too."""
    path = ROOT / f'{chapter}.ipynb'
    opened = badge(path)
    assert len(set(opened)) == 1 and re.fullmatch(HASH, opened[0]), \
        f'{path.name}: the badge opens {opened}, not one commit'
    b = opened[0]
    if b in LEGACY:
        pytest.skip(f'the badge opens release {LEGACY[b]} ({b[:12]}) itself, cut '
                    'before a release took three commits: its install cell pins the '
                    'release before it; the next release (tools/release.py --pin, then '
                    '--link) opens the commit that pins it')
    assert is_commit(b), f'{path.name}: the badge opens {b}, not a commit here'
    assert in_main(b), f'{path.name}: the badge opens {b[:12]}, not in the history ' \
        'of HEAD: a reader could not open it from main'
    shown = git('show', f'{b}:{chapter}.ipynb')
    assert shown.returncode == 0, f'{path.name} is not in {b[:12]}: its badge opens ' \
        'nothing (a chapter opens on Colab from the first release that holds it)'
    installs = INSTALL.findall(src(json.loads(shown.stdout)['cells'][1]))
    parent = git('rev-parse', f'{b}^').stdout.strip()
    assert installs == [parent], f'{path.name} at {b[:12]} installs {installs}, not ' \
        f'its parent {parent[:12]}: {RUN}'
    assert parent == the_pin(pins()), f'{path.name}: the notebook its badge opens ' \
        f'installs {parent[:12]}; the book installs another release: {RUN}'
    bad = beyond_pins(parent, b)
    assert not bad, f'{b[:12]} changes more than the pins of its parent ' \
        f'{parent[:12]}: ' + '; '.join(bad[:5])
    assert launch_buttons() == [b], \
        f'the launch buttons open {launch_buttons()}, the badges {b[:12]}: {RUN}'


def test_the_check_can_fail():
    a, b = 'a' * 40, 'b' * 40
    assert the_pin({'x': [a], 'y': [a]}) == a
    with pytest.raises(AssertionError, match='not one commit'):
        the_pin({'x': [a], 'y': [b]})
    with pytest.raises(AssertionError, match='missing'):
        the_pin({'x': [a], 'y': []})
    with pytest.raises(AssertionError, match='not one commit'):
        the_pin({'x': ['main'], 'y': ['main']})


def test_the_pin_diff_check_can_fail(history):
    """On release 0.12.1's two commits: the release changed the package; the commit that
    pinned it changed pin lines only in the notebooks and the README, and one more file
    (_config.yml, whose launch buttons the pin commit no longer touches)."""
    release = 'bfbf1145da16296ef8aafd52163669131076d56e'
    pinned = '69ffc5d805fcb671588d75fe0857500e042811bf'
    if not (is_commit(release) and is_commit(pinned)):
        pytest.skip('release 0.12.1 is not in this history')
    assert 'transformer_nb/__init__.py changed' in beyond_pins(f'{release}^', release)
    assert beyond_pins(release, pinned) == ('_config.yml changed',)


def test_the_chart_library_is_pinned_once():
    """The chart library's versions that `transformer_nb.book.charts` loads outside the book (`VEGA`) are the ones the
    book vendors: `web/package.json` names them exactly and its lock file installs them."""
    from transformer_nb.book.charts import VEGA
    web = ROOT / 'web'
    pinned = json.loads((web / 'package.json').read_text())['dependencies']
    locked = json.loads((web / 'package-lock.json').read_text())['packages']
    wanted = {name: pinned.get(name) for name in VEGA}  # the translator's libraries besides
    assert wanted == VEGA, f'web/package.json pins {wanted}; transformer_nb.book.charts.VEGA says {VEGA}'
    exact = re.compile(r'\d+\.\d+\.\d+$')
    assert all(exact.match(v) for v in pinned.values()), f'web/package.json pins a range: {pinned}'
    for name, version in pinned.items():
        assert locked[f'node_modules/{name}']['version'] == version, f'{name}: the lock file installs another version'
