"""Counts of long code cells per notebook: exported cells and others over a number of lines.

    python tools/cell_stats.py [--max-lines 30] nbs/*.ipynb
"""
import argparse, json
from pathlib import Path


def long_cells(path: Path, max_lines: int) -> tuple:  # ([(id, lines)] exported, [(id, lines)] other)
    exported, other = [], []
    for c in json.loads(path.read_text())['cells']:
        if c['cell_type'] != 'code':
            continue
        n = len(''.join(c['source']).splitlines())
        if n > max_lines:
            export = 'export' in json.dumps(c.get('metadata', {}).get('nbdev', {}))
            (exported if export else other).append((c.get('id'), n))
    return exported, other


if __name__ == '__main__':
    ap = argparse.ArgumentParser()
    ap.add_argument('notebooks', nargs='+', type=Path)
    ap.add_argument('--max-lines', type=int, default=30)
    a = ap.parse_args()
    te = to = 0
    for p in a.notebooks:
        e, o = long_cells(p, a.max_lines)
        te, to = te + len(e), to + len(o)
        if e or o:
            print(f'{p.name}: exported {[n for _, n in e]} other {[n for _, n in o]}')
    print(f'total: {te} exported and {to} other code cells over {a.max_lines} lines')
