"""Internal links of the built book: every relative link and image points at a file of the build, and every
`page.html#anchor` at an element with that id. External links are left alone (the check must work offline).

Needs `_build/html` (`make html` runs first in `make test`).
"""
import functools, html.parser, re
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

ROOT = Path(__file__).resolve().parents[1]
HTML = ROOT / '_build' / 'html'
pytestmark = pytest.mark.skipif(not HTML.exists(), reason='book not built: run `make html` first')
TOC_PAGES = [Path(p).with_suffix('.html') for p in re.findall(r'(?:root|file):\s*(nbs/\S+)', (ROOT / '_toc.yml').read_text())]


class Page(html.parser.HTMLParser):
    "The links (href, src) and the element ids of one HTML page."
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.links, self.ids = [], set()

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if a.get('id'): self.ids.add(a['id'])
        if tag == 'a' and a.get('name'): self.ids.add(a['name'])
        for key in ('href', 'src'):
            if a.get(key) and tag in ('a', 'img', 'link', 'script'): self.links.append(a[key])


@functools.lru_cache(maxsize=None)
def parse(path: Path) -> Page:
    "One page's links and ids, parsed once for all the tests (a page links to many others)."
    p = Page(); p.feed(path.read_text(encoding='utf-8')); return p


def internal(link: str) -> bool:
    u = urlsplit(link)
    return not (u.scheme or u.netloc or link.startswith(('mailto:', 'javascript:', 'data:')))


def test_every_chapter_page_was_built():
    missing = [str(p) for p in TOC_PAGES if not (HTML / p).exists()]
    assert not missing, f'pages of _toc.yml missing from the build: {missing}'


@pytest.mark.parametrize('page', TOC_PAGES, ids=str)
def test_internal_links_resolve(page):
    path = HTML / page
    broken, checked = [], 0
    for link in parse(path).links:
        if not internal(link): continue
        u = urlsplit(link)
        target = path if not u.path else (path.parent / unquote(u.path)).resolve()
        if target.is_dir(): target = target / 'index.html'
        checked += 1
        if not target.exists():
            broken.append(f'{link} (no file {target.relative_to(HTML) if HTML in target.parents else target})'); continue
        if u.fragment and target.suffix == '.html':
            ids = parse(target).ids
            if unquote(u.fragment) not in ids: broken.append(f'{link} (no id {u.fragment!r} in {target.name})')
    assert checked > 0, f'no internal links found in {page}'
    assert not broken, f'{page}: broken internal links:\n' + '\n'.join(broken)


def test_chapters_link_to_each_other():
    "The chapters are cross-referenced: most pages link to at least one other chapter page (besides the navigation)."
    names = {p.name for p in TOC_PAGES}
    linked = 0
    for page in TOC_PAGES:
        body = (HTML / page).read_text(encoding='utf-8')
        main = body.split('<main', 1)[-1].split('</main>', 1)[0]  # the article, not the sidebar
        hrefs = {urlsplit(h).path.rsplit('/', 1)[-1] for h in re.findall(r'href="([^"]+)"', main)}
        linked += bool((hrefs & names) - {page.name})
    assert linked >= len(TOC_PAGES) - 2, f'only {linked} of {len(TOC_PAGES)} chapter pages link to another chapter'


def test_page_weights_count_the_chart_library_once_per_charted_page():
    "tools/page_weight.py: every page weighed; a page with a chart carries the chart library, one without does not."
    import importlib.util
    spec = importlib.util.spec_from_file_location('page_weight', ROOT / 'tools' / 'page_weight.py')
    pw = importlib.util.module_from_spec(spec); spec.loader.exec_module(pw)
    library = sum((HTML / 'vendor' / f).stat().st_size for f in pw.CHART_LIBS)
    rows = {nb: pw.weigh(nb, set()) for nb in ('nbs/04_positional', 'nbs/03_feedforward')}
    assert rows['nbs/04_positional']['charts'] == 1 and rows['nbs/03_feedforward']['charts'] == 0
    for nb, r in rows.items():
        plain = r['html'] + sum(f.stat().st_size for f in pw.files_of(HTML / f'{nb}.html'))
        assert r['first_visit'] == plain + (library if r['charts'] else 0), nb
        assert r['first_visit'] == r['own'] > r['html'] > r['html_gzip'] > 0  # nothing shared given
