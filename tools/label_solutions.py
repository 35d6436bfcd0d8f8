"""Give every exercise solution's toggle the name of its exercise.

    python tools/label_solutions.py nbs/*.ipynb

A solution is a code cell tagged `hide-cell` that starts with `# Solution to exercise N`. The book shows
such a cell folded behind a button that says "Show code cell content" unless the cell's `mystnb` metadata
names it: this script writes `code_prompt_show` ("Solution to exercise N") and `code_prompt_hide` there,
which `nbdev-clean` keeps (`allowed_cell_metadata_keys` in pyproject.toml). `tests/test_notebooks.py`
fails on a solution whose toggle does not name its exercise.
"""
import json, re, sys
from pathlib import Path

SOLUTION = re.compile(r'# Solution to exercise (\d+)')


def label(nb: dict) -> int:
    "Set the toggle's words of every solution cell in `nb`; how many cells changed."
    changed = 0
    for c in nb['cells']:
        m = SOLUTION.match(''.join(c['source'])) if c['cell_type'] == 'code' else None
        if not m:
            continue
        want = {'code_prompt_show': f'Solution to exercise {m[1]}',
                'code_prompt_hide': f'Hide the solution to exercise {m[1]}'}
        if c['metadata'].get('mystnb') != want:
            c['metadata']['mystnb'] = want
            changed += 1
    return changed


if __name__ == '__main__':
    for p in map(Path, sys.argv[1:]):
        nb = json.loads(p.read_text())
        if n := label(nb):
            p.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + '\n')
            print(f'{p}: {n} solution toggles named')
