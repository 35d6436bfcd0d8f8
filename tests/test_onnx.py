"""The ONNX export (`transformer-nb export --to onnx`, chapter 19) checked with ONNX Runtime against the book's own
decoding: `generate` and `beam_search` run on the exported graphs through `OnnxModel`, and must give the PyTorch
model's tokens. Uses the graphs `make web` exported into the book (web/site/models/book) when they are there,
else exports them into a temporary folder (about a minute). And the deployment `--optimize onnx` (chapter 13b):
`transformer-nb translate --optimize onnx` prints what `--optimize none` prints, exporting the model once into its
cache folder and loading it from there after; without onnxruntime it says so in one line."""
import os, subprocess, sys, time
from pathlib import Path

import pytest
import torch
from torch import nn

ROOT = Path(__file__).resolve().parents[1]
pytest.importorskip('onnxruntime', reason='pip install "transformer-nb[export]"')
pytest.importorskip('onnxscript', reason='pip install "transformer-nb[export]"')


@pytest.fixture(scope='module')
def exported(tmp_path_factory):
    built = ROOT / 'web' / 'site' / 'models' / 'book'
    if (built / 'config.json').exists():
        return built
    out = tmp_path_factory.mktemp('onnx') / 'book'
    subprocess.run([sys.executable, '-m', 'transformer_nb.deploy.export', str(out), '--to', 'onnx'], check=True)
    return out


@pytest.fixture(scope='module')
def book():
    from transformer_nb.data.corpus import Tokenizer
    from transformer_nb.model.transformer import Transformer
    from transformer_nb.utils import pretrained_path
    return Transformer.from_pretrained('book').eval(), Tokenizer.load(pretrained_path('book'))


def batches(tok, n: int, size: int = 20):
    "The first `n` test verses, Spanish, as padded batches of ids."
    from transformer_nb.data.corpus import load_bible
    src = load_bible('test', src_lang='es').src[:n]
    for i in range(0, n, size):
        yield nn.utils.rnn.pad_sequence([torch.tensor(tok.encode(s)) for s in src[i:i + size]], batch_first=True)


def test_float32_graphs_decode_as_the_model(exported, book):
    "100 test verses, greedy: the float32 graphs give exactly the tokens of `generate` on the PyTorch model."
    from transformer_nb.deploy.onnx import OnnxModel
    from transformer_nb.generation.dispatch import generate
    model, tok = book
    onnx = OnnxModel(exported)
    for src in batches(tok, 100):
        torch.testing.assert_close(generate(onnx, src, num_beams=1), generate(model, src, num_beams=1), rtol=0,
                                   atol=0)


def test_beam_search_on_the_graphs(exported, book):
    "10 verses with the chosen decoding settings (8 beams, GNMT 1.4, no 4-gram twice): the same n-best lists."
    from transformer_nb.generation.beam import beam_search
    from transformer_nb.deploy.onnx import OnnxModel
    from transformer_nb.generation.config import CHOSEN
    model, tok = book
    onnx = OnnxModel(exported)
    c = CHOSEN.update(rerank=None, num_return_sequences=4)
    for src in batches(tok, 10):
        torch.testing.assert_close(beam_search(onnx, src, c), beam_search(model, src, c), rtol=0, atol=0)


def test_int8_graphs_translate(exported, book):
    """The int8 copy: a third of the size, and translations close to the float32 model's. How many are equal word for
    word depends on the processor's integer kernels (ONNX Runtime picks them by CPU), so the check is chrF against
    the float32 translations; the counts are printed."""
    from sacrebleu.metrics import CHRF
    from transformer_nb.deploy.onnx import OnnxModel
    from transformer_nb.generation.dispatch import generate
    model, tok = book
    size = lambda d: sum(f.stat().st_size for f in d.glob('*.onnx'))
    assert size(exported / "int8") < size(exported) / 2.5
    onnx, hyps, refs = OnnxModel(exported, 'int8'), [], []
    for src in batches(tok, 40):
        hyps += [tok.decode(a) for a in generate(onnx, src, num_beams=1)]
        refs += [tok.decode(b) for b in generate(model, src, num_beams=1)]
    same, chrf = sum(h == r for h, r in zip(hyps, refs)), CHRF().corpus_score(hyps, [refs]).score
    print(f'\nint8 graphs: {same} of 40 greedy translations equal to the float32 model\'s, chrF {chrf:.1f}')
    assert chrf >= 70, (same, chrf)


def test_export_command_names_bad_flags(tmp_path):
    "A user's mistake gets one line naming the flag: --quantization is CTranslate2's."
    r = subprocess.run([sys.executable, '-m', 'transformer_nb.deploy.export', str(tmp_path / 'x'), '--to', 'onnx',
                        '--quantization', 'int8'], capture_output=True, text=True)
    assert r.returncode == 2 and r.stderr.count('\n') == 1 and '--quantization' in r.stderr, r.stderr


# --optimize onnx: the graphs as a deployment (chapter 13b), through the command and through optimize_for

SENTENCES = ['Hola.', 'Bienaventurados los pacificadores.', 'Jehová es mi pastor; nada me faltará.',
             'Y dijo Dios: Sea la luz: y fué la luz.']


@pytest.fixture(scope='module')
def cache(tmp_path_factory):
    "The cache folder of the deployment ($TRANSFORMER_NB_CACHE), shared by the tests below: empty at first."
    return tmp_path_factory.mktemp('cache')


def translate(cache, *args, code=None):
    "transformer-nb translate ARGS SENTENCES in a fresh process, with `cache` as its cache folder."
    env = {**os.environ, 'PYTHONPATH': str(ROOT) + os.pathsep + os.environ.get('PYTHONPATH', ''),
           'TRANSFORMER_NB_CACHE': str(cache)}
    command = ['-c', code] if code else ['-m', 'transformer_nb.cli.main', 'translate', *args, *SENTENCES]
    return subprocess.run([sys.executable, *command], capture_output=True, text=True, encoding='utf-8', env=env,
                          cwd=ROOT, timeout=600)


def test_optimize_onnx_translates_as_none(cache):
    """The first --optimize onnx exports the book's model into the cache, the second loads the folder the first
    wrote; both print exactly what --optimize none prints, and nothing on stderr. The times are printed."""
    start = time.perf_counter()
    first = translate(cache, '--optimize', 'onnx')
    with_export = time.perf_counter() - start
    assert first.returncode == 0, first.stderr
    folders = list((cache / 'onnx').iterdir())
    assert len(folders) == 1 and {'config.json', 'encoder.onnx', 'decoder_step.onnx'} <= {
        f.name for f in folders[0].iterdir()}, folders
    start = time.perf_counter()
    second = translate(cache, '--optimize', 'onnx')
    from_cache = time.perf_counter() - start
    assert list((cache / 'onnx').iterdir()) == folders  # loaded, not exported again
    none = translate(cache, '--optimize', 'none')
    assert none.returncode == 0 and len(none.stdout.splitlines()) == len(SENTENCES), none.stderr
    assert first.stdout == second.stdout == none.stdout
    assert first.stderr == second.stderr == ''
    print(f'\ntranslate --optimize onnx: {with_export:.1f} s with the export, {from_cache:.1f} s from the cache')


def test_the_onnx_record(book, cache, monkeypatch):
    """optimize_for(model, 'onnx') is recognised by its record and no other, steps with the record's decoder, and a
    Translator decodes with it on the CPU; a deployed copy is refused, by name."""
    from transformer_nb.deploy.onnx import OnnxDecoder, OnnxModel
    from transformer_nb.deploy.optimize import DEPLOYMENTS, deployed_as, optimize_for
    from transformer_nb.generation.cache import decoder_for
    from transformer_nb.translation.translator import Translator
    monkeypatch.setenv('TRANSFORMER_NB_CACHE', str(cache))
    model, tok = book
    onnx = optimize_for(model, 'onnx')
    assert isinstance(onnx, OnnxModel) and DEPLOYMENTS['onnx'].recognise(onnx) and deployed_as(onnx) == 'onnx'
    src = torch.tensor([tok.encode('Hola.')])
    assert type(decoder_for(onnx)(*onnx.encode(src), 4)) is OnnxDecoder
    tr = Translator(onnx, tok)
    assert tr.device == torch.device('cpu') and "optimized='onnx'" in repr(tr), repr(tr)
    assert tr.translate(SENTENCES[:2]) == Translator(model, tok).translate(SENTENCES[:2])
    with pytest.raises(ValueError, match='not a packed copy'):
        optimize_for(optimize_for(model, 'packed'), 'onnx')


def test_optimize_onnx_without_onnxruntime(tmp_path):
    "Without onnxruntime: one line that names it and the extra to install, exit status 1, no traceback."
    code = ('import sys; sys.modules["onnxruntime"] = None  # as if it were not installed\n'
            'from transformer_nb.cli.main import main\n'
            'sys.exit(main(["translate", "--optimize", "onnx", "Hola."]))')
    r = translate(tmp_path, code=code)
    assert r.returncode == 1 and len(r.stderr.splitlines()) == 1, r.stderr
    assert 'onnxruntime' in r.stderr and 'pip install "transformer-nb[export]"' in r.stderr, r.stderr
