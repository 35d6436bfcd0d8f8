"""Split long exported code cells at their top-level statements, so the book shows code in short steps.

    python tools/split_cells.py nbs/*.ipynb              # cells over 30 lines
    python tools/split_cells.py --max-lines 25 nbs/02_multihead.ipynb

Only exported cells without outputs are split (a definition has none; a cell with outputs would need to run
again). A cell is cut between top-level statements (a function, a class, an assignment with the comments above
it and its decorators), greedily, into pieces of at most `--max-lines` lines; a single statement longer than that
stays whole (shortening it is a matter of design, not of cutting). Imports stay with the first piece. The pieces
keep the cell's metadata; the generated module is the same code in the same order.
"""
import argparse, ast, json, sys, uuid
from pathlib import Path


def statements(src: str) -> list:
    "Top-level statements as (first line, last line), 0-based, each with its decorators and comments above."
    lines = src.split('\n')
    tree = ast.parse(src)
    spans = []
    for node in tree.body:
        start = min([node.lineno] + [d.lineno for d in getattr(node, 'decorator_list', [])]) - 1
        spans.append([start, node.end_lineno - 1])
    for k, span in enumerate(spans):  # comments directly above a statement belong to it
        floor = spans[k - 1][1] + 1 if k else 0
        while span[0] > floor and lines[span[0] - 1].lstrip().startswith('#'):
            span[0] -= 1
    if spans:
        spans[-1][1] = max(spans[-1][1], len(lines) - 1)  # a trailing comment stays with the last one
        while spans[-1][1] > spans[-1][0] and not lines[spans[-1][1]].strip():
            spans[-1][1] -= 1
    return spans


def pieces(src: str, max_lines: int) -> list:
    "The source cut into pieces of at most `max_lines` lines (whole statements; one long statement alone)."
    lines = src.split('\n')
    spans = statements(src)
    if not spans:
        return [src]
    groups, cur = [], []
    for s, e in spans:
        start = cur[0][0] if cur else s
        if cur and (e - start + 1 > max_lines):
            groups.append(cur)
            cur = []
        cur.append((s, e))
    groups.append(cur)
    out = []
    for g in groups:
        text = '\n'.join(lines[g[0][0] : g[-1][1] + 1]).strip('\n')
        out.append(text)
    return out


def normal(src: str) -> str:
    return ast.dump(ast.parse(src))


def split_notebook(path: Path, max_lines: int) -> int:
    "Split the long exported cells of one notebook in place; the number of cells added."
    nb = json.loads(path.read_text())
    cells, added = [], 0
    for c in nb['cells']:
        src = ''.join(c['source'])
        export = 'export' in json.dumps(c.get('metadata', {}).get('nbdev', {}))
        if c['cell_type'] != 'code' or not export or c.get('outputs') or len(src.split('\n')) <= max_lines:
            cells.append(c)
            continue
        parts = pieces(src, max_lines)
        if normal('\n\n'.join(parts)) != normal(src):
            raise RuntimeError(f'{path} cell {c.get("id")}: splitting changed the code')
        for k, part in enumerate(parts):
            new = {**c, 'source': part.splitlines(True)}
            if k:
                new['id'] = uuid.uuid4().hex[:8]
            cells.append(new)
        added += len(parts) - 1
    if added:
        nb['cells'] = cells
        path.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + '\n')
    return added


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('notebooks', nargs='+', type=Path)
    ap.add_argument('--max-lines', type=int, default=30)
    a = ap.parse_args(argv)
    for p in a.notebooks:
        n = split_notebook(p, a.max_lines)
        if n:
            print(f'{p}: {n} cells added')
    return 0


if __name__ == '__main__':
    sys.exit(main())
