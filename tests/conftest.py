"""Shared fixtures: the package built as a wheel and installed, with its declared dependencies only,
into a fresh virtual environment, the way a reader's `pip install` (or Colab's install cell) gets it;
and, for the browser tests, the built book served from 127.0.0.1, one headless Chromium, and each page
visited once (`visits`), its requests to other hosts blocked and its console errors recorded."""
import functools, http.server, json, os, re, shutil, subprocess, sys, threading
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BROWSER = next((shutil.which(b) for b in ('chromium', 'chromium-browser', 'google-chrome') if shutil.which(b)), None)
ZWSP = '\u200b'
SKIP_WHEEL = os.environ.get('TRANSFORMER_NB_SKIP_WHEEL') == '1'
# The processes the tests start write Python's bytecode caches, even where the environment turns
# them off (PYTHONDONTWRITEBYTECODE): the fresh venv is installed without them (--no-compile), so
# each module it imports is compiled once, on first import, not again in every process.
os.environ.pop('PYTHONDONTWRITEBYTECODE', None)


def run(cmd, **kw):
    "Run a command; fail the test with the end of its output if it fails."
    r = subprocess.run(cmd, capture_output=True, text=True, **kw)
    assert r.returncode == 0, f'{cmd} failed:\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}'
    return r.stdout


@pytest.fixture(scope='session')
def wheel(tmp_path_factory) -> Path:
    "The package built as a wheel from this checkout."
    if SKIP_WHEEL: pytest.skip('TRANSFORMER_NB_SKIP_WHEEL=1')
    dist = tmp_path_factory.mktemp('dist')
    run([sys.executable, '-m', 'pip', 'wheel', '--no-deps', '-q', '-w', str(dist), str(ROOT)])
    wheels = list(dist.glob('transformer_nb-*.whl'))
    assert len(wheels) == 1, wheels
    return wheels[0]


@pytest.fixture(scope='session')
def wheel_venv(wheel, tmp_path_factory) -> Path:
    """A fresh virtual environment (outside the checkout) holding the wheel with the `export` extra
    that chapter 18 needs, its declared dependencies, a Jupyter kernel and this checkout's nbdev,
    which runs the chapters; returns its `bin/` folder. A test that shows the package working
    without nbdev runs its commands with the `no_nbdev` environment."""
    import nbdev, torch
    venv = tmp_path_factory.mktemp('wheel-venv')
    run([sys.executable, '-m', 'venv', str(venv)])
    py = str(venv / 'bin' / 'python')
    # the torch installed here (a CPU build on CI) keeps the environment from pulling a CUDA build;
    # --no-compile: Python compiles what is imported when it is first imported (63 s -> 38 s here)
    pip = [py, '-m', 'pip', 'install', '-q', '--no-compile']
    run([*pip, f"torch=={torch.__version__.split('+')[0]}"])
    run([*pip, f'{wheel}[export]', 'ipykernel', 'nbclient', 'nbformat', f'nbdev=={nbdev.__version__}'])
    return venv / 'bin'


@pytest.fixture(scope='session')
def no_nbdev(tmp_path_factory) -> dict:
    """The environment of a process in which `import nbdev` fails as if nbdev were not installed:
    a package of that name, first on PYTHONPATH, refuses to import."""
    stub = tmp_path_factory.mktemp('no-nbdev')
    (stub / 'nbdev').mkdir()
    (stub / 'nbdev' / '__init__.py').write_text(
        "raise ImportError('nbdev is hidden: the package must work without it')\n")
    return {**os.environ, 'PYTHONPATH': str(stub)}


@pytest.fixture(scope='session')
def tiny_model(tmp_path_factory):
    """A function `max_len -> folder`: a random tiny model (1+1 layers, d_model 32)
    and a 300-piece SentencePiece tokenizer trained on the shipped corpus, saved."""
    made = {}
    def make(max_len: int = 32) -> Path:
        if max_len not in made:
            import torch
            from transformer_nb.data.corpus import Tokenizer, load_bible
            from transformer_nb.model.transformer import (Transformer, TransformerConfig,
                                              save_pretrained)
            d = tmp_path_factory.mktemp(f'tiny-{max_len}')
            pairs = load_bible('train', src_lang='es')
            tok = Tokenizer.train(pairs.src[:300] + pairs.tgt[:300], vocab_size=300)
            torch.manual_seed(0)
            config = TransformerConfig(src_vocab_size=tok.vocab_size, d_model=32,
                                       n_heads=4, d_ff=64, n_encoder_layers=1,
                                       n_decoder_layers=1, dropout=0.0, max_len=max_len)
            made[max_len] = save_pretrained(Transformer(config), d / 'model',
                                            tokenizer_file=tok.save(d / 'spm.model'))
        return made[max_len]
    return make


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args): pass


@pytest.fixture(scope='session')
def server():
    """The built book (`_build/html`) over HTTP from 127.0.0.1, in a thread, for every browser test: its address.
    The tests that use it block every request to another host."""
    book = ROOT / '_build' / 'html'
    srv = http.server.ThreadingHTTPServer(('127.0.0.1', 0), functools.partial(_Quiet, directory=str(book)))
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    yield f'http://127.0.0.1:{srv.server_port}/'
    srv.shutdown()


# In the page: every drawn item of one mark type of a chart, with its datum and its box on the screen. An SVG
# chart's item has its own element; a canvas chart's item is placed from its bounds, which are relative to the
# group holding it, plus the groups' offsets, the view's origin and padding, and the canvas's place on the page.
ITEMS_JS = r'''([id, type]) => {
  const view = document.getElementById(id).view, out = [];
  const canvas = view.container().querySelector('canvas');
  const at = canvas && canvas.getBoundingClientRect(), pad = view.padding();
  const [ox, oy] = view.origin().map((o, i) => o + (i ? pad.top : pad.left));
  const walk = (node, dx, dy) => {
    if (!node) return;
    if (node.marktype === type && node.role === 'mark') {
      for (const it of node.items) {
        // a line's points share one SVG path: their datums, without a box
        if (type === 'line') { out.push({datum: it.datum}); continue; }
        if (canvas) {
          const b = it.bounds, x = at.left + ox + dx + (b.x1 + b.x2) / 2;
          out.push({datum: it.datum, x, y: at.top + oy + dy + (b.y1 + b.y2) / 2});
          continue;
        }
        if (!it._svg || !it._svg.isConnected) continue;  // leaving the chart
        const b = it._svg.getBoundingClientRect();
        out.push({datum: it.datum, x: b.left + b.width / 2, y: b.top + b.height / 2});
      }
    }
    for (const it of node.items || []) {  // a group's marks are drawn from the group's corner
      const group = node.marktype === 'group';
      walk(it, dx + (group ? it.x || 0 : 0), dy + (group ? it.y || 0 : 0));
    }
  };
  walk(view.scenegraph().root, 0, 0);
  return out;
}'''


@pytest.fixture(scope='session')
def browser():
    "Headless Chromium (the system's), driven by Playwright, for every browser test of the session."
    if BROWSER is None: pytest.skip('no Chromium: `apt-get install chromium`')
    playwright = pytest.importorskip('playwright.sync_api', reason='pip install playwright (the dev extra)')
    with playwright.sync_playwright() as p:
        b = p.chromium.launch(executable_path=BROWSER, args=['--no-sandbox', '--disable-gpu'])
        yield b
        b.close()


class Visit:
    "One page opened offline: what it asked of other hosts, what it logged as errors, its charts."

    def __init__(self, browser, server: str, nb: str, width: int = 1280):
        self.outside, self.errors = [], []
        self.page = browser.new_page(viewport={'width': width, 'height': 900})
        self.page.route(re.compile(r'^(?!http://127\.0\.0\.1[:/]).*'), self.block)
        self.page.on('console', lambda m: m.type == 'error' and self.errors.append(m.text))
        self.page.on('pageerror', lambda e: self.errors.append(str(e)))
        self.page.goto(server + f'{nb}.html', wait_until='load')
        self.charts = self.page.eval_on_selector_all('.tnb-chart > div[id^="tnb-chart-"]', 'els => els.map(e => e.id)')
        if self.charts:
            self.page.wait_for_function(
                "ids => ids.every(id => document.getElementById(id).dataset.rendered)", arg=self.charts,
                timeout=20_000)

    def block(self, route):
        self.outside.append(route.request.url)
        route.abort()

    def items(self, chart: str, mark: str) -> list:
        "The drawn items of one mark type (rect, line, symbol) of a chart, scrolled into view."
        self.page.locator(f'#{chart}').scroll_into_view_if_needed()
        return self.page.evaluate(ITEMS_JS, [chart, mark])

    def spec(self, chart: str) -> dict:
        return json.loads(self.page.inner_text(f'#{chart}-spec'))

    def tooltip(self, x: float, y: float) -> dict:
        "Hover (x, y) with the mouse; the tooltip's rows, {title: value}."
        from playwright.sync_api import TimeoutError as TimeoutError_
        self.page.mouse.move(x, y, steps=5)  # a path, as a hand moves it, not a jump
        try: tip = self.page.wait_for_selector('#vg-tooltip-element.visible', timeout=1_000)
        except TimeoutError_:  # the row's highlight redrew the cell under the pointer: move on it
            self.page.mouse.move(x + 1, y, steps=2)
            tip = self.page.wait_for_selector('#vg-tooltip-element.visible', timeout=5_000)
        keys, values = tip.eval_on_selector_all('td.key', 'e => e.map(x => x.textContent)'), \
            tip.eval_on_selector_all('td.value', 'e => e.map(x => x.textContent)')
        return {k.rstrip(':'): v.replace(ZWSP, '') for k, v in zip(keys, values)}

    def close(self): self.page.close()


@pytest.fixture(scope='session')
def visits(browser, server):
    """A function `notebook -> Visit`: each page of the book opened once for the whole session, so the
    accessibility audit and the checks of its charts read the same visit."""
    done = {}
    def visit(nb):
        if nb not in done: done[nb] = Visit(browser, server, nb)
        return done[nb]
    yield visit
    for v in done.values(): v.close()


# The tests in tiers, laid out like the package: a marker per subpackage whose behaviour a file pins, plus `book`
# (the notebooks, the pages' sources and the numbers they quote), `browser` (the built book in Chromium), `install`
# (a wheel in a fresh environment) and `slow` (training runs and long command-line sessions). `pytest -m generation`
# runs one tier; `make test` runs them all; `make test-fast` all but browser, install and slow.
TIERS = {
    'model': ['test_variants', 'test_one_screen'],
    'data': ['test_data_hf', 'test_corpus_builder'],
    'text': ['test_number_faithfulness'],
    'training': ['test_train_resume'],
    'generation': ['test_generate_settings', 'test_defaults'],
    'deploy': ['test_export', 'test_onnx', 'test_int8', 'test_compiled'],
    'translation': ['test_random_text', 'test_bad_input'],
    'cli': ['test_cli_flags', 'test_translate_cli', 'test_evaluate_cli', 'test_train_cli'],
    'book': ['test_notebooks', 'test_layout', 'test_first_reading', 'test_book_map', 'test_quoted_numbers',
             'test_readme', 'test_baselines', 'test_structure', 'test_release'],
    'browser': ['test_book_a11y', 'test_book_browser', 'test_book_interactive', 'test_book_links',
                'test_book_translate'],
    'install': ['test_packaging', 'test_chapters_wheel', 'test_data_wheel'],
    'slow': ['test_train_ddp'],
}
TIER_OF = {f: tier for tier, files in TIERS.items() for f in files}


def pytest_configure(config):
    for tier in TIERS:
        config.addinivalue_line('markers', f'{tier}: the {tier} tier (tests/conftest.py, TIERS)')


def pytest_collection_modifyitems(config, items):
    for item in items:
        tier = TIER_OF.get(Path(str(item.fspath)).stem)
        if tier is None:
            raise pytest.UsageError(f'{Path(str(item.fspath)).name} has no tier: add it to TIERS in tests/conftest.py')
        item.add_marker(getattr(pytest.mark, tier))
