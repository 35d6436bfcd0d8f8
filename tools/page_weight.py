"""The weight of each page of the built book, as a reader's browser first loads it: the page's HTML, and every
file of the book it asks for (style sheets, scripts, images, fonts named in the page), counted once; the chart
library (`vendor/vega*.min.js`, loaded by the first chart of a page) where the page has a chart. Files that other
pages use too (the theme, MathJax, the chart library) are cached once a reader has opened one of those pages; the
last column, the page's own, leaves them out: its HTML and its figures.

    python tools/page_weight.py            # a table, heaviest first (needs `make html`)
    python tools/page_weight.py --json     # the same as JSON

Sizes are bytes on disk, uncompressed; a server that compresses sends less (the gzip size of the HTML is shown)."""
import gzip, html, json, re, sys
from collections import Counter
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parents[1]
HTML = ROOT / '_build' / 'html'
TOC = re.findall(r'(?:root|file):\s*(nbs/\S+)', (ROOT / '_toc.yml').read_text())
REF = re.compile(r'<(?:script|img|link)\b[^>]*?\b(?:src|href)="([^"]+)"')
CHART_LIBS = ('vega.min.js', 'vega-lite.min.js', 'vega-embed.min.js')


def files_of(page: Path) -> set:
    "The book's own files a page names in its script, img and link tags."
    out = set()
    for ref in REF.findall(page.read_text(encoding='utf-8')):
        ref = html.unescape(ref)
        if urlsplit(ref).scheme or ref.startswith(('#', 'data:')):
            continue
        f = (page.parent / urlsplit(ref).path).resolve()
        if f.is_file():
            out.add(f)
    return out


def weigh(nb: str, shared: set) -> dict:
    page = HTML / f'{nb}.html'
    text = page.read_bytes()
    files = files_of(page)
    charts = text.count(b'class="tnb-chart"')
    if charts:
        files |= {HTML / 'vendor' / f for f in CHART_LIBS}
    total = len(text) + sum(f.stat().st_size for f in files)
    own = len(text) + sum(f.stat().st_size for f in files - shared)
    return {'page': nb, 'charts': charts, 'html': len(text), 'html_gzip': len(gzip.compress(text)),
            'first_visit': total, 'own': own}


def main(argv: list) -> int:
    if not HTML.is_dir():
        print('no built book: run `make html` first', file=sys.stderr)
        return 2
    seen = Counter(f for nb in TOC for f in files_of(HTML / f'{nb}.html'))
    shared = {f for f, n in seen.items() if n > 1} | {HTML / 'vendor' / f for f in CHART_LIBS}
    rows = sorted((weigh(nb, shared) for nb in TOC), key=lambda r: -r['first_visit'])
    if '--json' in argv:
        print(json.dumps(rows, indent=1))
        return 0
    mb = lambda n: f'{n / 1e6:6.2f} MB'
    print(f"{'page':28} {'charts':>6} {'HTML':>9} {'gzip':>9} {'first visit':>11} {'own':>9}")
    for r in rows:
        print(f"{r['page'][4:]:28} {r['charts']:6} {mb(r['html'])} {mb(r['html_gzip'])} {mb(r['first_visit']):>11}"
              f" {mb(r['own'])}")
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
