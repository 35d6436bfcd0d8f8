"""The first reading: the parts of `_toc.yml` captioned "First reading", read in order, each chapter building only
on the ones before it.

* The chapters are the paper's definitions in the mission's order and nothing else.
* A first-reading chapter's code (exported cells, tests and demos alike) imports only the package modules of the
  earlier first-reading chapters (a module belongs to the notebook that names it `default_exp`), of `00_utils`,
  and the book's drawing and reference tools (`TOOLS`): none of the product built in the later parts.
* None of the product's engineering words appears in a first-reading chapter.
"""
import ast, json, re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PKG = ROOT / 'transformer_nb'
SOURCE = re.compile(r'File to edit: (?:\.\./)+nbs/(\S+)\.ipynb')
# The definitions of the first reading, in the order they are read (a notebook's name after its number).
ORDER = ['attention', 'multihead', 'feedforward', 'positional', 'sublayer', 'encoder', 'decoder', 'model',
         'data', 'noam', 'label_smoothing', 'training', 'kv_cache', 'beam_search']
# Modules any chapter may use because they teach nothing of the model: the figures' helpers (appendix 99 and the
# search tree of appendix 94) and the copy of a model into Hugging Face's classes that chapter 14 compares with.
TOOLS = {'book.plot', 'book.charts', 'book.diagrams', 'book.beam_tree', 'deploy.marian'}
FORBIDDEN = {'int8': r'(?<![a-z])int8', 'onnx': r'\bonnx', 'safetensors': r'safetensors', 'fused_qkv': r'fused_qkv',
             'ctranslate2': r'ctranslate2', 'torchrun': r'torchrun', 'stand-in': r'stand[-_ ]ins?\b'}


def first_reading(toc: str) -> list:
    "Notebook stems of the parts captioned 'First reading...', in order."
    parts = re.split(r'^\s*-\s*caption:\s*', toc, flags=re.M)[1:]
    chosen = [p for p in parts if p.lower().lstrip('"\'').startswith('first reading')]
    return [Path(f).name for p in chosen for f in re.findall(r'^\s*-\s*file:\s*(\S+)', p, re.M)]


CHAPTERS = first_reading((ROOT / '_toc.yml').read_text())


def module_notebooks() -> dict:
    "dotted module name (`model.attention`) -> the notebook that exports it (its `default_exp`)."
    out = {}
    for p in PKG.rglob('*.py'):
        m = SOURCE.search(p.read_text())
        if m: out['.'.join(p.relative_to(PKG).with_suffix('').parts)] = m.group(1)
    return out


def lazy_names() -> dict:
    "Names importable from the package root -> their module."
    tree = ast.parse((PKG / '__init__.py').read_text())
    node = next(n for n in tree.body if isinstance(n, ast.Assign) and getattr(n.targets[0], 'id', '') == '_LAZY')
    return ast.literal_eval(node.value)


def imported_modules(code: str, lazy: dict) -> set:
    "Package modules a cell's code imports: `from transformer_nb.x import`, `import transformer_nb.x`, root names."
    out = set(re.findall(r'(?:from|import)\s+transformer_nb\.([\w.]+)', code))
    for m in re.finditer(r'from\s+transformer_nb\s+import\s+(\([^)]*\)|[^\n#]+)', code):
        names = m.group(1).strip('()').replace('\n', ',').split(',')
        out |= {lazy.get(n.split()[0], n.split()[0]) for n in names if n.strip()}
    return out


def notebook_imports(path: Path, lazy: dict) -> set:
    cells = json.loads(path.read_text())['cells']
    return set().union(*(imported_modules(''.join(c['source']), lazy) for c in cells if c['cell_type'] == 'code'))


def order_problems(chapters: list, owner: dict, imports: dict) -> list:
    "'chapter imports module (notebook)' for every import of a later or outside chapter's module."
    out = []
    for i, chapter in enumerate(chapters):
        allowed = set(chapters[:i + 1]) | {'00_utils'}
        for mod in sorted(imports[chapter]):
            if mod not in TOOLS and owner.get(mod) not in allowed:
                out.append(f'{chapter} imports {mod} ({owner.get(mod, "no such module")})')
    return out


def test_the_first_reading_is_the_papers_definitions_in_order():
    assert [re.sub(r'^\d+_', '', c) for c in CHAPTERS] == ORDER, CHAPTERS


def test_chapters_import_only_earlier_chapters():
    lazy, owner = lazy_names(), module_notebooks()
    imports = {c: notebook_imports(ROOT / 'nbs' / f'{c}.ipynb', lazy) for c in CHAPTERS}
    assert sum(map(len, imports.values())) > 20  # the check sees the imports
    bad = order_problems(CHAPTERS, owner, imports)
    assert not bad, 'first-reading chapters importing what they have not read yet: ' + '; '.join(bad)


def test_the_order_check_can_fail():
    owner = {'model.attention': '01_attention', 'generation.config': '95_generation_config',
             'model.decoder': '07_decoder', 'book.plot': '99_plot'}
    chapters = ['01_attention', '07_decoder']
    assert order_problems(chapters, owner, {'01_attention': {'book.plot'}, '07_decoder': {'model.attention'}}) == []
    assert order_problems(chapters, owner, {'01_attention': {'model.decoder'}, '07_decoder': set()}) \
        == ['01_attention imports model.decoder (07_decoder)']
    assert order_problems(chapters, owner, {'01_attention': set(), '07_decoder': {'generation.config'}}) \
        == ['07_decoder imports generation.config (95_generation_config)']
    assert imported_modules('from transformer_nb import Trainer, Transformer\nimport transformer_nb.book.plot',
                            {'Trainer': 'training.trainer', 'Transformer': 'model.transformer'}) \
        == {'training.trainer', 'model.transformer', 'book.plot'}


@pytest.mark.parametrize('chapter', CHAPTERS)
def test_no_engineering_words(chapter):
    cells = json.loads((ROOT / 'nbs' / f'{chapter}.ipynb').read_text())['cells']
    text = '\n'.join(''.join(c['source']) for c in cells).lower()
    hits = sorted(k for k, rx in FORBIDDEN.items() if re.search(rx, text))
    assert not hits, f'{chapter} speaks of the product in the first reading: {hits}'
