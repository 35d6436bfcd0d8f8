"""The built book, opened in headless Chromium: every chapter page loads, its math is typeset, its figures exist,
and at 1280 px no code cell is wider than the content column (no line is cut off).

Needs `_build/html` (`make html` runs first in `make test`) and a Chromium binary (`make test` installs Debian's
`chromium` when it is missing). Screenshots of three pages go to `_build/screenshots/`.
"""
import html, os, re, shutil, subprocess, tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
HTML = ROOT / '_build' / 'html'
BROWSER = next((b for b in ('chromium', 'chromium-browser', 'google-chrome') if shutil.which(b)), None)
FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
         '--disable-component-update', '--disable-sync', '--virtual-time-budget=15000']
TOC_FILES = re.findall(r'(?:root|file):\s*(nbs/\S+)', (ROOT / '_toc.yml').read_text())
pytestmark = [pytest.mark.skipif(not HTML.exists(), reason='book not built: run `make html` first'),
              pytest.mark.skipif(BROWSER is None, reason='no Chromium: `apt-get install chromium`')]


def browse(page: Path, *args) -> str:
    with tempfile.TemporaryDirectory() as profile:
        r = subprocess.run([BROWSER, *FLAGS, f'--user-data-dir={profile}', *args, page.as_uri()],
                           capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    return r.stdout


def source_has_math(nb: str) -> bool:
    import json
    cells = json.loads((ROOT / f'{nb}.ipynb').read_text())['cells']
    return any('$' in ''.join(c['source']) for c in cells if c['cell_type'] == 'markdown')


@pytest.mark.parametrize('nb', TOC_FILES)
def test_page_loads_with_math_and_figures(nb):
    page = HTML / f'{nb}.html'
    assert page.exists(), f'{page} was not built'
    dom = browse(page, '--dump-dom')
    assert '<h1' in dom and 'Scaled dot-product attention' in dom, f'{nb}: page did not render its body and navigation'
    if source_has_math(nb):
        assert '<mjx-container' in dom, f'{nb}: the math was not typeset by MathJax'
        assert '<mjx-merror' not in dom, f'{nb}: MathJax reported a TeX error'
    for src in re.findall(r'<img[^>]+src="([^"]+)"', dom):
        src = html.unescape(src)
        if src.startswith(('http://', 'https://', 'data:')): continue  # badges; embedded images are checked by size below
        img = (page.parent / src.split('#')[0]).resolve()
        assert img.exists() and img.stat().st_size > 1000, f'{nb}: figure {src} is missing or empty'


def test_screenshots_of_three_pages():
    out = ROOT / '_build' / 'screenshots'; out.mkdir(exist_ok=True)
    for nb in ('nbs/00_index', 'nbs/01_attention', TOC_FILES[len(TOC_FILES) // 2]):
        shot = out / f'{Path(nb).name}.png'
        browse(HTML / f'{nb}.html', '--window-size=1400,2000', f'--screenshot={shot}')
        assert shot.exists() and shot.stat().st_size > 20_000, f'screenshot of {nb} is empty'


OVERFLOW_JS = '''<script>
window.addEventListener('load', () => setTimeout(() => {
  const cut = [...document.querySelectorAll('div.cell_input pre')]
    .filter(p => p.scrollWidth > p.clientWidth + 1)
    .map(p => (p.textContent.split('\\n').reduce((a, b) => b.length > a.length ? b : a, '')).slice(0, 100));
  document.body.setAttribute('data-code-overflow', JSON.stringify(cut));
}, 500));
</script>'''


@pytest.mark.parametrize('nb', TOC_FILES)
def test_code_fits_the_column_at_1280px(nb, tmp_path):
    "No code cell of the page scrolls sideways in a 1280-pixel window: every code line is on the page."
    import json
    page = HTML / f'{nb}.html'
    probe = page.with_name(f'_probe_{page.name}')  # next to the page, so its styles and scripts load
    probe.write_text(page.read_text().replace('</body>', OVERFLOW_JS + '</body>'))
    try: dom = browse(probe, '--window-size=1280,900', '--dump-dom')
    finally: probe.unlink()
    m = re.search(r'data-code-overflow="([^"]*)"', dom)
    assert m, f'{nb}: the overflow probe did not run'
    cut = json.loads(html.unescape(m.group(1)))
    assert not cut, f'{nb}: {len(cut)} code cells are wider than the column, e.g. {cut[0]!r}'
