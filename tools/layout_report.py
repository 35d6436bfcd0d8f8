"""Per page of a built book, how many elements do not fit the content column at a 1280-px window: code blocks,
display formulas, tables, shrunk figures, and whether the page itself is too wide. It runs the layout probe of
tests/test_book_browser.py in headless Chromium, one page at a time.

    python tools/layout_report.py                      # every page of _toc.yml, from _build/html
    python tools/layout_report.py --details nbs/04_positional
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
    ap.add_argument('--json', type=Path, help='also write {page: {kind: count}} here')
    a = ap.parse_args(argv)
    probe = load_probe()
    if probe.BROWSER is None: sys.exit('no Chromium found: apt-get install chromium')
    counts, kinds = {}, probe.KINDS
    print(f"{'page':<26}" + ''.join(f'{k:>9}' for k in kinds))
    for nb in a.pages or probe.TOC_FILES:
        page = a.html / f'{nb}.html'
        if not page.exists():
            print(f'{nb:<26} (not built)')
            continue
        found = probe.layout(page)
        counts[nb] = {k: len(found[k]) for k in kinds}
        print(f'{nb:<26}' + ''.join(f'{counts[nb][k]:>9}' for k in kinds), flush=True)
        if a.details:
            for k in kinds:
                for i in found[k]:
                    print(f"    {k}: {i['where']} {i['why']}: {i['text']!r}")
    totals = {k: sum(c[k] for c in counts.values()) for k in kinds}
    pages = {k: sum(c[k] > 0 for c in counts.values()) for k in kinds}
    print(f"{'total':<26}" + ''.join(f'{totals[k]:>9}' for k in kinds))
    print(f"{'pages with any':<26}" + ''.join(f'{pages[k]:>9}' for k in kinds))
    if a.json: a.json.write_text(json.dumps(counts, indent=1) + '\n')
    return counts


if __name__ == '__main__':
    main()
