"""Shared fixtures: the package built as a wheel and installed, with its declared dependencies only,
into a fresh virtual environment, the way a reader's `pip install` (or Colab's install cell) gets it;
and the built book served from 127.0.0.1 for the browser tests."""
import functools, http.server, os, subprocess, sys, threading
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
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
            from transformer_nb.data import Tokenizer, load_bible
            from transformer_nb.model import (Transformer, TransformerConfig,
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
