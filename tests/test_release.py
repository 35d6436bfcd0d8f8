"""The release a reader installs resolves: every pin names one commit of main that carries this version.

Only branch main reaches the public repository (tags do not), so the chapters' install cells, their Colab badges,
the README's install commands and the book's launch buttons pin a commit by its hash (`tools/release.py --pin`).
A pin that names a commit outside main's history, or a commit of another version, would install code that the
stored outputs did not come from, or nothing at all."""
import json, re, subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NBS = sorted((ROOT / 'nbs').glob('*.ipynb'))
HASH = r'[0-9a-f]{40}'
INSTALL = re.compile(rf"transformer_nb'\n\s*'@({HASH})',")  # the URL, then the commit on a line of its own
BADGE = re.compile(rf'colab\.research\.google\.com/github/transformer-nb/transformer_nb/blob/([^/]+)/nbs/([^)\s]+)')


def src(c): return ''.join(c['source'])


def pins() -> dict:
    "Every place that pins a commit -> the commit (or the text) it names."
    out = {}
    for path in NBS:
        cells = json.loads(path.read_text(encoding='utf-8'))['cells']
        out[f'{path.name}: install cell'] = INSTALL.findall(src(cells[1]))
        out[f'{path.name}: badge'] = [c for c, name in BADGE.findall(src(cells[0])) if name == path.name]
        prose = ''.join(src(c) for c in cells if c['cell_type'] == 'markdown')
        if 'pip install "transformer-nb @' in prose:  # the index's install command
            # the URL, then `@<commit>"` (on a line of its own after a backslash, in a narrow code block)
            out[f'{path.name}: install command'] = re.findall(r'transformer_nb(?:\\\n)?@([^"]*)"', prose)
    readme = (ROOT / 'README.md').read_text(encoding='utf-8')
    out['README.md: install commands'] = re.findall(rf'transformer_nb@({HASH})"', readme)
    out['_config.yml: launch buttons'] = re.findall(r'\n  branch: (\S+)', (ROOT / '_config.yml').read_text())
    return out


def the_pin(found: dict) -> str:
    "The one commit every place names; an AssertionError naming the places that differ."
    bad = {k: v for k, v in found.items() if not v or len(set(v)) != 1}
    assert not bad, f'pins missing or not one commit: {bad}; run python tools/release.py --pin'
    commits = {v[0] for v in found.values()}
    assert len(commits) == 1 and re.fullmatch(HASH, next(iter(commits))), \
        f'the pins name {sorted(commits)}, not one commit: run python tools/release.py --pin'
    return commits.pop()


def git(*args) -> subprocess.CompletedProcess:
    return subprocess.run(['git', *args], cwd=ROOT, capture_output=True, text=True)


@pytest.fixture(scope='module')
def history():
    "A git checkout with its full history, or a skip saying why the pin cannot be resolved here."
    if git('rev-parse', '--git-dir').returncode:
        pytest.skip('not a git checkout: the pin is checked where the repository is')
    if git('rev-parse', '--is-shallow-repository').stdout.strip() == 'true':
        pytest.skip('a shallow clone: the pinned commit may lie before its first commit')


def test_every_place_pins_one_commit():
    the_pin(pins())


def test_the_pin_is_a_commit_of_main_with_this_version(history):
    from transformer_nb import __version__
    commit = the_pin(pins())
    assert git('cat-file', '-e', f'{commit}^{{commit}}').returncode == 0, f'{commit} is not a commit here'
    assert git('merge-base', '--is-ancestor', commit, 'HEAD').returncode == 0, \
        f'{commit} is not in the history of HEAD: a reader could not install it from main'
    init = git('show', f'{commit}:transformer_nb/__init__.py').stdout
    pinned = re.search(r'__version__ = "([^"]+)"', init).group(1)
    assert pinned == __version__, \
        f'the pinned commit is release {pinned}, the package is {__version__}: run python tools/release.py --pin'


def test_readme_names_the_release():
    from transformer_nb import __version__
    readme = (ROOT / 'README.md').read_text(encoding='utf-8')
    commit = the_pin(pins())
    assert f'the commit `{commit[:12]}`' in readme and f'release `{__version__}`' in readme


def test_the_check_can_fail():
    a, b = 'a' * 40, 'b' * 40
    assert the_pin({'x': [a], 'y': [a]}) == a
    with pytest.raises(AssertionError, match='not one commit'):
        the_pin({'x': [a], 'y': [b]})
    with pytest.raises(AssertionError, match='missing'):
        the_pin({'x': [a], 'y': []})
    with pytest.raises(AssertionError, match='not one commit'):
        the_pin({'x': ['main'], 'y': ['main']})


def test_the_chart_library_is_pinned_once():
    """The chart library's versions that `transformer_nb.charts` loads outside the book (`VEGA`) are the ones the
    book vendors: `web/package.json` names them exactly and its lock file installs them."""
    from transformer_nb.charts import VEGA
    web = ROOT / 'web'
    wanted = json.loads((web / 'package.json').read_text())['dependencies']
    locked = json.loads((web / 'package-lock.json').read_text())['packages']
    assert wanted == VEGA, f'web/package.json pins {wanted}; transformer_nb.charts.VEGA says {VEGA}'
    for name, version in VEGA.items():
        assert locked[f'node_modules/{name}']['version'] == version, f'{name}: the lock file installs another version'
