"""Wrap what a formatter leaves too long in notebook code cells: string literals and comments.

    python tools/wrap_long_lines.py --comments-only nbs/*.ipynb && ruff format nbs/*.ipynb
    python tools/wrap_long_lines.py nbs/*.ipynb && ruff format nbs/*.ipynb

A formatter (`ruff format`, configured in ruff.toml) wraps code but never cuts a string, so long messages,
docstrings and f-strings stay long. This script cuts such a string at spaces into literals that Python joins
at compile time ('ab' 'cd' is 'abcd'), each on its own line, aligned under the first; a string outside any
brackets is wrapped in parentheses first. A one-line docstring becomes a triple-quoted one wrapped at
spaces (a formatter would join the pieces of a cut docstring back into one line). Spaces inside an f-string's replacement fields are never cut. A comment that runs past the limit is wrapped
onto comment lines of its own; a trailing one moves above its line first (nbdev's docments reads a
parameter's comment from the lines just above it, too).
The code means the same afterwards: every changed cell's AST is compared with the original's (after
normalising the joined literals), and a cell whose AST would change is left as it was and reported.
"""
import argparse, ast, io, json, re, sys, textwrap, tokenize
from pathlib import Path

PREFIX = re.compile(r"^([rRbBfFuU]{0,2})('|\")")


def cut_points(body: str, is_f: bool) -> list:
    "Indices just after a space where the literal may be cut (outside f-string fields, not inside escapes)."
    out, depth, i = [], 0, 0
    while i < len(body):
        ch = body[i]
        if ch == '\\': i += 2; continue
        if is_f and ch in '{}':
            if body[i:i + 2] in ('{{', '}}') and depth == 0: i += 2; continue
            depth += 1 if ch == '{' else -1
        elif ch == ' ' and depth == 0 and i + 1 < len(body): out.append(i + 1)
        i += 1
    return out


def split_literal(tok: str, first_room: int, room: int) -> list | None:
    "The literal as several literals: the first fits first_room columns, the others room; None if it cannot."
    m = PREFIX.match(tok)
    if not m or tok[m.end():m.end() + 2] == m.group(2) * 2: return None  # no prefix match, or triple-quoted
    prefix, q = m.group(1), m.group(2)
    body = tok[len(prefix) + 1:-1]
    is_f = 'f' in prefix.lower()
    cuts = cut_points(body, is_f)
    pieces, start, limit = [], 0, first_room
    while len(prefix) + 2 + len(body) - start > limit:
        fits = [c for c in cuts if c > start and len(prefix) + 2 + c - start <= limit]
        if not fits: return None
        pieces.append(body[start:fits[-1]]); start = fits[-1]; limit = room
    pieces.append(body[start:])
    if len(pieces) < 2: return None
    def lit(s):  # an f-prefix only where the piece has a field
        p = prefix if not is_f or '{' in s else prefix.replace('f', '').replace('F', '')
        return f'{p}{q}{s}{q}'
    return [lit(s) for s in pieces]


def wrap_line(lines: list, i: int, width: int, toks) -> bool:
    "Cut the longest string token on line i (0-based) if the line is too long; True if changed."
    line = lines[i]
    cands = [t for t in toks if t.type == tokenize.STRING and t.start[0] == i + 1 and t.end[0] == i + 1]
    if not cands: return False
    t = max(cands, key=lambda t: len(t.string))
    col, end = t.start[1], t.end[1]
    depth = paren_depth(toks, t)
    before, after = line[:col], line[end:]
    if depth == 0:  # not inside brackets: add them
        before, after, col = before + '(', ')' + after, col + 1
    indent = ' ' * col
    pieces = split_literal(t.string, width - col, width - col - len(after.rstrip()))
    if pieces is None: return False
    out = [before + pieces[0]] + [indent + p for p in pieces[1:]]
    out[-1] += after
    lines[i:i + 1] = out
    return True


def wrap_comment(lines: list, i: int, width: int, toks) -> bool:
    "Wrap the comment of line i onto comment lines (above the code, if it trails some); True if changed."
    com = [t for t in toks if t.type == tokenize.COMMENT and t.start[0] == i + 1]
    if not com: return False
    t, line = com[0], lines[i]
    code = line[:t.start[1]].rstrip()
    indent = line[:len(line) - len(line.lstrip())]
    text = t.string.lstrip('#').strip()
    wrapped = textwrap.wrap(text, width - len(indent) - 2, break_long_words=False,
                            break_on_hyphens=False)
    if not wrapped: return False
    out = [f'{indent}# {w}' for w in wrapped]
    if code.strip(): out.append(code)
    if out == [line] or any(len(l) > width for l in out[:-1] if l.lstrip().startswith('#')) and len(out) == 2:
        return False
    lines[i:i + 1] = out
    return True


def paren_depth(toks, target) -> int:
    depth = 0
    for t in toks:
        if t is target: return depth
        if t.type == tokenize.OP and t.string in '([{': depth += 1
        elif t.type == tokenize.OP and t.string in ')]}': depth -= 1
    return depth


def normal(src: str):
    "The cell's AST with joined f-string parts normalised, or None if it does not parse (IPython syntax)."
    try: tree = ast.parse(src)
    except SyntaxError: return None
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.body:
            d = node.body[0]  # a wrapped docstring: the same words, other whitespace
            if isinstance(d, ast.Expr) and isinstance(d.value, ast.Constant) and isinstance(d.value.value, str):
                d.value.value = ' '.join(d.value.value.split())
        if isinstance(node, ast.JoinedStr):  # merge adjacent constant parts
            vals = []
            for v in node.values:
                if vals and isinstance(v, ast.Constant) and isinstance(vals[-1], ast.Constant):
                    vals[-1] = ast.Constant(vals[-1].value + v.value)
                else: vals.append(v)
            node.values = vals
    return ast.dump(tree)


def tokens(lines: list):
    try: return list(tokenize.generate_tokens(io.StringIO('\n'.join(lines)).readline))
    except (tokenize.TokenError, IndentationError, SyntaxError): return None


def docstring_lines(src: str) -> dict:
    "Line number (0-based) -> docstring node, for one-line docstrings of functions and classes."
    try: tree = ast.parse(src)
    except SyntaxError: return {}
    out = {}
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.body:
            d = node.body[0]
            if (isinstance(d, ast.Expr) and isinstance(d.value, ast.Constant)
                    and isinstance(d.value.value, str) and d.lineno == d.end_lineno):
                out[d.lineno - 1] = d
    return out


def wrap_docstring(lines: list, i: int, width: int, node) -> bool:
    "A one-line docstring that is too long, as a triple-quoted one wrapped at spaces."
    line = lines[i]
    indent = line[:len(line) - len(line.lstrip())]
    m = PREFIX.match(line.strip())
    tok = line.strip()
    if not m or '"""' in tok or tok[m.end():m.end() + 2] == m.group(2) * 2: return False
    prefix, body = m.group(1), tok[len(m.group(1)) + 1:-1]
    if 'f' in prefix.lower() or '\\' in body: return False
    wrapped = textwrap.wrap(body, width - len(indent) - 3, break_long_words=False,
                            break_on_hyphens=False)
    out = [f'{indent}{prefix}"""{wrapped[0]}'] + [indent + w for w in wrapped[1:]]
    if len(out[-1]) + 3 <= width: out[-1] += '"""'
    else: out.append(indent + '"""')
    lines[i:i + 1] = out
    return True


def wrap_source(src: str, width: int, comments_only: bool = False) -> str:
    "Cut docstrings, strings, then comments, one line at a time, until nothing cuttable is too long."
    lines, stuck = src.split('\n'), set()
    if comments_only:  # before the formatter, which would fold a trailing comment into brackets
        for _ in range(500):
            long = [i for i, l in enumerate(lines) if len(l) > width and l not in stuck]
            toks = tokens(lines) if long else None
            if toks is None: break
            if not wrap_comment(lines, long[0], width, toks): stuck.add(lines[long[0]])
        return '\n'.join(lines)
    for _ in range(50):  # docstrings first: their line numbers come from the AST
        docs = {i: d for i, d in docstring_lines('\n'.join(lines)).items() if len(lines[i]) > width}
        if not docs or not wrap_docstring(lines, min(docs), width, docs[min(docs)]): break
    for _ in range(500):
        long = [i for i, l in enumerate(lines) if len(l) > width and l not in stuck]
        if not long: break
        toks = tokens(lines)
        if toks is None: break
        i = long[0]
        if not (wrap_line(lines, i, width, toks) or wrap_comment(lines, i, width, toks)):
            stuck.add(lines[i])
    return '\n'.join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('notebooks', nargs='+', type=Path)
    ap.add_argument('--width', type=int, default=88)
    ap.add_argument('--comments-only', action='store_true',
                    help='only move and wrap comments (run before the formatter)')
    args = ap.parse_args(argv)
    for p in args.notebooks:
        nb, changed = json.loads(p.read_text()), 0
        for c in nb['cells']:
            if c['cell_type'] != 'code': continue
            src = ''.join(c['source'])
            if not any(len(l) > args.width for l in src.split('\n')): continue
            new = wrap_source(src, args.width, args.comments_only)
            if new == src: continue
            if normal(new) != normal(src):
                print(f'{p}: cell {c.get("id")}: the AST would change; left as it was', file=sys.stderr)
                continue
            c['source'] = new.splitlines(True); changed += 1
        if changed:
            p.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + '\n')
            print(f'{p}: {changed} cells')
    return 0


if __name__ == '__main__':
    sys.exit(main())
