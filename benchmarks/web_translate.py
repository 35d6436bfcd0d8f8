"""The translator in the page, measured as a first-time reader meets it: headless Chromium, the built book served
from 127.0.0.1 with every other host blocked, an empty cache.

    make html && python benchmarks/web_translate.py          # writes data/web_translate.json

For the int8 and the float32 graphs, each in a fresh browser context: the bytes the page and its files take (as
served, and gzip-compressed as a static host would send them), what the page says its first translation downloads,
the seconds from opening the page to the first translation on screen, then the milliseconds per verse of greedy
decoding and of 8 beams (the wall time the page states: from the click to the last sentence on screen), and how
many of VERSES test verses (Spanish -> English) the page translates greedily exactly as
`transformer-nb translate --num-beams 1 --no-truecase --keep-digits` does (both cut a verse into sentences).
Then, as a reader meets the page (int8, 8 beams), a text of about LONG characters of test verses translated whole,
with a timer on the page ticking every TIMER_MS milliseconds: its sentences, the seconds, and the longest interval
between two of the timer's ticks while the model worked, which is how long the page's main thread was kept from
answering its reader.
tests/test_book_translate.py drives the page with the same functions and asserts what must hold; this script
records the numbers the browser chapter prints.
"""
import datetime, functools, gzip, http.server, json, platform, re, shutil, statistics, subprocess, sys, threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HTML = ROOT / '_build' / 'html'
PAGE = 'nbs/19_browser.html'
VERSES = 20
LONG = 2_000  # characters: a pasted page of text
TIMER_MS = 20  # the page's own timer, whose late ticks measure how long its main thread was kept busy
BROWSER = next((shutil.which(b) for b in ('chromium', 'chromium-browser', 'google-chrome') if shutil.which(b)), None)


class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args): pass


def serve(directory: Path = HTML) -> tuple:
    "(server, its address): the built book over HTTP from 127.0.0.1, in a thread."
    srv = http.server.ThreadingHTTPServer(('127.0.0.1', 0), functools.partial(Quiet, directory=str(directory)))
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return srv, f'http://127.0.0.1:{srv.server_port}/'


class Translator:
    "The page in one fresh browser context: what it loaded, what it logged, and its translator driven by hand."

    def __init__(self, browser, address: str, precision: str = 'float32'):
        self.context = browser.new_context(viewport={'width': 1280, 'height': 900})
        self.page = self.context.new_page()
        self.outside, self.errors, self.files = [], [], {}
        self.page.route(re.compile(r'^(?!http://127\.0\.0\.1[:/]).*'), self._block)
        self.page.on('console', lambda m: m.type == 'error' and self.errors.append(m.text))
        self.page.on('pageerror', lambda e: self.errors.append(str(e)))
        self.page.on('requestfinished', lambda r: self.files.setdefault(r.url, r))
        self.start = time.perf_counter()
        self.page.goto(address + PAGE, wait_until='load')
        self.page.select_option('#precision', precision)

    def _block(self, route):
        self.outside.append(route.request.url)
        route.abort()

    def begin(self, text: str, beams: int = 1):
        "Type `text`, choose the search, press the button."
        p = self.page
        p.select_option('#decoding', str(beams))
        p.fill('#source', text)
        p.evaluate("document.querySelector('.tnb-translate').dataset.state = 'asked'")
        p.click('#translate')

    def result(self, timeout: float = 120) -> dict:
        "Wait for the run to end: {'text', 'ms' (the wall time the page states), 'status', 'state', 'sentences'}."
        p = self.page
        p.wait_for_function(f"{ENDED}.includes(document.querySelector('.tnb-translate').dataset.state)",
                            timeout=timeout * 1000)
        box = p.locator('.tnb-translate')
        return {'text': p.inner_text('#translation'), 'ms': float(box.get_attribute('data-ms') or 'nan'),
                'status': p.inner_text('#status'), 'state': box.get_attribute('data-state'),
                'sentences': [int(box.get_attribute(f'data-{k}') or 0) for k in ('done', 'count')]}

    def translate(self, text: str, beams: int = 1, timeout: float = 120) -> dict:
        "Type `text`, press the button, wait for the run to end (see `result`)."
        self.begin(text, beams)
        return self.result(timeout)

    def start_timer(self):
        """A TIMER_MS timer on the page, recording the longest interval between two ticks (`timer`), as a handler
        of the page's own that runs only when its main thread is free."""
        self.page.evaluate(TIMER_JS, TIMER_MS)

    def timer(self) -> dict:
        "The longest interval (ms) between two ticks of the timer so far, while translating and else."
        return self.page.evaluate("({...window.tnbTimer.max})")

    def weight(self) -> dict:
        "Bytes of every file the page loaded so far, as served and gzip-compressed."
        served = packed = 0
        for url in self.files:
            path = HTML / url.split('/', 3)[3].split('?')[0].split('#')[0]
            if path.is_file():
                data = path.read_bytes()
                served, packed = served + len(data), packed + len(gzip.compress(data, 6))
        return {'bytes': served, 'gzip_bytes': packed}

    def close(self): self.context.close()


ENDED = "['done', 'error', 'stopped']"  # the states in which a run has ended
# a TIMER_MS timer on the page: the longest interval between two ticks, by what the page was doing at the first
# (translating: a run going on, loading the model or with sentences left to show; else: anything else, such as
# drawing the chart once every sentence is shown)
TIMER_JS = """(ms => {
  if (window.tnbTimer) return;
  const box = document.querySelector('.tnb-translate');
  const phase = () => box.dataset.state === 'busy' &&
    (box.dataset.count === undefined || box.dataset.done !== box.dataset.count) ? 'translating' : 'else';
  const t = window.tnbTimer = {max: {translating: 0, else: 0}, last: performance.now(), phase: phase()};
  setInterval(() => {
    const now = performance.now();
    t.max[t.phase] = Math.max(t.max[t.phase], now - t.last);
    t.last = now;
    t.phase = phase();
  }, ms);
})"""


def test_verses(n: int = VERSES) -> list:
    "The first `n` verses of the test books, Spanish, at most 200 characters (a line of the page's text box)."
    from transformer_nb.data.corpus import load_bible
    src = load_bible('test', src_lang='es').src
    return [s for s in src if len(s) <= 200][:n]


def long_text(n: int = LONG) -> str:
    "Consecutive test verses, joined by spaces, as many as make at most `n` characters."
    from transformer_nb.data.corpus import load_bible
    text = ''
    for verse in load_bible('test', src_lang='es').src:
        if len(text) + 1 + len(verse) > n: return text
        text = f'{text} {verse}'.strip()
    return text


def cli_translations(verses: list, beams: int = 1) -> list:
    """What `transformer-nb translate --num-beams 1 --no-truecase --keep-digits` prints for each verse, cut into
    sentences as the page cuts it, neither recased nor with numbers spelled (the page does neither); with beams,
    the best hypothesis (`--rerank none`: the page does not rerank)."""
    cmd = [sys.executable, '-m', 'transformer_nb.cli.translate', '--num-beams', str(beams), '--no-truecase',
           '--keep-digits']
    cmd += ['--rerank', 'none'] if beams > 1 else []
    out = subprocess.run(cmd, input='\n'.join(verses) + '\n', capture_output=True, text=True, check=True)
    return out.stdout.splitlines()


def cpu() -> str:
    "The CPU's model name and the cores this process may use."
    text = Path('/proc/cpuinfo').read_text() if Path('/proc/cpuinfo').exists() else ''
    name = next((l.split(':', 1)[1].strip() for l in text.splitlines() if l.startswith('model name')),
                platform.processor() or platform.machine())
    import os
    return f'{name}, {len(os.sched_getaffinity(0))} cores'


def measure(browser, address: str, precision: str, verses: list, want: list) -> dict:
    "One precision, a fresh context: weight, first translation, per-verse times, agreement."
    t = Translator(browser, address, precision)
    stated = int(t.page.get_attribute('#download', 'data-bytes'))
    first = t.translate(verses[0])
    first_s = time.perf_counter() - t.start
    got = [first] + [t.translate(v) for v in verses[1:]]
    beams = [t.translate(v, beams=8) for v in verses[:5]]
    assert not t.outside and not t.errors, (t.outside[:3], t.errors[:3])
    result = {**t.weight(), 'stated_bytes': stated, 'first_s': round(first_s, 2),
              'greedy_ms': round(statistics.median(g['ms'] for g in got[1:]), 1),
              'beam_ms': round(statistics.median(b['ms'] for b in beams), 1),
              'equal': sum(g['text'] == w for g, w in zip(got, want)),
              'translations': [g['text'] for g in got]}
    t.close()
    return result


def long_run(browser, address: str, text: str) -> dict:
    """The page as a reader meets it (int8, 8 beams), a fresh context: `text` translated whole, a timer on the
    page (TIMER_MS); the longest interval between its ticks while the model loaded and translated, and else (as
    the page drew the chart)."""
    t = Translator(browser, address, 'int8')
    t.start_timer()
    t.begin(text, beams=8)
    r = t.result(timeout=600)
    assert r['state'] == 'done' and not t.outside and not t.errors, (r, t.outside[:3], t.errors[:3])
    ticks = t.timer()
    out = {'chars': len(text), 'sentences': r['sentences'][1], 'seconds': round(r['ms'] / 1000, 1),
           'timer_ms': TIMER_MS, 'longest_tick_ms': round(ticks['translating'], 1),
           'longest_tick_else_ms': round(ticks['else'], 1)}
    t.close()
    return out


def main():
    from playwright.sync_api import sync_playwright
    if not (HTML / PAGE).exists(): sys.exit(f'no {HTML / PAGE}: build the book first (make html)')
    verses = test_verses()
    want = cli_translations(verses)
    srv, address = serve()
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=BROWSER, args=['--no-sandbox'])
        out = {'date': datetime.date.today().isoformat(), 'chromium': browser.version, 'cpu': cpu(),
               'verses': len(verses), 'cli': want}
        for precision in ('int8', 'float32'):
            out[precision] = measure(browser, address, precision, verses, want)
        out['long'] = long_run(browser, address, long_text())
        browser.close()
    srv.shutdown()
    (ROOT / 'data' / 'web_translate.json').write_text(json.dumps(out, indent=1, ensure_ascii=False) + '\n')
    for p in ('int8', 'float32'):
        print(p, {k: v for k, v in out[p].items() if k != 'translations'})
    print('long', out['long'])


if __name__ == '__main__':
    main()
