"""Code as the rendered page shows it: every code line of every chapter fits the content column.

The book's column holds 88 characters of code; a longer line is cut off on the page. The notebooks are
formatted by `ruff format` (settings in pyproject.toml's [tool.ruff]) and the strings and comments it
leaves long are wrapped by tools/wrap_long_lines.py; these tests keep it that way."""
import json, shutil, subprocess, sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / 'nbs').glob('*.ipynb'))
WIDTH = 88


def long_lines(path: Path) -> list:
    "(cell id, line) of every code line over WIDTH characters."
    cells = json.loads(path.read_text())['cells']
    return [(c.get('id'), line) for c in cells if c['cell_type'] == 'code'
            for line in ''.join(c['source']).split('\n') if len(line) > WIDTH]


@pytest.mark.parametrize('path', NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_code_lines_fit_the_column(path):
    over = long_lines(path)
    assert not over, (f'{len(over)} code lines over {WIDTH} characters, e.g. cell {over[0][0]}: '
                      f'{over[0][1][:100]!r}; run ruff format, then tools/wrap_long_lines.py')


def test_the_check_can_fail(tmp_path):
    nb = {'cells': [{'cell_type': 'code', 'id': 'x', 'source': ['y = 1  # ' + 'z' * 90]}]}
    (tmp_path / 'a.ipynb').write_text(json.dumps(nb))
    assert long_lines(tmp_path / 'a.ipynb') == [('x', 'y = 1  # ' + 'z' * 90)]


def test_notebooks_are_formatted():
    ruff = shutil.which('ruff') or str(Path(sys.executable).parent / 'ruff')
    if not Path(ruff).exists(): pytest.skip('ruff is not installed: pip install -e ".[dev]"')
    r = subprocess.run([ruff, 'format', '--check', *map(str, NOTEBOOKS)], cwd=ROOT,
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]


def test_wrapper_keeps_the_meaning():
    sys.path.insert(0, str(ROOT / 'tools'))
    from wrap_long_lines import normal, wrap_source
    src = ('def f(x):\n'
           '    "A docstring that is far too long for the column, written in one line as before here."\n'
           "    raise ValueError(f'the value {x!r} is not allowed here, because the rule says so, "
           "see the {x} docs')  # and a comment\n")
    out = wrap_source(src, 60)
    assert max(map(len, out.split('\n'))) <= 60, out
    assert normal(out) == normal(src)


def comment_fragments(path: Path) -> list:
    """(cell id, line) of every comment line that is the cut-off tail of the one above: at most two
    words under a comment line that fills the column (what a mechanical wrap leaves), or a comment
    between a decorator and its `def`."""
    out = []
    for c in json.loads(path.read_text())['cells']:
        lines = ''.join(c['source']).split('\n') if c['cell_type'] == 'code' else []
        for above, line in zip(lines, lines[1:]):
            a, s = above.strip(), line.strip()
            if s.startswith('#') and a.startswith('#') and len(above) > WIDTH - 12 \
                    and len(s[1:].split()) <= 2 and not s.startswith('#|'):
                out.append((c.get('id'), line))
            if a.startswith('@') and s.startswith('#'):
                out.append((c.get('id'), line))
    return out


@pytest.mark.parametrize('path', NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_comments_are_whole(path):
    bad = comment_fragments(path)
    assert not bad, f'comment lines cut from the line above (cell, line): {bad}; rewrite the comment'


def test_the_fragment_check_can_fail(tmp_path):
    cut = '# ' + 'word ' * 17 + 'lo\n'
    nb = {'cells': [{'cell_type': 'code', 'id': 'x', 'source': [cut, '# ng\n', 'x = 1']},
                    {'cell_type': 'code', 'id': 'y', 'source': ['@patch\n', '# doc\n', 'def f(): ...']},
                    {'cell_type': 'code', 'id': 'z', 'source': ['# short\n', '# ok\n']}]}
    (tmp_path / 'a.ipynb').write_text(json.dumps(nb))
    assert comment_fragments(tmp_path / 'a.ipynb') == [('x', '# ng'), ('y', '# doc')]
