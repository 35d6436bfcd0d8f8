"""Figures keep their text legible on a phone (Jupyter Book 1 loads this through
`local_extensions` in _config.yml).

A figure shrinks with a narrow column, and its text with it. Each figure gets a
`min-width`: the width at which its smallest text is drawn at `MIN_TEXT` px. Where the
column is narrower, the figure keeps that width and scrolls sideways in its own box
(class `tnb-figure-scroll`, which `_static/layout.css` gives its scroll cue); where the
column is wide enough, nothing changes.

* A PNG figure's smallest text is the one `transformer_nb.book.plot.crisp_figures` recorded
  with it in the notebook (`smallest_text_pt`, points at 100 px an inch); the book names
  the image file by the SHA-256 of its bytes. Its link is wrapped in the scrolling box.
* An inline SVG picture's smallest text is its smallest `font-size`, in its own units;
  the HTML output around it is the scrolling box.
"""
import base64, hashlib, json, math, re
from pathlib import Path

MIN_TEXT = 9.0  # px: a phone's smallest figure text (tests/test_book_browser.py)
BOX = 'tnb-figure-scroll'
PNG_LINK = re.compile(
    r'<a class="reference internal image-reference" href="[^"]*">'
    r'<img [^>]*?src="[^"]*/(?P<name>[0-9a-f]{64}\.png)"[^>]*>\s*</a>'
)
SVG_OUTPUT = re.compile(
    r'<div class="output text_html">(?P<svg><svg [^>]*>.*?</svg>)', re.S
)
FONT_SIZE = re.compile(r'font-size(?:="|:\s*)(?P<size>\d+(?:\.\d+)?)')


def min_width(width: float, text_px: float) -> int:
    "The width (px) at which text of `text_px` px at `width` px is `MIN_TEXT` px tall."
    return min(math.ceil(width * MIN_TEXT / text_px), math.ceil(width))


def with_min_width(tag: str, px: int) -> str:
    """`tag` (an img or svg start tag) with a min-width, as a property the stylesheet
    reads (a dark page pads figures; the padding comes on top)."""
    if ' style="' in tag:
        return tag.replace(' style="', f' style="--tnb-min-width: {px}px; ', 1)
    return re.sub(r'^<(\w+) ', rf'<\1 style="--tnb-min-width: {px}px" ', tag)


def png_records(notebook: Path) -> dict:
    "{image file name: min-width in px} for the PNG outputs with a text record."
    out = {}
    for cell in json.loads(notebook.read_text(encoding='utf-8'))['cells']:
        for o in cell.get('outputs', []):
            png = o.get('data', {}).get('image/png')
            meta = o.get('metadata', {}).get('image/png', {})
            if png and meta.get('smallest_text_pt') and meta.get('width'):
                name = hashlib.sha256(base64.b64decode(png)).hexdigest() + '.png'
                px = meta['smallest_text_pt'] / 72 * 100  # points at 100 px an inch
                out[name] = min_width(meta['width'], px)
    return out


def png_figures(body: str, widths: dict) -> str:
    def box(m):
        if m['name'] not in widths: return m[0]
        link = re.sub(r'<img [^>]*>', lambda t: with_min_width(t[0], widths[m['name']]),
                      m[0], count=1)
        return f'<div class="{BOX}">{link}</div>'
    return PNG_LINK.sub(box, body)


def svg_figures(body: str) -> str:
    def box(m):
        svg = m['svg']
        start = re.match(r'<svg [^>]*>', svg)[0]
        width = re.search(r' width="(\d+(?:\.\d+)?)"', start)
        sizes = [float(s['size']) for s in FONT_SIZE.finditer(svg)]
        if not (width and sizes): return m[0]
        px = min_width(float(width[1]), min(sizes))
        return f'<div class="output text_html {BOX}">' + with_min_width(start, px) + \
            svg[len(start):]
    return SVG_OUTPUT.sub(box, body)


def phone_figures(app, pagename, templatename, context, doctree):
    "Give every figure of a notebook's page its min-width and its scrolling box."
    source = Path(app.env.doc2path(pagename)) if pagename in app.env.all_docs else None
    if 'body' not in context or source is None or source.suffix != '.ipynb':
        return
    context['body'] = svg_figures(png_figures(context['body'], png_records(source)))


def setup(app):
    app.connect('html-page-context', phone_figures)
    return {'parallel_read_safe': True, 'parallel_write_safe': True}
