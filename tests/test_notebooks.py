"""Hygiene of the book's notebooks: what every chapter must keep to render and run everywhere."""
import json, re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NBS = sorted((ROOT / 'nbs').glob('*.ipynb'))
COLAB = 'https://colab.research.google.com/github/transformer-nb/transformer_nb/blob/main/nbs/'


def load(p): return json.loads(p.read_text(encoding='utf-8'))
def src(c): return ''.join(c['source'])
def flags(c): return set(c.get('metadata', {}).get('nbdev', {}))


def test_there_are_notebooks():
    assert any(p.name == '00_index.ipynb' for p in NBS) and len(NBS) >= 2


@pytest.mark.parametrize('path', NBS, ids=lambda p: p.name)
def test_kernelspec(path):
    ks = load(path)['metadata'].get('kernelspec', {})
    assert ks.get('name') and ks.get('language') == 'python', f'{path.name}: kernelspec missing'


@pytest.mark.parametrize('path', NBS, ids=lambda p: p.name)
def test_no_directive_comments(path):
    "nbdev directives live in cell metadata, so the book shows clean code."
    bad = [i for i, c in enumerate(load(path)['cells'])
           if c['cell_type'] == 'code' and any(l.lstrip().startswith('#|') for l in c['source'])]
    assert not bad, f'{path.name}: cells {bad} carry #| lines; run nbdev-clean --to-meta'


@pytest.mark.parametrize('path', NBS, ids=lambda p: p.name)
def test_title_badge_and_colab_cell(path):
    cells = load(path)['cells']
    first = src(cells[0])
    assert cells[0]['cell_type'] == 'markdown' and first.startswith('# '), f'{path.name}: must open with a # title'
    assert COLAB + path.name in first, f'{path.name}: Colab badge must link to this notebook'
    install = cells[1]
    assert install['cell_type'] == 'code' and 'google.colab' in src(install)
    assert 'remove-cell' in install.get('metadata', {}).get('tags', []), f'{path.name}: install cell must be hidden'


@pytest.mark.parametrize('path', NBS, ids=lambda p: p.name)
def test_outputs_are_stored_and_clean(path):
    "Notebooks are committed with the outputs of a run (the book shows them), and no cell stored an error."
    code = [c for c in load(path)['cells'] if c['cell_type'] == 'code' and src(c).strip()]
    for i, c in enumerate(code):
        errs = [o for o in c.get('outputs', []) if o.get('output_type') == 'error']
        assert not errs, f'{path.name}: code cell {i} stored an error'
    if path.name != '00_index.ipynb':
        assert any(c.get('outputs') for c in code), f'{path.name}: no stored outputs; run tools/execute_notebooks.py'


def test_toc_lists_every_notebook():
    toc = (ROOT / '_toc.yml').read_text()
    listed = set(re.findall(r'(?:root|file):\s*nbs/(\S+)', toc))
    assert listed == {p.stem for p in NBS}, f'_toc.yml and nbs/ differ: {listed ^ {p.stem for p in NBS}}'


def test_no_settings_ini():
    assert not (ROOT / 'settings.ini').exists(), 'nbdev 3 reads pyproject.toml; settings.ini must not exist'


def test_install_cells_pin_this_version():
    "Colab installs the release the stored outputs came from: the tag of the package's own version."
    from transformer_nb import __version__
    for path in NBS:
        cell = load(path)['cells'][1]
        pins = re.findall(r"transformer_nb@v([0-9][^'\"]*)'", src(cell))
        assert pins == [__version__], f'{path.name}: install cell pins {pins}, the package is {__version__}; ' \
                                      f'run python tools/release.py {__version__}'


@pytest.mark.parametrize('path', NBS, ids=lambda p: p.name)
def test_chapter_needs_the_package_alone(path):
    "No chapter reaches into the checkout: no `../` paths, no sys.path edits, no benchmarks/ or tools/."
    bad = re.compile(r"\.\./|sys\.path|^\s*(?:from|import)\s+(?:benchmarks|tools)\b", re.M)
    hits = [i for i, c in enumerate(load(path)['cells'])
            if c['cell_type'] == 'code' and bad.search(src(c))]
    assert not hits, f'{path.name}: code cells {hits} reach into the repository checkout'
