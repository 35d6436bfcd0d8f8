"""The built book checked by axe-core (the accessibility engine of browsers' developer tools): every page of
`_toc.yml`, served from 127.0.0.1 and opened in headless Chromium with every request to another host blocked, has
no violation of impact `serious` or `critical` under axe's default rules (WCAG 2 A and AA, and best practices). The
highlighted text inside code blocks is audited on one page (`WHOLE`), the rest of every page on every page.

The counts of every violation found, all impacts, per rule and per page, go to `_build/a11y.json` and are printed
(`pytest -s`), so a change to the theme or a chapter shows what it fixed or broke:

    python -m pytest tests/test_book_a11y.py -q -s

Needs `_build/html` (`make html`), Chromium, the `playwright` package (the `dev` extra; it drives the system's
Chromium) and axe-core, pinned in `web/package.json` and installed by `make web` (`npm ci`).
"""
import collections, json, re, shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
HTML = ROOT / '_build' / 'html'
AXE = ROOT / 'web' / 'node_modules' / 'axe-core' / 'axe.min.js'
REPORT = ROOT / '_build' / 'a11y.json'
BROWSER = next((shutil.which(b) for b in ('chromium', 'chromium-browser', 'google-chrome') if shutil.which(b)), None)
TOC_FILES = re.findall(r'(?:root|file):\s*(nbs/\S+)', (ROOT / '_toc.yml').read_text())
BLOCKING = ('serious', 'critical')
playwright = pytest.importorskip('playwright.sync_api', reason='pip install playwright (the dev extra)')
pytestmark = [pytest.mark.skipif(not HTML.exists(), reason='book not built: run `make html` first'),
              pytest.mark.skipif(BROWSER is None, reason='no Chromium: `apt-get install chromium`'),
              pytest.mark.skipif(not AXE.exists(), reason='no axe-core: run `make web`')]

# The text of highlighted code is thousands of coloured spans a page, which take axe about half its time; their colours
# come from one style sheet, the same on every page, so one page with code of every kind is audited with them, the
# others without the inside of their code blocks.
WHOLE = 'nbs/01_attention'

# In the page, once axe.min.js is in it: each violation's rule, impact, help and its nodes' CSS targets, once MathJax
# has typeset the page (a formula is then its rendering, as a reader gets it, not its TeX).
AXE_JS = '''async whole => {
  if (window.MathJax && MathJax.startup && MathJax.startup.promise) await MathJax.startup.promise;
  const context = whole ? document : {exclude: [['div.highlight pre']]};
  const r = await axe.run(context, {resultTypes: ['violations']});
  return r.violations.map(v => ({rule: v.id, impact: v.impact, help: v.help,
                                 targets: v.nodes.map(n => n.target.join(' '))}));
}'''


def summary(found: dict) -> dict:
    "{rule: {impact, nodes, pages}} over every audited page, from {page: [violation]}."
    rules = collections.defaultdict(lambda: {'impact': None, 'nodes': 0, 'pages': []})
    for nb, violations in found.items():
        for v in violations:
            r = rules[v['rule']]
            r['impact'], r['nodes'] = v['impact'], r['nodes'] + len(v['targets'])
            r['pages'].append(nb)
    return dict(sorted(rules.items()))


@pytest.fixture(scope='module')
def audit(visits):
    """A function `page -> its violations`, each page audited once, as `visits` opened it (every other host
    blocked, its charts drawn); the counts written to _build/a11y.json."""
    found = {}
    def run(nb: str) -> list:
        if nb not in found:
            page = visits(nb).page
            page.add_script_tag(path=str(AXE))
            found[nb] = page.evaluate(AXE_JS, nb == WHOLE)
        return found[nb]
    yield run
    rules = summary(found)
    impacts = collections.Counter()
    for r in rules.values(): impacts[r['impact']] += r['nodes']
    REPORT.write_text(json.dumps({'pages': len(found), 'impacts': dict(impacts), 'rules': rules,
                                  'by_page': found}, indent=1))
    print(f'\naxe-core over {len(found)} pages: nodes by impact {dict(impacts)}')
    for rule, r in rules.items():
        print(f"  {rule:32} {r['impact']:9} {r['nodes']:5} nodes on {len(r['pages']):2} pages")


@pytest.mark.parametrize('nb', TOC_FILES)
def test_page_has_no_serious_violation(audit, nb):
    bad = [v for v in audit(nb) if v['impact'] in BLOCKING]
    assert not bad, f'{nb}: ' + '; '.join(
        f"{v['rule']} ({v['impact']}: {v['help']}) on {len(v['targets'])} elements, e.g. {v['targets'][0]}"
        for v in bad)


def test_figure1_links_are_reached_by_keyboard_and_named(browser, server):
    """The index's Figure 1 is a group, not an image (which would hide its content): the Tab key reaches each of its
    links, and each is named by its `<title>`, the chapter it opens."""
    from transformer_nb.book.diagrams import figure1
    want = figure1().links()
    page = browser.new_page(viewport={'width': 1280, 'height': 900})  # fresh: no focus moved yet
    page.route(re.compile(r'^(?!http://127\.0\.0\.1[:/]).*'), lambda route: route.abort())
    page.goto(server + 'nbs/00_index.html', wait_until='load')
    reached = []
    for _ in range(300):  # the sidebar's links come first
        page.keyboard.press('Tab')
        href = page.evaluate('() => document.activeElement.closest("#tnb-svg-1") && '
                             'document.activeElement.getAttribute("href")')
        if href: reached.append(href)
        elif reached: break
    assert reached == want
    tree = page.locator('#tnb-svg-1').aria_snapshot()
    page.close()
    assert tree.startswith('- group "The Transformer') and tree.count('link "Chapter ') == len(want), tree[:500]


def test_the_summary_counts_nodes_and_pages():
    found = {'a': [{'rule': 'r', 'impact': 'serious', 'help': '', 'targets': ['x', 'y']}],
             'b': [{'rule': 'r', 'impact': 'serious', 'help': '', 'targets': ['z']}], 'c': []}
    assert summary(found) == {'r': {'impact': 'serious', 'nodes': 3, 'pages': ['a', 'b']}}
