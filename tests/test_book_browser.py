"""The built book, opened in headless Chromium: every chapter page loads, its math is typeset, its figures exist,
at a window of 1280 px nothing on the page is wider than the content column, and at a phone's 390 px the page never
scrolls sideways and nothing is cut off (code, formulas and tables may scroll in their own boxes). One browser run
per page lays it out in two frames, one of each width.

The layout probe (`PROBE_JS`) measures, per page:

* `code`: code blocks (cell inputs, cell outputs, code fences) whose text is wider than their box (the line is cut
  off, scrolls sideways or spills out), or whose box reaches beyond the column;
* `formula`: display formulas (MathJax's `mjx-container[display]`) wider than the column, scrolling or cut off, and
  inline formulas (which cannot break across lines) cut off by the column;
* `table`: tables reaching beyond the column or cut off by a box that hides overflow (a table that scrolls inside
  its own box, within the column, is fine), and printed columns in a cell output (two lines or more of three
  columns or more, apart by two spaces or more) that wrap, which breaks their alignment;
* `figure`: output figures shown smaller than `MIN_SCALE` of their natural width (their text shrinks with them);
* `page`: the page itself wider than the window (something widened the content column);
* `boxes`: every display formula and output figure, whether it fits the column, and if
  not, why its box does not scroll visibly (a box that scrolls must show it:
  `test_what_does_not_fit_scrolls_and_shows_it`);
* `shown`: every output figure, its natural and shown widths (and an inline SVG's smallest text), from which
  `test_figure_text_is_legible_on_a_phone` computes how large its smallest text is drawn at 390 px.

Needs `_build/html` (`make html` runs first in `make test`) and a Chromium binary (`make test` installs Debian's
`chromium` when it is missing). `python tools/layout_report.py` prints the same counts for every page. Screenshots go
to `_build/screenshots/`.
"""
import base64, hashlib, html, importlib.util, json, re, shutil, subprocess, tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
HTML = ROOT / '_build' / 'html'
BROWSER = next((b for b in ('chromium', 'chromium-browser', 'google-chrome') if shutil.which(b)), None)
FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
         '--disable-component-update', '--disable-sync', '--virtual-time-budget=15000']
TOC_FILES = re.findall(r'(?:root|file):\s*(nbs/\S+)', (ROOT / '_toc.yml').read_text())
WINDOW = 1280  # px: the window the book is laid out for
PHONE = 390  # px: a phone's viewport (a frame of this width: a headless window is at least 500 px wide)
MIN_SCALE = 0.9  # an output figure shown below 90 % of its natural width has shrunk text
KINDS = ('code', 'formula', 'table', 'figure', 'page')
pytestmark = [pytest.mark.skipif(not HTML.exists(), reason='book not built: run `make html` first'),
              pytest.mark.skipif(BROWSER is None, reason='no Chromium: `apt-get install chromium`')]


def browse(page: Path, *args) -> str:
    with tempfile.TemporaryDirectory() as profile:
        r = subprocess.run([BROWSER, *FLAGS, f'--user-data-dir={profile}', *args, page.as_uri()],
                           capture_output=True, text=True, timeout=180)
    assert r.returncode == 0, r.stderr[-2000:]
    return r.stdout


def source_has_math(nb: str) -> bool:
    cells = json.loads((ROOT / f'{nb}.ipynb').read_text())['cells']
    return any('$' in ''.join(c['source']) for c in cells if c['cell_type'] == 'markdown')


# Runs once MathJax has typeset the page; writes {kind: [{where, why, text}]} into <body data-layout="...">.
PROBE_JS = r'''<script>
(() => {
const MIN_SCALE = %(min_scale)s;
function probe() {
  document.querySelectorAll('details').forEach(d => { d.open = true; });  // hidden cells count too
  const col = document.querySelector('article.bd-article') || document.body;
  const cs = getComputedStyle(col), cr = col.getBoundingClientRect();
  const left = cr.left + parseFloat(cs.paddingLeft), right = cr.right - parseFloat(cs.paddingRight);
  const out = {column: Math.round(right - left), code: [], formula: [], table: [], figure: [], page: [], shown: []};
  out.boxes = [];
  const tex = new Map();
  try { for (const m of MathJax.startup.document.math) tex.set(m.typesetRoot, m.math); } catch (e) {}
  const where = el => {
    const s = el.closest('section[id]');
    return s ? '#' + s.id : '(top)';
  };
  const longest = t => t.split('\n').reduce((a, b) => (b.length > a.length ? b : a), '').trim();
  const clip = t => (t.length > 90 ? t.slice(0, 90) + '...' : t);
  // Why `el` does not fit the column, or null. allowScroll: a box scrolling inside the column is fine.
  function misfit(el, allowScroll) {
    const b = el.getBoundingClientRect();
    if (!b.width) return null;
    const range = document.createRange(); range.selectNodeContents(el);
    const c = range.getBoundingClientRect();
    const cLeft = Math.min(c.left, b.left), cRight = Math.max(c.right, b.right);
    for (let a = el; a && a !== col; a = a.parentElement) {  // the innermost box that clips
      const ox = getComputedStyle(a).overflowX;
      if (ox === 'visible') continue;
      const box = a.getBoundingClientRect();
      if (box.right > right + 1) return `its box ends ${Math.round(box.right - right)} px beyond the column`;
      if (a.scrollWidth <= a.clientWidth + 1 || (cRight <= box.right + 1 && cLeft >= box.left - 1)) break;
      const scrolls = ox === 'auto' || ox === 'scroll';
      if (scrolls && allowScroll) return null;
      return `${scrolls ? 'scrolls sideways' : 'is cut off'}: ${a.scrollWidth} px of content in ${a.clientWidth} px`;
    }
    if (cRight > right + 1) return `${Math.round(cRight - right)} px beyond the column`;
    if (cLeft < left - 1) return `${Math.round(left - cLeft)} px left of the column`;
    return null;
  }
  for (const pre of col.querySelectorAll('pre')) {
    const kind = pre.closest('.cell_input') ? 'cell input' : pre.closest('.cell_output') ? 'cell output' : 'code fence';
    const why = misfit(pre, false);
    if (why) out.code.push({where: `${where(pre)} ${kind}`, why, text: clip(longest(pre.textContent))});
  }
  for (const m of col.querySelectorAll('mjx-container[display]')) {
    // the formula as drawn: the hidden MathML beside it (for screen readers) is clipped, not shown
    const why = misfit(m.querySelector('mjx-math') || m, false);
    if (why) out.formula.push({where: where(m), why, text: clip((tex.get(m) || m.textContent).replace(/\s+/g, ' ').trim())});
  }
  for (const pre of col.querySelectorAll('div.cell_output pre')) {
    // printed columns (two lines or more with three columns or more: two gaps of 2+ spaces between words)
    // must not wrap: a wrapped line breaks the alignment
    const lines = pre.textContent.replace(/\n$/, '').split('\n');
    const aligned = lines.filter(l => /\S {2,}\S.*\S {2,}\S/.test(l));
    if (aligned.length < 2) continue;
    const cs = getComputedStyle(pre), lh = parseFloat(cs.lineHeight) || 1.2 * parseFloat(cs.fontSize);
    const shown = Math.round((pre.clientHeight - parseFloat(cs.paddingTop) - parseFloat(cs.paddingBottom)) / lh);
    if (shown > lines.length)
      out.table.push({where: where(pre) + ' (printed columns)', why: `wraps: ${lines.length} lines shown as ${shown}`,
                      text: clip(aligned[0].trim())});
  }
  for (const m of col.querySelectorAll('mjx-container:not([display])')) {
    // an inline formula cannot break across lines: one wider than the column is cut off (or scrolls the page)
    if (m.closest('table, .cell_output')) continue;  // tables and outputs are measured whole
    const why = misfit(m.querySelector('mjx-math') || m, true);
    if (why) out.formula.push({where: where(m) + ' (inline)', why, text: clip((tex.get(m) || m.textContent).replace(/\s+/g, ' ').trim())});
  }
  for (const t of col.querySelectorAll('table')) {
    if (t.parentElement.closest('table')) continue;  // nested: its outer table is measured
    const why = misfit(t, true);
    const row = t.querySelector('tr');
    if (why) out.table.push({where: where(t), why, text: clip((row ? row.textContent : '').replace(/\s+/g, ' ').trim())});
  }
  const figures = [...col.querySelectorAll('.cell_output img, .cell_output svg[width], .cell_output canvas')];
  // a chart drawn on a canvas: the sizes of the text items of its scene
  const sceneFonts = c => {
    const chart = c.closest('[id^="tnb-chart-"]'), sizes = [];
    const walk = n => { if (n.marktype === 'text') n.items.forEach(t => sizes.push(t.fontSize || 11));
                        (n.items || []).forEach(walk); };
    if (chart && chart.view) walk(chart.view.scenegraph().root);
    return sizes;
  };
  for (const f of figures) {
    if (f.parentElement.closest('svg, button')) continue;  // icons of buttons (copy)
    // the width the figure asks for: a sharp PNG of twice the pixels asks for half of them
    const asked = f.getAttribute('width') || (f.style.width.endsWith('px') ? f.style.width : '');
    const tag = f.tagName.toLowerCase();
    const natural = tag === 'img' ? (parseFloat(asked) || f.naturalWidth)
      : tag === 'canvas' ? (parseFloat(f.style.width) || f.width) : f.width.baseVal.value;
    const shown = f.getBoundingClientRect().width;
    const fonts = tag === 'svg'  // an inline SVG's own text, in its units
      ? [...f.querySelectorAll('text')].map(t => parseFloat(getComputedStyle(t).fontSize))
      : tag === 'canvas' ? sceneFonts(f) : [];
    out.shown.push({src: f.getAttribute('src') || (tag === 'canvas' ? 'canvas' : ''), natural, shown,
                    svg_text: fonts.length ? Math.min(...fonts) : null});  // every figure, for its text
    if (natural && shown && shown / natural < MIN_SCALE)
      out.figure.push({where: where(f), why: `shown at ${Math.round(100 * shown / natural)} %% of its width`,
                       text: `${natural} px wide, shown ${Math.round(shown)} px`});
  }
  // Every display formula and figure: it fits the column, or it scrolls in a box of its
  // own within the column, whose content is wider than the box and which shows it (the
  // scroll cue of _static/layout.css: covers that scroll with the content, in the
  // colour below the box, over shadows that stay on its edges).
  const rgb = c => c.replace(/\s+/g, '');
  const clear = c => /^rgba\(.*,0\)$/.test(rgb(c)) || c === 'transparent';
  const below = el => {  // the colour the box is drawn on: its own, or the one behind
    for (let a = el; a; a = a.parentElement) {
      const c = getComputedStyle(a).backgroundColor;
      if (!clear(c)) return rgb(c);
    }
    return 'rgb(255,255,255)';
  };
  function cue(box) {  // why the box's scroll cue is missing or wrong, or null
    const s = getComputedStyle(box);
    const layers = s.backgroundAttachment.split(',').map(x => x.trim());
    if (!layers.includes('local') || !layers.includes('scroll')) return 'no scroll cue';
    const cover = rgb((s.backgroundImage.match(/rgba?\([^)]*\)/) || ['none'])[0]);
    if (cover === below(box)) return null;
    return `its scroll cue's covers are ${cover} on ${below(box)}`;
  }
  function box(el, what, text, ink) {  // ink: the element whose width is the content's
    let b = el;  // the innermost box that clips (a figure's own clips its picture)
    const first = what === 'figure' ? el.parentElement : el;
    for (let a = first; a && a !== col; a = a.parentElement)
      if (getComputedStyle(a).overflowX !== 'visible') { b = a; break; }
    const width = ink.getBoundingClientRect().width, r = b.getBoundingClientRect();
    const scrolls = b.scrollWidth > b.clientWidth + 1;
    const fits = width <= right - left + 1 && !scrolls;
    const ox = getComputedStyle(b).overflowX;
    const opaque = ink.tagName.toLowerCase() === 'img'
      && getComputedStyle(ink).mixBlendMode !== 'multiply';
    let why = what === 'formula' ? cue(b) : null;  // a wrong cover shows where it fits
    if (r.right > right + 1 || r.left < left - 1)
      why = `its box reaches ${Math.round(r.right - right)} px beyond the column`;
    else if (!fits && !scrolls)
      why = `is cut off: ${Math.round(width)} px in ${b.clientWidth} px`;
    else if (!fits && ox !== 'auto' && ox !== 'scroll')
      why = `is cut off: ${b.scrollWidth} px of content in ${b.clientWidth} px`;
    else if (!fits)
      why = why || cue(b) || (opaque ? "the opaque figure hides its box's cue" : null);
    out.boxes.push({what, where: where(el), text, fits, width: Math.round(width),
                    content: b.scrollWidth, box: b.clientWidth, why});
  }
  for (const m of col.querySelectorAll('mjx-container[display]')) {
    const text = clip((tex.get(m) || m.textContent).replace(/\s+/g, ' ').trim());
    box(m, 'formula', text, m.querySelector('mjx-math') || m);
  }
  for (const f of figures) {
    if (f.parentElement.closest('svg, button')) continue;
    const src = f.getAttribute('src');
    const name = f.tagName.toLowerCase() === 'canvas' ? 'a canvas chart' : 'an SVG picture';
    box(f, 'figure', src ? src.split('/').pop().slice(0, 12) : name, f);
  }
  const page = document.documentElement.scrollWidth;
  if (page > window.innerWidth + 1)
    out.page.push({where: '(page)', why: `the page is ${page} px wide in a window of ${window.innerWidth} px`, text: ''});
  document.body.setAttribute('data-layout', JSON.stringify(out));
}
window.addEventListener('load', () => {
  const ready = (window.MathJax && MathJax.startup && MathJax.startup.promise) || Promise.resolve();
  ready.then(() => setTimeout(probe, 300), () => setTimeout(probe, 300));
});
})();
</script>''' % {'min_scale': MIN_SCALE}


# Lays the probed page out in one frame per width, each a true viewport of that width (a headless window is at least
# 500 px wide), and copies what each frame's probe found, and the first frame's page, into its own <body>.
FRAMES_HTML = r'''<!DOCTYPE html><html><body style="margin: 0">%(frames)s<script>
const frames = [...document.querySelectorAll('iframe')];
const poll = setInterval(() => {
  const found = frames.map(f => { try { return f.contentDocument.body.getAttribute('data-layout'); }
                                  catch (e) { return null; } });
  if (!found.every(x => x)) return;
  clearInterval(poll);
  document.body.setAttribute('data-layouts', '[' + found.join(',') + ']');
  document.body.setAttribute('data-page', frames[0].contentDocument.documentElement.outerHTML);
}, 200);
</script></body></html>'''
FRAME = '<iframe src="%s" scrolling="no" style="display: block; border: 0; width: %dpx; height: 900px"></iframe>'


def layouts(page: Path, widths: tuple = (WINDOW, PHONE)) -> dict:
    """{width: what `layout` finds at that width} from one browser run, each width a frame of exactly that many px; each layout
    also holds 'dom', the page as rendered in the first frame."""
    probe = page.with_name(f'_probe_{page.name}')  # next to the page, so its styles and scripts load
    frames = page.with_name(f'_frames_{page.name}')
    probe.write_text(page.read_text().replace('</body>', PROBE_JS + '</body>'))
    frames.write_text(FRAMES_HTML % {'frames': ''.join(FRAME % (probe.name, w) for w in widths)})
    try: dom = browse(frames, '--allow-file-access-from-files', f'--window-size={max(widths)},900', '--dump-dom')
    finally: probe.unlink(); frames.unlink()
    m, p = re.search(r'data-layouts="([^"]*)"', dom), re.search(r'data-page="([^"]*)"', dom)
    assert m and p, f'{page.name}: the layout probe did not run in every frame'
    page_dom = html.unescape(p.group(1))
    return {w: {**found, 'dom': page_dom} for w, found in zip(widths, json.loads(html.unescape(m.group(1))))}


def layout(page: Path, width: int = WINDOW) -> dict:
    """{kind: [{'where', 'why', 'text'}]} of the elements of a built page that do not fit its column at a viewport
    `width` px wide, 'column': the column's width in px, and 'dom': the page as the browser rendered it."""
    return layouts(page, (width,))[width]


def describe(items: list, n: int = 3) -> str:
    return '; '.join(f"{i['where']} {i['why']}: {i['text']!r}" for i in items[:n]) + \
           (f' (and {len(items) - n} more)' if len(items) > n else '')


_LAYOUTS = {}


def page_layout(nb: str, width: int = WINDOW) -> dict:
    "The probe's answer for a chapter at `width` px, measured at both widths once per test session."
    if nb not in _LAYOUTS:
        page = HTML / f'{nb}.html'
        assert page.exists(), f'{page} was not built'
        _LAYOUTS[nb] = layouts(page)
    return _LAYOUTS[nb][width]


@pytest.mark.parametrize('nb', TOC_FILES)
def test_page_loads_with_math_and_figures(nb):
    page = HTML / f'{nb}.html'
    dom = page_layout(nb)['dom']  # the page as rendered at 1280 px (one browser run serves both tests)
    assert '<h1' in dom and 'Scaled dot-product attention' in dom, f'{nb}: page did not render its body and navigation'
    if source_has_math(nb):
        assert '<mjx-container' in dom, f'{nb}: the math was not typeset by MathJax'
        assert '<mjx-merror' not in dom, f'{nb}: MathJax reported a TeX error'
    for src in re.findall(r'<img[^>]+src="([^"]+)"', dom):
        src = html.unescape(src)
        if src.startswith(('http://', 'https://', 'data:')) or src.endswith('/colab-badge.svg'):
            continue  # the Colab badge (a small SVG the book serves); embedded images are checked by size below
        img = (page.parent / src.split('#')[0]).resolve()
        assert img.exists() and img.stat().st_size > 1000, f'{nb}: figure {src} is missing or empty'


SCREENSHOTS = ('nbs/00_index', 'nbs/01_attention', 'nbs/02_multihead', 'nbs/13_kv_cache', 'nbs/99a_diagrams')


def test_screenshots():
    "Pages at the 1280-px window the book is laid out for, to look at: `_build/screenshots/`."
    out = ROOT / '_build' / 'screenshots'; out.mkdir(exist_ok=True)
    for nb in [n for n in SCREENSHOTS if n in TOC_FILES] + [TOC_FILES[len(TOC_FILES) // 2]]:
        shot = out / f'{Path(nb).name}.png'
        browse(HTML / f'{nb}.html', f'--window-size={WINDOW},2400', '--hide-scrollbars', f'--screenshot={shot}')
        assert shot.exists() and shot.stat().st_size > 20_000, f'screenshot of {nb} is empty'


@pytest.mark.parametrize('kind', KINDS)
@pytest.mark.parametrize('nb', TOC_FILES)
def test_fits_the_column_at_1280px(nb, kind):
    """Nothing of the page is wider than the content column at 1280 px: code blocks, display formulas, tables
    (unless they scroll in their own box), figures shown at their own size, the page no wider than the window."""
    bad = page_layout(nb)[kind]
    what = {'code': 'code blocks do not fit', 'formula': 'display formulas do not fit',
            'table': 'tables do not fit', 'figure': f'figures are shrunk below {MIN_SCALE:.0%}',
            'page': 'page is too wide'}[kind]
    assert not bad, f'{nb}: {len(bad)} {what}: {describe(bad)}'


def cut_off(items: list) -> list:
    "The items that do not fit a phone's column: all but those that scroll in their own box, which is fine there."
    return [i for i in items if not i['why'].startswith('scrolls sideways')]


@pytest.mark.parametrize('nb', TOC_FILES)
def test_the_page_never_scrolls_sideways_on_a_phone(nb):
    """At a phone's width the column narrows: code blocks, formulas and tables scroll in their own boxes and figures
    scale down, but nothing makes the page itself wider than the window (a long name in inline code breaks), and
    nothing is cut off or reaches beyond the column."""
    found = page_layout(nb, PHONE)
    assert not found['page'], f'{nb}: {describe(found["page"])}'
    cut = [i for k in ('code', 'formula', 'table') for i in cut_off(found[k])]
    assert not cut, f'{nb} at {PHONE} px: {describe(cut)}'


def scrolling(found: dict) -> list:
    "The display formulas and figures of a probed page that scroll in their own box."
    return [b for b in found['boxes'] if not b['fits']]


@pytest.mark.parametrize('width', (PHONE, WINDOW))
@pytest.mark.parametrize('nb', TOC_FILES)
def test_what_does_not_fit_scrolls_and_shows_it(nb, width):
    """Every display formula and figure fits the column, or scrolls sideways in a box of
    its own within the column, whose content is wider than the box and which shows that
    it scrolls (the scroll cue: a shadow on each edge beyond which more lies, where a
    phone shows no scroll bar); an opaque figure lets the cue through. The formulas and
    figures that scroll are printed (`pytest -rP`)."""
    found = page_layout(nb, width)
    for b in scrolling(found):
        print(f"{nb} at {width} px: {b['what']} {b['where']}: {b['width']} px wide, "
              f"{b['content']} px in a box of {b['box']} px: {b['text']}")
    bad = [b for b in found['boxes'] if b['why']]
    assert not bad, f'{nb} at {width} px: ' + '; '.join(
        f"{b['what']} {b['where']} {b['why']}: {b['text']!r}" for b in bad[:3])


MIN_PHONE_TEXT = 9.0  # px: the smallest figure text a phone may draw


def test_figures_are_sized_for_this_threshold():
    "The book's hook sizes figures for the same smallest text this test asks for."
    path = ROOT / '_ext' / 'phone_figures.py'
    spec = importlib.util.spec_from_file_location('phone_figures', path)
    hook = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hook)
    assert hook.MIN_TEXT == MIN_PHONE_TEXT, f'_ext/phone_figures.py sizes figures ' \
        f'for {hook.MIN_TEXT} px; this test asks for {MIN_PHONE_TEXT} px'


def recorded_text_sizes(nb: str) -> dict:
    """{image file of the built book: smallest text in points at 100 px an inch (None: no text, or no record)} for
    every PNG figure a notebook stores. `plot.crisp_figures` records the size in the output's metadata; the book
    names an image file by the SHA-256 of its bytes."""
    out = {}
    for c in json.loads((ROOT / f'{nb}.ipynb').read_text())['cells']:
        for o in c.get('outputs', []):
            png = o.get('data', {}).get('image/png')
            if png:
                meta = o.get('metadata', {}).get('image/png', {})
                name = hashlib.sha256(base64.b64decode(png)).hexdigest() + '.png'
                out[name] = meta.get('smallest_text_pt')
    return out


def test_phone_column_is_the_one_figures_are_sized_for():
    "The column measured at 390 px is `plot.PHONE_COLUMN`, the width the figures' text sizes are chosen for."
    from transformer_nb.book.plot import PHONE_COLUMN
    column = page_layout('nbs/01_attention', PHONE)['column']
    assert abs(column - PHONE_COLUMN) <= 1, f'the column is {column} px at {PHONE} px; plot.PHONE_COLUMN says {PHONE_COLUMN}'


def figure_text(nb: str, shown: list) -> list:
    """The figures of a page whose smallest text is drawn under `MIN_PHONE_TEXT` px, from the probe's `shown` list at
    one width. A PNG's text size is the one recorded with it in the notebook (that every figure has its record is
    `tests/test_notebooks.py`'s check); an inline SVG's is read from its text elements, a canvas chart's from the
    text items of its scene."""
    records, small = recorded_text_sizes(nb), []
    for f in shown:
        if not f['natural']: continue
        scale = min(1.0, f['shown'] / f['natural'])
        if f['src'] == 'canvas':  # a chart on a canvas: the text of its scene
            assert f['svg_text'] is not None, f'{nb}: a canvas chart was not drawn in time to be measured'
            px, what = f['svg_text'] * scale, 'a canvas chart'
        elif f['svg_text'] is not None:
            px, what = f['svg_text'] * scale, 'an SVG picture'
        else:
            name = f['src'].rsplit('/', 1)[-1]
            assert name in records, f'{nb}: figure {name} is not an output of the notebook'
            pt = records[name]
            if pt is None: continue  # no text, or no record
            px, what = pt / 72 * 100 * scale, name[:12]
        if px < MIN_PHONE_TEXT - 1e-6:
            small.append(f'{what}: text drawn at {px:.1f} px ({100 * scale:.0f} % of its size)')
    return small


@pytest.mark.parametrize('nb', TOC_FILES)
def test_figure_text_is_legible_on_a_phone(nb):
    """At 390 px the figures shrink with the column, down to the width at which their
    smallest text is drawn at `MIN_PHONE_TEXT` px (_ext/phone_figures.py), and scroll in
    their box below it."""
    small = figure_text(nb, page_layout(nb, PHONE)['shown'])
    assert not small, f'{nb} at {PHONE} px: ' + '; '.join(small)


BAD_PAGE = r'''
<section id="wide-things"><h2>Wide things</h2>
<pre id="wide-code">x = 1  # {code}</pre>
<div class="math notranslate nohighlight">\[{formula}\]</div>
<p>Inline: <span class="math notranslate nohighlight">\({formula}\)</span></p>
<div style="overflow: hidden"><table><tr>{cells}</tr></table></div>
<div style="overflow-x: auto"><table><tr>{cells}</tr></table></div>
<div class="cell_output"><img src="{img}" style="width: 50%"></div>
<style>#no-cue mjx-container {{ background: none !important; }}</style>
<div id="no-cue"><div class="math notranslate nohighlight">\[y = {formula}\]</div></div>
<div class="cell_output"><img src="{img}" style="min-width: 2000px"></div>
</section>'''


def test_the_probe_can_fail():
    "On a page made wide on purpose, the probe reports each kind of overflow, and the scrolling table passes."
    page = HTML / 'nbs' / '01_attention.html'
    img = next((HTML / '_images').glob('*.png'))
    wide = BAD_PAGE.format(code='z' * 200, formula=' + '.join(f'x_{{{i}}}^{{{i}}}' for i in range(60)),
                           cells='<td>cell&nbsp;number&nbsp;one</td>' * 40, img=f'../_images/{img.name}')
    test = page.with_name('_wide_test.html')
    text = page.read_text()
    test.write_text(text.replace('<article class="bd-article">', '<article class="bd-article">' + wide, 1))
    try: found = layout(test)
    finally: test.unlink()
    assert any('zzzz' in i['text'] for i in found['code']), found['code']
    assert any(i['where'] == '#wide-things' and 'x_{0}' in i['text'] for i in found['formula']), found['formula']
    assert any(i['where'] == '#wide-things (inline)' for i in found['formula']), found['formula']
    tables = [i for i in found['table'] if i['where'] == '#wide-things']
    assert len(tables) == 1 and 'cut off' in tables[0]['why'], found['table']
    assert any(i['where'] == '#wide-things' for i in found['figure']), found['figure']
    here = [b for b in found['boxes'] if b['where'] == '#wide-things']
    formulas = [b for b in here if b['what'] == 'formula']
    # the first scrolls in its box, with its cue; the second has none
    assert [b['why'] for b in formulas] == [None, 'no scroll cue'], formulas
    assert not formulas[0]['fits'] and formulas[0]['content'] > formulas[0]['box']
    wide = [b for b in here if b['what'] == 'figure'][-1]  # too wide, and in no box
    assert wide['why'] and 'beyond the column' in wide['why'], wide
    half = [f for f in found['shown'] if f['src'].endswith(img.name) and f['shown'] < 0.6 * f['natural']]
    assert half, found['shown']  # the figure's scale, from which its text's drawn size follows
    assert 600 < found['column'] < 800, found['column']



LINKS_JS = r"""<script>
window.addEventListener('load', () => setTimeout(() => {
  const links = [...document.querySelectorAll('.cell_output svg a')];
  const reached = links.filter(a => {  // the element a click at the centre of the link's box reaches
    a.scrollIntoView({block: 'center'});
    const b = a.querySelector('.box').getBoundingClientRect();
    const top = document.elementFromPoint(b.left + b.width / 2, b.top + Math.min(b.height / 2, 6));
    return top !== null && top.closest('a') === a;
  });
  document.body.setAttribute('data-links', JSON.stringify([links.length, reached.length]));
  if (CLICK) {
    const a = links.find(a => a.getAttribute('href') === '02_multihead.html');
    setTimeout(() => a.dispatchEvent(new MouseEvent('click', {bubbles: true, cancelable: true})), 100);
  }
}, 500));
</script>"""


def figure1_probe(click: bool) -> str:
    page = HTML / 'nbs' / '99a_diagrams.html'
    probe = page.with_name('_links_99a_diagrams.html')
    probe.write_text(page.read_text().replace('</body>', LINKS_JS.replace('CLICK', str(click).lower()) + '</body>'))
    try: return browse(probe, f'--window-size={WINDOW},900', '--dump-dom')
    finally: probe.unlink()


def test_figure1_boxes_are_links_on_the_page():
    "Every box of Figure 1 (appendix 99a) is a link a click reaches, and a click opens the chapter."
    if 'nbs/99a_diagrams' not in TOC_FILES: pytest.skip('the diagrams appendix is not in the book')
    m = re.search(r'data-links="([^"]*)"', figure1_probe(click=False))
    assert m, 'the link probe did not run'
    links, reached = json.loads(html.unescape(m.group(1)))
    assert links >= 18 and reached == links, f'{links} links in Figure 1, {reached} reached by a click'
    opened = figure1_probe(click=True)  # the dump is of the page the click opened
    assert re.search(r'<h1[^>]*>Multi-head attention', opened), 'a click on a box did not open chapter 2'
