"""The index's map of the book and its reading times are those `tools/reading_time.py` counts from the notebooks."""
import json, subprocess, sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_map_and_reading_times_are_current():
    out = subprocess.run([sys.executable, 'tools/reading_time.py', '--check'], cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr


def test_the_map_lists_every_chapter_of_the_toc():
    data = json.loads((ROOT / 'data' / 'reading_times.json').read_text())
    listed = [c['notebook'] for p in data['parts'] for c in p['chapters']]
    toc = (ROOT / '_toc.yml').read_text()
    assert listed and all(f'nbs/{n}' in toc for n in listed)
    assert len(listed) == toc.count('- file: nbs/') == data['whole_book']['chapters']
    index = ''.join(''.join(c['source']) for c in json.loads((ROOT / 'nbs' / '00_index.ipynb').read_text())['cells'])
    assert all(f'({n}.ipynb)' in index for n in listed)


def test_route_totals():
    sys.path.insert(0, str(ROOT / 'tools'))
    import reading_time
    m = reading_time.measure()
    assert m['first_reading']['chapters'] == 14 and 0 < m['first_reading']['minutes'] < m['whole_book']['minutes']
    text = reading_time.map_cell(m)
    assert f"about {reading_time.hours(m['first_reading']['minutes'])}" in text
    assert reading_time.hours(250) == '4 h 10 min' and reading_time.hours(45) == '45 min'
