"""Hygiene of the book's notebooks: what every chapter must keep to render and run everywhere."""
import json, re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NBS = sorted((ROOT / 'nbs').glob('*.ipynb'))
COLAB = re.compile(r'https://colab\.research\.google\.com/github/transformer-nb/transformer_nb/blob/[^/]+/nbs/([^)\s]+)')


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
    assert path.name in COLAB.findall(first), f'{path.name}: Colab badge must link to this notebook'
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


@pytest.mark.parametrize('path', NBS, ids=lambda p: p.name)
def test_figures_have_legible_labels(path):
    """Every stored figure carries what `plot.crisp_figures` records beside it: its smallest text, 10 points or more
    (7 px or more on a phone, where the browser test checks it as drawn), and no labels drawn over each other. Only
    a figure of a `train` cell, which needs the chapter's training run, may lack the record."""
    bad = []
    for i, c in enumerate(load(path)['cells']):
        for o in c.get('outputs', []):
            if 'image/png' not in o.get('data', {}): continue
            meta = o.get('metadata', {}).get('image/png', {})
            if not {'smallest_text_pt', 'overlapping_texts'} <= set(meta):
                if 'train' not in flags(c): bad.append(f'cell {i}: no record (re-run it)')
                continue
            if (meta['smallest_text_pt'] or 99) < 10: bad.append(f"cell {i}: text of {meta['smallest_text_pt']} points")
            if meta.get('overlapping_texts'): bad.append(f"cell {i}: labels overlap: {meta['overlapping_texts'][:3]}")
    assert not bad, f'{path.name}: ' + '; '.join(bad)


def alt_text_problems(cells: list) -> list:
    """What keeps a notebook's figures from a reader who cannot see them: each code cell with a PNG output needs
    `{"mystnb": {"image": {"alt": ...}}}` in its metadata (MyST-NB puts it on the `<img>`, which otherwise gets the
    image's file path), a sentence of 20 characters or more that says what the figure shows."""
    bad = []
    for i, c in enumerate(cells):
        if not any('image/png' in o.get('data', {}) for o in c.get('outputs', [])): continue
        alt = c.get('metadata', {}).get('mystnb', {}).get('image', {}).get('alt', '')
        if not isinstance(alt, str) or len(alt.strip()) < 20 or not re.search(r'[a-z]{3,} [a-z]{2,}', alt) \
                or re.search(r'\.(png|jpe?g|svg)\b|[/\\]\w+[/\\]', alt):
            bad.append(f'cell {i} ({c.get("id")}): alt text {alt!r}')
    return bad


@pytest.mark.parametrize('path', NBS, ids=lambda p: p.name)
def test_figures_have_alt_text(path):
    bad = alt_text_problems(load(path)['cells'])
    assert not bad, f'{path.name}: figures without a description: ' + '; '.join(bad)


def test_the_alt_text_check_can_fail():
    png = [{'output_type': 'display_data', 'data': {'image/png': 'iVBOR', 'text/plain': '<Figure>'}}]
    cell = lambda meta: {'cell_type': 'code', 'id': 'c0', 'metadata': meta, 'outputs': png, 'source': []}
    alt = lambda text: cell({'mystnb': {'image': {'alt': text}}})
    assert alt_text_problems([alt('Loss against the training step: it falls from 3 to 0.01.')]) == []
    assert alt_text_problems([{'cell_type': 'code', 'metadata': {}, 'outputs': [], 'source': []}]) == []
    for bad in (cell({}), alt(''), alt('a figure'), alt('../_build/jupyter_execute/abc123.png'), alt('fig_3.png')):
        assert len(alt_text_problems([bad])) == 1, bad


def test_toc_lists_every_notebook():
    toc = (ROOT / '_toc.yml').read_text()
    listed = set(re.findall(r'(?:root|file):\s*nbs/(\S+)', toc))
    assert listed == {p.stem for p in NBS}, f'_toc.yml and nbs/ differ: {listed ^ {p.stem for p in NBS}}'


def test_no_settings_ini():
    assert not (ROOT / 'settings.ini').exists(), 'nbdev 3 reads pyproject.toml; settings.ini must not exist'


@pytest.mark.parametrize('path', NBS, ids=lambda p: p.name)
def test_chapter_needs_the_package_alone(path):
    "No chapter reaches into the checkout: no `../` paths, no sys.path edits, no benchmarks/ or tools/."
    bad = re.compile(r"\.\./|sys\.path|^\s*(?:from|import)\s+(?:benchmarks|tools)\b", re.M)
    hits = [i for i, c in enumerate(load(path)['cells'])
            if c['cell_type'] == 'code' and bad.search(src(c))]
    assert not hits, f'{path.name}: code cells {hits} reach into the repository checkout'


# The book's conventions for every chapter: exercises at the end, solutions that run as tests, code in short steps.
TOC = (ROOT / '_toc.yml').read_text()
CHAPTERS = [ROOT / 'nbs' / f'{name}.ipynb' for name in re.findall(r'file:\s*nbs/(\S+)', TOC)]  # the index aside
MAX_EXPORTED_LINES = 30
SOLUTION = re.compile(r'# Solution to exercise (\d+)')


def exercise_problems(cells: list) -> list:
    """What keeps a chapter's end from the convention: a last `## Exercises` section of 3 to 5 numbered exercises,
    followed by solution cells tagged `hide-cell`, each beginning with `# Solution to exercise N` and asserting."""
    heads = [i for i, c in enumerate(cells) if c['cell_type'] == 'markdown'
             and re.search(r'^## Exercises\s*$', src(c), re.M)]
    if not heads: return ['no "## Exercises" section']
    at, out = heads[-1], []
    text = src(cells[at]).split('## Exercises', 1)[1]
    numbers = [int(n) for n in re.findall(r'^(\d+)\. ', text, re.M)]
    if not 3 <= len(numbers) <= 5 or numbers != list(range(1, len(numbers) + 1)):
        out.append(f'exercises numbered {numbers}: want 3 to 5, numbered from 1')
    later = [c for c in cells[at + 1:] if src(c).strip()]
    if any(c['cell_type'] == 'markdown' and re.search(r'^#{1,2} ', src(c), re.M) for c in later):
        out.append('a section follows the exercises: they end the chapter')
    solved = set()
    for c in (c for c in later if c['cell_type'] == 'code'):
        m, first = SOLUTION.match(src(c)), src(c).lstrip().split('\n')[0][:60]
        if not m: out.append(f'code cell after the exercises is not a solution: {first!r}'); continue
        solved.add(int(m.group(1)))
        if 'hide-cell' not in c.get('metadata', {}).get('tags', []):
            out.append(f'{first!r} is not tagged hide-cell')
        prompt = c.get('metadata', {}).get('mystnb', {}).get('code_prompt_show')
        if prompt != f'Solution to exercise {m.group(1)}':  # the toggle names its exercise
            out.append(f'{first!r}: its toggle says {prompt!r}')
        if not re.search(r'\bassert\b|\btest_\w+\(', src(c)):
            out.append(f'{first!r} asserts nothing')
    if set(numbers) - solved: out.append(f'exercises without a solution cell: {sorted(set(numbers) - solved)}')
    return out


def code_lines(text: str) -> int:
    "Lines of a cell that hold code: blank lines and comment-only lines do not count."
    return sum(1 for l in text.splitlines() if l.strip() and not l.strip().startswith('#'))


def whole_class(c: dict) -> bool:
    """A product class that no chapter teaches method by method, written whole: its cell starts with `class` (or a
    decorator, then `class`) and is tagged `hide-input`, so the page folds it and `show_doc` presents its methods."""
    first = next((l for l in src(c).lstrip().splitlines() if not l.startswith('@')), '')
    return first.startswith('class ') and 'hide-input' in c.get('metadata', {}).get('tags', [])


def long_exported_cells(cells: list, max_lines: int = MAX_EXPORTED_LINES) -> list:
    "(cell id, code lines) of every exported code cell over `max_lines` lines of code."
    return [(c.get('id'), code_lines(src(c))) for c in cells
            if c['cell_type'] == 'code' and 'export' in flags(c) and code_lines(src(c)) > max_lines
            and not src(c).lstrip().startswith('@dataclass')  # a dataclass's fields stay whole
            and not whole_class(c)]


@pytest.mark.parametrize('path', CHAPTERS, ids=lambda p: p.name)
def test_chapter_ends_with_exercises(path):
    bad = exercise_problems(load(path)['cells'])
    assert not bad, f'{path.name}: ' + '; '.join(bad)


@pytest.mark.parametrize('path', NBS, ids=lambda p: p.name)
def test_exported_cells_are_short(path):
    """Code in small steps: a class a chapter teaches grows across cells with @patch; python tools/split_cells.py cuts
    long cells. A product class is written whole, folded (`whole_class`)."""
    long = long_exported_cells(load(path)['cells'])
    assert not long, f'{path.name}: exported cells over {MAX_EXPORTED_LINES} lines (id, lines): {long}'


def md(text): return {'cell_type': 'markdown', 'source': [text], 'metadata': {}}
def code(text, tags=(), export=False):
    m = SOLUTION.match(text)
    prompt = {'mystnb': {'code_prompt_show': f'Solution to exercise {m.group(1)}'}} if m else {}
    return {'cell_type': 'code', 'source': [text], 'id': 'c0',
            'metadata': {'tags': list(tags), **prompt, **({'nbdev': {'export': 'true'}} if export else {})}}


def test_the_exercise_check_can_fail():
    good = [md('## Exercises\n\n1. One.\n2. Two.\n3. Three.')] + \
           [code(f'# Solution to exercise {n}\nassert {n}', ['hide-cell']) for n in (1, 2, 3)]
    assert exercise_problems(good) == []
    assert exercise_problems(good[1:]) == ['no "## Exercises" section']
    assert 'want 3 to 5' in exercise_problems([md('## Exercises\n\n1. One.\n2. Two.')] + good[1:3])[0]
    untagged = good[:3] + [code('# Solution to exercise 3\nassert 3')]
    assert exercise_problems(untagged) == ["'# Solution to exercise 3' is not tagged hide-cell"]
    unnamed = good[:3] + [dict(good[3], metadata={'tags': ['hide-cell']})]
    assert exercise_problems(unnamed) == ["'# Solution to exercise 3': its toggle says None"]
    assert 'asserts nothing' in exercise_problems(good[:3] + [code('# Solution to exercise 3\nx = 3', ['hide-cell'])])[0]
    assert 'not a solution' in exercise_problems(good + [code('print(1)')])[0]
    assert 'without a solution' in exercise_problems(good[:3])[0]
    assert 'a section follows' in exercise_problems(good + [md('## Summary')])[0]


def test_the_cell_size_check_can_fail():
    cells = [code('x = 1\n' * 31, export=True), code('x = 1\n' * 31), code('x = 1\n' * 30, export=True)]
    assert long_exported_cells(cells) == [('c0', 31)]
    whole = 'class A:\n' + '    x = 1\n' * 40
    assert long_exported_cells([code(whole, ['hide-input'], export=True)]) == []  # folded on the page
    assert long_exported_cells([code(whole, export=True)]) == [('c0', 41)]  # shown: too long
    assert long_exported_cells([code('def f():\n' + '    x = 1\n' * 40, ['hide-input'], export=True)]) \
        == [('c0', 41)]  # only a class


def pages_missing_from_toc(links: list, toc: str = TOC) -> list:
    "Links (`02_multihead.html`) to pages that are not chapters of `_toc.yml`."
    pages = set(re.findall(r'(?:root|file):\s*nbs/(\S+)', toc))
    return [h for h in links if h.removesuffix('.html') not in pages]


def test_figure1_links_to_chapters_of_the_book():
    "Each box of the paper's Figure 1 (appendix 99a) links to a chapter of the book."
    from transformer_nb.book.diagrams import figure1
    links = figure1().links()
    assert links and pages_missing_from_toc(links) == [], pages_missing_from_toc(links)
    assert pages_missing_from_toc(['02_multihead.html', '99_nothing.html']) == ['99_nothing.html']
