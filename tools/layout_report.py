"""Per page of a built book, how many elements do not fit the content column, at a 1280-px window and at a
phone's 390 px: code blocks, display formulas, tables, whether the page itself is too wide, and figures (at 1280 px:
shrunk below 90 %; at 390 px: whose smallest text is drawn under 9 px). At 390 px a code block, formula or table
counts only if it is cut off (scrolling in its own box is fine there). It runs the layout probe of
tests/test_book_browser.py in headless Chromium, one browser run per page.

    python tools/layout_report.py                      # every page of _toc.yml, from _build/html
    python tools/layout_report.py --details nbs/04_positional
    python tools/layout_report.py --scrolling          # and what scrolls at 390 px
    python tools/layout_report.py --html /path/to/html --json counts.json
"""
import argparse, importlib.util, json, sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def load_probe():
    "tests/test_book_browser.py as a module (it holds the probe and the list of pages)."
    spec = importlib.util.spec_from_file_location('book_browser', ROOT / 'tests' / 'test_book_browser.py')
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('pages', nargs='*', help='pages as in _toc.yml (nbs/01_attention); default: all')
    ap.add_argument('--html', type=Path, default=ROOT / '_build' / 'html', help='the built book')
    ap.add_argument('--details', action='store_true', help='list every element that does not fit')
    ap.add_argument('--scrolling', action='store_true',
                    help='list the display formulas and figures that scroll in their '
                         'box at 390 px (a formula by the start of its LaTeX)')
    ap.add_argument('--json', type=Path, help='also write {width: {page: {kind: count}}} here')
    a = ap.parse_args(argv)
    probe = load_probe()
    if probe.BROWSER is None: sys.exit('no Chromium found: apt-get install chromium')
    kinds, widths = probe.KINDS, (probe.WINDOW, probe.PHONE)
    counts = {w: {} for w in widths}
    print(f"{'page':<26}" + ''.join(f'{k + "@" + str(w):>13}' for w in widths for k in kinds))
    for nb in a.pages or probe.TOC_FILES:
        page = a.html / f'{nb}.html'
        if not page.exists():
            print(f'{nb:<26} (not built)')
            continue
        found = probe.layouts(page)
        for w in widths:
            items = {k: found[w][k] for k in kinds}
            if w == probe.PHONE:
                items = {k: probe.cut_off(v) for k, v in items.items()}
                small = probe.figure_text(nb, found[w]['shown'])
                items['figure'] = [{'where': '', 'why': why, 'text': ''} for why in small]
            counts[w][nb] = {k: len(items[k]) for k in kinds}
            if a.details:
                for k in kinds:
                    for i in items[k]: print(f"    {k}@{w}: {i['where']} {i['why']}: {i['text']!r}")
            if a.scrolling and w == probe.PHONE:
                for b in probe.scrolling(found[w]):
                    why = '' if b['why'] is None else f" ({b['why']})"
                    print(f"    scrolls@{w}: {b['what']} {b['where']}: "
                          f"{b['width']} px in {b['box']} px{why}: {b['text']}")
        print(f'{nb:<26}' + ''.join(f'{counts[w][nb][k]:>13}' for w in widths for k in kinds), flush=True)
    totals = {w: {k: sum(c[k] for c in counts[w].values()) for k in kinds} for w in widths}
    pages = {w: {k: sum(c[k] > 0 for c in counts[w].values()) for k in kinds} for w in widths}
    print(f"{'total':<26}" + ''.join(f'{totals[w][k]:>13}' for w in widths for k in kinds))
    print(f"{'pages with any':<26}" + ''.join(f'{pages[w][k]:>13}' for w in widths for k in kinds))
    if a.json: a.json.write_text(json.dumps(counts, indent=1) + '\n')
    return counts


if __name__ == '__main__':
    main()
