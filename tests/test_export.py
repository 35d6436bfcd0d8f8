"""Exports to the ecosystem (chapter 18) and the book's own weights format (chapter 8).

On the first 100 test verses of the shipped corpus, the Hugging Face export's `generate`
gives our `Translator`'s tokens: plain, greedy and with a beam of 4, and with the 4-gram
block its generation config carries, greedy and with the default beam of 8. The
CTranslate2 export's output is ours too: greedy, plain and with the block, and beam search
with 4 and 8 beams (chapter 18 shows these comparisons in cells flagged `slow`). Also: the
`export` command and its mistakes, and `save_pretrained` -> `load_pretrained` through
model.safetensors and an older model.pt."""
import shutil, subprocess, sys, warnings

import pytest

torch = pytest.importorskip('torch')
from transformer_nb.cli.main import main as cli
from transformer_nb.data.corpus import load_bible
from transformer_nb.model.transformer import (LEGACY_WEIGHTS_NAME, WEIGHTS_NAME, load_pretrained, save_pretrained)

N_VERSES, N_NEW = 20, 160  # verses compared (chapter 18 compares 100); max_new_tokens
BEAM4 = dict(num_beams=4, length_penalty=0.6, early_stopping=False)
BEAM8 = dict(num_beams=8, length_penalty=1.4, early_stopping=False)  # the defaults'
PLAIN = dict(no_repeat_ngram_size=0)  # generation_config.json blocks 4-grams by default


def extra(name):
    "Import a library of the `export` extra, or skip saying how to install it."
    with warnings.catch_warnings():  # transformers imports tqdm, which may warn
        warnings.simplefilter('ignore')
        return pytest.importorskip(
            name, reason=f'{name} is not installed: pip install "transformer-nb[export]"')


@pytest.fixture(scope='module')
def verses():
    return load_bible('test', src_lang='es').src[:N_VERSES]


@pytest.fixture(scope='module')
def book():
    from transformer_nb.translation.translator import Translator
    torch.set_num_threads(2)
    # the exports carry the beam, α and block; the checks of the n-best list stay behind
    # whole verses, as the exports read them
    return Translator.from_pretrained('book', rerank=None, split=False)


@pytest.fixture(scope='module')
def greedy(book, verses):
    return book.translate_ids(verses, num_beams=1, max_new_tokens=N_NEW, **PLAIN)


@pytest.fixture(scope='module')
def greedy_block(book, verses):
    return book.translate_ids(verses, num_beams=1, max_new_tokens=N_NEW)


@pytest.fixture(scope='module')
def hf_dir(book, tmp_path_factory):
    extra('transformers'); extra('safetensors')
    from transformer_nb.deploy.export import export_hf
    return export_hf(book.model, book.tok, tmp_path_factory.mktemp('exp') / 'hf')


def same(a, b) -> int:
    return sum(x == y for x, y in zip(a, b, strict=True))


def hf_ids(hf_dir, texts, **settings):
    transformers = extra('transformers')
    transformers.logging.set_verbosity_error()
    tok = transformers.AutoTokenizer.from_pretrained(hf_dir)
    model = transformers.AutoModelForSeq2SeqLM.from_pretrained(hf_dir).eval()
    out = []
    for i in range(0, len(texts), 32):
        batch = tok(texts[i:i + 32], return_tensors='pt', padding=True)
        with torch.inference_mode():
            seqs = model.generate(**batch, max_new_tokens=N_NEW, **settings)
        for row in seqs[:, 1:].tolist():
            row = row[:row.index(3)] if 3 in row else row
            out.append([t for t in row if t != 0])
    return out


def test_hf_files_and_tokenizer(hf_dir, book, verses):
    transformers = extra('transformers')
    names = {p.name for p in hf_dir.iterdir()}
    assert {'config.json', 'generation_config.json', 'model.safetensors', 'source.spm',
            'target.spm', 'vocab.json', 'tokenizer_config.json'} <= names, names
    modes = {p.name: p.stat().st_mode & 0o777 for p in hf_dir.iterdir()}
    assert len(set(modes.values())) == 1, f'files of one export with different modes: {modes}'
    tok = transformers.AutoTokenizer.from_pretrained(hf_dir)
    assert type(tok).__name__ == 'MarianTokenizer'
    assert tok(verses).input_ids == book.tok.encode(verses)
    assert (tok.pad_token_id, tok.unk_token_id, tok.eos_token_id) == (0, 1, 3)
    g = transformers.GenerationConfig.from_pretrained(hf_dir)
    assert (g.decoder_start_token_id, g.eos_token_id, g.pad_token_id) == (2, 3, 0)
    assert g.forced_bos_token_id is None and g.forced_eos_token_id is None
    assert g.bad_words_ids == [[0], [2]]
    from transformer_nb.generation.config import CHOSEN
    hf = CHOSEN.hf_compatible()  # GNMT's α in HF's form, no checks: what generate can run
    keys = 'num_beams', 'length_penalty', 'no_repeat_ngram_size'
    assert tuple(getattr(g, k) for k in keys) == (8, 1.4, 4) == tuple(getattr(hf, k) for k in keys)


def test_hf_greedy_matches(hf_dir, greedy, verses):
    assert same(greedy, hf_ids(hf_dir, verses, num_beams=1, **PLAIN)) == N_VERSES


def test_hf_beam4_matches(hf_dir, book, verses):
    ours = book.translate_ids(verses, max_new_tokens=N_NEW, **BEAM4, **PLAIN)
    assert same(ours, hf_ids(hf_dir, verses, **BEAM4, **PLAIN)) == N_VERSES


def test_hf_block_matches(hf_dir, book, greedy, greedy_block, verses):
    "The block of generation_config.json is ours, greedy and in the default beam of 8."
    assert greedy_block != greedy  # the block changes some outputs, so this tests it
    assert same(greedy_block, hf_ids(hf_dir, verses, num_beams=1)) == N_VERSES
    ours = book.translate_ids(verses, max_new_tokens=N_NEW, **BEAM8)
    assert same(ours, hf_ids(hf_dir, verses, **BEAM8)) == N_VERSES


def test_hf_export_decodes_as_its_config(hf_dir, book, verses):
    "The exported generation_config.json, as written, decodes as CHOSEN.hf_compatible()."
    from transformer_nb.generation.config import CHOSEN
    config = CHOSEN.hf_compatible().update(max_new_tokens=N_NEW)
    ours = book.translate_ids(verses[:20], generation_config=config)
    assert same(ours, hf_ids(hf_dir, verses[:20])) == 20


@pytest.fixture(scope='module')
def ct2_dir(book, tmp_path_factory):
    extra('ctranslate2')
    from transformer_nb.deploy.export import export_ct2
    return export_ct2(book.model, book.tok, tmp_path_factory.mktemp('exp') / 'ct2')


def test_ct2_greedy_matches(book, greedy, greedy_block, verses, ct2_dir):
    ctranslate2, d = extra('ctranslate2'), ct2_dir
    assert {'model.bin', 'config.json', 'tokenizer.model'} <= {p.name for p in d.iterdir()}
    import sentencepiece  # a CTranslate2 user tokenizes with the model beside the weights
    sp = sentencepiece.SentencePieceProcessor(model_file=str(d / 'tokenizer.model'))
    assert [sp.encode(v, out_type=str) for v in verses] == [book.tok.pieces(v) for v in verses]
    tr = ctranslate2.Translator(str(d), device='cpu', intra_threads=2)
    for ours, block in ((greedy, 0), (greedy_block, 4)):
        res = tr.translate_batch([book.tok.pieces(v) for v in verses], beam_size=1,
                                 max_decoding_length=N_NEW, no_repeat_ngram_size=block)
        theirs = [[book.tok.sp.piece_to_id(p) for p in r.hypotheses[0]] for r in res]
        assert same(ours, theirs) == N_VERSES, f'no_repeat_ngram_size={block}'


@pytest.mark.parametrize('beams, alpha, block', [(4, 0.6, 0), (8, 1.4, 0), (8, 1.4, 4)])
def test_ct2_beam_matches(book, verses, ct2_dir, beams, alpha, block):
    """CTranslate2's beam search (Hugging Face's length penalty, early stopping) gives our
    tokens; with the n-gram block, once a log-softmax after our rules shares the banned
    tokens' probability out among the others, as CTranslate2 does (renormalize_logits, chapter 18)."""
    ctranslate2 = extra('ctranslate2')
    ours = book.translate_ids(verses, num_beams=beams, length_penalty=alpha,
                              no_repeat_ngram_size=block, early_stopping=True,
                              max_new_tokens=N_NEW, renormalize_logits=bool(block))
    tr = ctranslate2.Translator(str(ct2_dir), device='cpu', intra_threads=2)
    res = tr.translate_batch([book.tok.pieces(v) for v in verses], beam_size=beams,
                             length_penalty=alpha, no_repeat_ngram_size=block,
                             max_decoding_length=N_NEW)
    theirs = [[book.tok.sp.piece_to_id(p) for p in r.hypotheses[0]] for r in res]
    assert same(ours, theirs) == N_VERSES


def call(capsys, *argv):
    status = cli(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_cli_export_hf(tmp_path, capsys):
    extra('transformers'); extra('safetensors')
    status, out, err = call(capsys, 'export', '--to', 'hf', str(tmp_path / 'hf'))
    assert status == 0, err
    assert out.strip() == str(tmp_path / 'hf')
    assert (tmp_path / 'hf' / 'model.safetensors').exists()
    # again into the same, now full, directory: refused, then allowed with --overwrite (or its older name --force)
    status, _, err = call(capsys, 'export', '--to', 'hf', str(tmp_path / 'hf'))
    assert status == 2 and '--overwrite' in err and 'Traceback' not in err, err
    assert len(err.strip().splitlines()) == 1
    status, _, err = call(capsys, 'export', '--to', 'hf', '--force', str(tmp_path / 'hf'))
    assert status == 0, err


@pytest.mark.parametrize('argv, status, needle', [
    (['--to', 'hf', '--model', 'NOWHERE', 'OUT'], 2, 'unrecognized arguments: --model'),  # the model folder is --checkpoint
    (['--to', 'hf', '--quantization', 'int8', 'OUT'], 2, '--to ct2 only'),
    (['--to', 'tflite', 'OUT'], 2, "invalid choice: 'tflite'"),
    (['OUT'], 2, 'the following arguments are required: --to'),
    (['--to', 'ct2', '--quantization', 'int3', 'OUT'], 2, "invalid choice: 'int3'"),
], ids=['bad model dir', 'quantization for hf', 'unknown format', 'no --to',
        'unknown quantization'])
def test_cli_mistakes(argv, status, needle, tmp_path, capsys):
    argv = [str(tmp_path / a) if a in ('NOWHERE', 'OUT') else a for a in argv]
    got, _, err = call(capsys, 'export', *argv)
    assert got == status, err
    lines = [l for l in err.splitlines() if 'error:' in l]
    assert len(lines) == 1 and needle in lines[0] and 'Traceback' not in err, err
    assert not (tmp_path / 'OUT').exists()


def test_cli_missing_extra_names_the_fix(tmp_path):
    "Without the extra's libraries, one line that says how to install them."
    code = ('import sys; sys.modules["transformers"] = None; sys.modules["ctranslate2"] = None\n'
            'from transformer_nb.cli.main import main\n'
            f'sys.exit(main(["export", "--to", "hf", {str(tmp_path / "x")!r}]))')
    r = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True)
    assert r.returncode == 1, r.stderr
    assert 'pip install "transformer-nb[export]"' in r.stderr, r.stderr
    assert 'Traceback' not in r.stderr and len(r.stderr.strip().splitlines()) == 1


# ---------------------------------------------------------------- the book's own format
def test_safetensors_round_trip(tiny_model, tmp_path):
    d = tiny_model(32)
    assert (d / WEIGHTS_NAME).exists() and not (d / LEGACY_WEIGHTS_NAME).exists()
    model = load_pretrained(d)
    assert model.generator.weight is model.encoder.embedding.weight  # tied again
    assert model.decoder.embedding.weight is model.encoder.embedding.weight
    again = load_pretrained(save_pretrained(model, tmp_path / 'again'))
    for (k, a), b in zip(model.state_dict().items(), again.state_dict().values()):
        assert torch.equal(a, b), k
    from safetensors import safe_open  # the matrix tied three ways is stored once
    with safe_open(tmp_path / 'again' / WEIGHTS_NAME, framework='pt') as f:
        assert 'generator.weight' not in f.keys()
    half = load_pretrained(save_pretrained(model, tmp_path / 'half', dtype=torch.float16))
    assert half.generator.weight is half.encoder.embedding.weight


def test_old_pt_directory_loads(tiny_model, tmp_path):
    model = load_pretrained(tiny_model(32))
    old = tmp_path / 'old'
    shutil.copytree(tiny_model(32), old)
    (old / WEIGHTS_NAME).unlink()
    torch.save(model.state_dict(), old / LEGACY_WEIGHTS_NAME)  # the format before 0.3
    again = load_pretrained(old)
    for a, b in zip(model.state_dict().values(), again.state_dict().values()):
        assert torch.equal(a, b)
    from transformer_nb.translation.translator import Translator
    assert isinstance(Translator.from_pretrained(old).translate('hola'), str)
    save_pretrained(again, old)  # saving again writes the new format, no stale model.pt
    assert (old / WEIGHTS_NAME).exists() and not (old / LEGACY_WEIGHTS_NAME).exists()


@pytest.mark.parametrize('content, needle', [
    (b'', 'is empty'),
    (b'\x08\x00\x00\x00\x00\x00\x00\x00{"a": 1}', 'not a readable safetensors file'),
    (b'garbage' * 100, 'not a readable safetensors file'),
], ids=['empty', 'bad header', 'garbage'])
def test_broken_safetensors_named(content, needle, tiny_model, tmp_path):
    from transformer_nb.model.transformer import ModelFileError
    d = tmp_path / 'broken'
    shutil.copytree(tiny_model(32), d)
    (d / WEIGHTS_NAME).write_bytes(content)
    with pytest.raises(ModelFileError, match=needle) as e:
        load_pretrained(d)
    assert str(d / WEIGHTS_NAME) in str(e.value)


def test_no_weights_names_both(tiny_model, tmp_path):
    d = tmp_path / 'none'
    shutil.copytree(tiny_model(32), d)
    (d / WEIGHTS_NAME).unlink()
    with pytest.raises(FileNotFoundError, match=f'no {WEIGHTS_NAME} or {LEGACY_WEIGHTS_NAME}'):
        load_pretrained(d)


def test_ct2_export_leaves_the_model_alone(book, tmp_path):
    "CTranslate2 quantises the arrays it is handed in place: the export must hand it copies."
    extra('ctranslate2')
    from transformer_nb.deploy.export import export_ct2
    before = {k: v.clone() for k, v in book.model.state_dict().items()}
    export_ct2(book.model, book.tok, tmp_path / 'q8', quantization='int8')
    after = book.model.state_dict()
    assert all(torch.equal(before[k], after[k]) for k in before)


def readme_flags(export: str) -> list:
    "The flags with which, the README says, `transformer-nb translate` gives an export's translations."
    import re, shlex
    from pathlib import Path
    text = (Path(__file__).resolve().parents[1] / 'README.md').read_text(encoding='utf-8')
    m = re.search(rf'The {export} export translates as `transformer-nb translate ([^`]+)` does', text)
    assert m, f"the README no longer says which flags give the {export} export's translations"
    return shlex.split(m.group(1))


def readme_hf_flags() -> list:
    return readme_flags('Hugging Face')


def test_readme_flags_give_the_hf_exports_translations(hf_dir, verses):
    "The README's recipe: the command with those flags prints what the export's `generate()` gives, verse by verse."
    transformers = extra('transformers')
    tok = transformers.AutoTokenizer.from_pretrained(hf_dir)
    theirs = [tok.decode(ids, skip_special_tokens=True).strip() for ids in hf_ids(hf_dir, verses[:10])]
    r = subprocess.run([sys.executable, '-m', 'transformer_nb.cli.translate', *readme_hf_flags()],
                       input='\n'.join(verses[:10]) + '\n', capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.splitlines() == theirs


def test_readme_flags_give_the_ct2_exports_translations(ct2_dir, book, verses):
    "The README's recipe for CTranslate2: the command with those flags prints what `translate_batch` gives."
    import ast, re
    from pathlib import Path
    ctranslate2 = extra('ctranslate2')
    text = (Path(__file__).resolve().parents[1] / 'README.md').read_text(encoding='utf-8')
    m = re.search(r'`translate_batch\(pieces, ([^)]+)\)`', text)
    assert m, 'the README no longer says how CTranslate2 is called'
    call = ast.parse(f'f({m.group(1)})', mode='eval').body
    kw = {k.arg: ast.literal_eval(k.value) for k in call.keywords}
    tr = ctranslate2.Translator(str(ct2_dir), device='cpu', intra_threads=2)
    res = tr.translate_batch([book.tok.pieces(v) for v in verses[:10]], **kw)
    theirs = [book.tok.sp.decode(r.hypotheses[0]) for r in res]
    r = subprocess.run([sys.executable, '-m', 'transformer_nb.cli.translate', *readme_flags('CTranslate2')],
                       input='\n'.join(verses[:10]) + '\n', capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.splitlines() == theirs
