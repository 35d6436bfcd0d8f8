"""The book's map and its reading times, counted from the notebooks themselves.

    python tools/reading_time.py            # write data/reading_times.json and the index's map
    python tools/reading_time.py --check    # exit 1, saying what, if either is out of date

A chapter's reading time is its prose at `WORDS_PER_MINUTE` plus the code its page shows at
`LINES_PER_MINUTE`, rounded to 5 minutes: the time of one careful read of the rendered page,
not of running the notebook. Prose is the markdown's words outside code, math and HTML (the
paper's quoted words count: a reader reads them); code is the non-blank lines of the code
cells the page shows (not tagged remove-cell or remove-input; collapsed cells count).

The map is the index's cell with id `book-map`: for every part of `_toc.yml`, each chapter's
title (linked), the one-line summary its first cell quotes, its reading time and its module;
above them, the time of the two routes, the first reading (the parts captioned "First
reading") and the whole book.
"""
import json, re, sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
INDEX, DATA = ROOT / 'nbs' / '00_index.ipynb', ROOT / 'data' / 'reading_times.json'
WORDS_PER_MINUTE, LINES_PER_MINUTE = 230, 30
MAP_ID = 'book-map'


def parts(toc: str) -> list:
    "(caption, [notebook stem, ...]) for every part of the table of contents."
    out = []
    for block in re.split(r'^\s*-\s*caption:\s*', toc, flags=re.M)[1:]:
        caption = block.splitlines()[0].strip().strip('"\'')
        out.append((caption, [Path(f).name for f in re.findall(r'^\s*-\s*file:\s*(\S+)', block, re.M)]))
    return out


def prose_words(md: str) -> int:
    md = re.sub(r'```(?!\{)[^\n]*\n.*?```', ' ', md, flags=re.S)  # code blocks; MyST directives stay
    md = re.sub(r'^\s*```\{[^}]*\}.*$|^\s*:[\w-]+:.*$|^\s*```\s*$', ' ', md, flags=re.M)
    md = re.sub(r'\$\$.*?\$\$', ' ', md, flags=re.S)
    md = re.sub(r'\$[^$\n]+\$|`[^`\n]*`|<[^>]+>', ' ', md)
    md = re.sub(r'\]\([^)]*\)', ']', md)
    return len(re.findall(r"[A-Za-z0-9][\w'’.-]*", md))


def chapter(stem: str) -> dict:
    "Title, summary, module, words, code lines and minutes of one notebook."
    nb = json.loads((ROOT / 'nbs' / f'{stem}.ipynb').read_text(encoding='utf-8'))
    first = ''.join(nb['cells'][0]['source'])
    title = re.match(r'# (.*)', first).group(1).strip()
    summary = re.search(r'^> (.*)$', first, re.M)
    words = lines = 0
    for c in nb['cells'][1:] if summary is None else nb['cells']:
        src = ''.join(c['source'])
        if c['cell_type'] == 'markdown':
            words += prose_words(src.replace(summary.group(0), '') if summary and c is nb['cells'][0] else src)
        elif c['cell_type'] == 'code' and not {'remove-cell', 'remove-input'} & set(c['metadata'].get('tags', [])):
            lines += sum(1 for l in src.splitlines() if l.strip())
    minutes = words / WORDS_PER_MINUTE + lines / LINES_PER_MINUTE
    return {'notebook': stem, 'title': title, 'summary': summary.group(1).strip() if summary else '',
            'module': nb['metadata'].get('nbdev', {}).get('default_exp', ''), 'words': words, 'code_lines': lines,
            'minutes': max(5, 5 * round(minutes / 5))}


def measure() -> dict:
    book = [{'part': caption, 'chapters': [chapter(s) for s in stems]}
            for caption, stems in parts((ROOT / '_toc.yml').read_text())]
    every = [c for p in book for c in p['chapters']]
    first = [c for p in book if p['part'].lower().startswith('first reading') for c in p['chapters']]
    total = lambda cs: {'chapters': len(cs), 'words': sum(c['words'] for c in cs),
                        'code_lines': sum(c['code_lines'] for c in cs), 'minutes': sum(c['minutes'] for c in cs)}
    return {'rates': {'words_per_minute': WORDS_PER_MINUTE, 'code_lines_per_minute': LINES_PER_MINUTE},
            'first_reading': total(first), 'whole_book': total(every), 'parts': book}


def hours(minutes: int) -> str:
    return f'{minutes // 60} h {minutes % 60:02d} min' if minutes >= 60 else f'{minutes} min'


def map_cell(m: dict) -> str:
    f, w = m['first_reading'], m['whole_book']
    out = ['## Map of the book', '',
           f"Reading times are for one careful pass over the rendered page, at {WORDS_PER_MINUTE} words and "
           f"{LINES_PER_MINUTE} lines of code a minute (written by `tools/reading_time.py`); running the "
           f"notebooks, and the exercises, take longer. **The first reading**: {f['chapters']} chapters, "
           f"about {hours(f['minutes'])}. **The whole book**: {w['chapters']} chapters, about "
           f"{hours(w['minutes'])}."]
    for p in m['parts']:
        out += ['', f"**{p['part']}**", '']
        for c in p['chapters']:
            module = f" `{c['module']}`." if c['module'] else ''
            out.append(f"* [{c['title']}]({c['notebook']}.ipynb), {c['minutes']} min.{module} {c['summary']}")
    return '\n'.join(out)


def index_with(text: str) -> dict:
    nb = json.loads(INDEX.read_text(encoding='utf-8'))
    cell = next(c for c in nb['cells'] if c.get('id') == MAP_ID)
    cell['source'] = text.splitlines(keepends=True)
    return nb


def main(argv: list) -> int:
    m = measure()
    data = json.dumps(m, indent=1, ensure_ascii=False) + '\n'
    nb = json.dumps(index_with(map_cell(m)), indent=1, ensure_ascii=False) + '\n'
    stale = [p.name for p, new in ((DATA, data), (INDEX, nb)) if not p.exists() or p.read_text(encoding='utf-8') != new]
    if '--check' in argv:
        if stale: print(f'out of date: {", ".join(stale)}; run python tools/reading_time.py')
        return int(bool(stale))
    DATA.write_text(data, encoding='utf-8')
    INDEX.write_text(nb, encoding='utf-8')
    print(f"first reading {hours(m['first_reading']['minutes'])}, whole book {hours(m['whole_book']['minutes'])}")
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
