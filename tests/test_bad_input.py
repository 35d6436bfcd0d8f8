"""Every bad input gets a clear message: each case runs a command (in this process,
through the `transformer-nb` entry point, or in a fresh one where the exit path
matters) or a Python loader, and asserts the exit status, the one-line message that
names the flag or file, that no traceback is shown, and that nothing was written or
lost."""

import json, os, shutil, signal, subprocess, sys
from pathlib import Path

import pytest

torch = pytest.importorskip('torch')
from transformer_nb.cli.main import main as cli
from transformer_nb.data.corpus import Tokenizer
from transformer_nb.model.transformer import (
    CONFIG_NAME,
    LEGACY_WEIGHTS_NAME,
    WEIGHTS_NAME,
    ModelFileError,
    Transformer,
    TransformerConfig,
)

ROOT = Path(__file__).resolve().parents[1]


class Evil:
    "A pickle that would run a command when loaded without weights_only."

    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f'touch {self.marker}',))


@pytest.fixture(scope='module')
def model_dir(tiny_model):
    "A random tiny model and its tokenizer, saved with save_pretrained."
    return tiny_model(32)


def call(capsys, *argv):
    "transformer-nb ARGV in this process: (status, stdout, stderr)."
    status = cli(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def expect(capsys, status, needles, *argv):
    "Check the status, that one stderr line names each needle, and no traceback."
    got, out, err = call(capsys, *argv)
    assert got == status, (got, err)
    assert 'Traceback' not in err
    lines = [l for l in err.splitlines() if 'error:' in l]
    assert len(lines) == 1, err
    for n in needles:
        assert n in lines[0], (n, lines[0])
    return out, err


def broken_copy(model_dir, tmp_path, name, content):
    "A copy of the good model directory with one file replaced."
    d = tmp_path / 'broken'
    shutil.copytree(model_dir, d)
    target = d / name
    if name == LEGACY_WEIGHTS_NAME:  # an older model folder: model.pt instead of safetensors
        (d / WEIGHTS_NAME).unlink()
    if content is None:
        target.unlink()
    elif isinstance(content, bytes):
        target.write_bytes(content)
    elif isinstance(content, str):
        target.write_text(content)
    else:
        torch.save(content, target)
    return d


def config_with(model_dir, **changes) -> str:
    meta = json.loads((model_dir / CONFIG_NAME).read_text())
    meta['config'].update(changes)
    return json.dumps(meta)


# ------------------------------------------------------ translate: broken model folders
BROKEN = {
    'empty weights': (WEIGHTS_NAME, b'', 'is empty'),
    'garbage weights': (WEIGHTS_NAME, os.urandom(4000), 'not a readable safetensors file'),
    'text as weights': (WEIGHTS_NAME, 'hello world\n', 'not a readable safetensors file'),
    'no weights file': (WEIGHTS_NAME, None, 'no model.safetensors or model.pt there'),
    'old weights empty': (LEGACY_WEIGHTS_NAME, b'', 'model.pt is empty'),
    'old weights garbage': (LEGACY_WEIGHTS_NAME, os.urandom(4000), 'not a readable PyTorch file'),
    'a pickled list': (LEGACY_WEIGHTS_NAME, [1, 2, 3], 'holds a list'),
    'a tensor': (LEGACY_WEIGHTS_NAME, torch.ones(3), 'holds a Tensor'),
    'a dict of numbers': (LEGACY_WEIGHTS_NAME, {'w': 1}, 'not a dict of tensors'),
    'config a list': (CONFIG_NAME, '[1, 2]', 'not a transformer_nb config'),
    'config not JSON': (CONFIG_NAME, '{"format": ', 'not valid JSON'),
    'config binary': (CONFIG_NAME, b'\xff\xfe\x00', 'not a text file'),
    'config no format': (CONFIG_NAME, '{"config": {}}', 'not a transformer_nb config'),
    'no config file': (CONFIG_NAME, None, 'config.json not found'),
    'no tokenizer': ('tokenizer.model', None, 'tokenizer.model not found'),
    'garbage tokenizer': (
        'tokenizer.model',
        b'not sentencepiece',
        'not a SentencePiece model',
    ),
}


@pytest.mark.parametrize('case', BROKEN, ids=list(BROKEN))
def test_translate_broken_model(case, model_dir, tmp_path, capsys):
    name, content, needle = BROKEN[case]
    d = broken_copy(model_dir, tmp_path, name, content)
    expect(
        capsys,
        1,
        ['cannot load the model', needle, str(d)],
        'translate',
        '--checkpoint',
        str(d),
        'hola',
    )


CONFIGS = {
    'config null': ({'config': None}, '"config" must be an object'),
    'dropout a string': ({'dropout': '0.1'}, 'dropout must be float'),
    'layer_norm_eps a word': (
        {'layer_norm_eps': 'tiny'},
        'layer_norm_eps must be float',
    ),
    'layers a bool': ({'n_encoder_layers': True}, 'n_encoder_layers must be int'),
    'unknown field': ({'n_experts': 8}, 'unknown configuration fields'),
    'negative eps': ({'layer_norm_eps': -1.0}, 'layer_norm_eps must be positive'),
    'other sizes': ({'d_ff': 128}, 'does not fit its config.json'),
    'unknown activation': ({'activation': 'swish'}, 'activation must be one of'),
}


@pytest.mark.parametrize('case', CONFIGS, ids=list(CONFIGS))
def test_translate_bad_config(case, model_dir, tmp_path, capsys):
    changes, needle = CONFIGS[case]
    if 'config' in changes:
        meta = json.loads((model_dir / CONFIG_NAME).read_text())
        meta.update(changes)
        text = json.dumps(meta)
    else:
        text = config_with(model_dir, **changes)
    d = broken_copy(model_dir, tmp_path, CONFIG_NAME, text)
    expect(
        capsys,
        1,
        ['cannot load the model', 'config.json', needle],
        'translate',
        '--checkpoint',
        str(d),
        'x',
    )


def test_translate_refuses_pickled_code(model_dir, tmp_path, capsys):
    marker = tmp_path / 'ran'
    d = broken_copy(model_dir, tmp_path, LEGACY_WEIGHTS_NAME, {'w': Evil(marker)})
    expect(
        capsys,
        1,
        ['holds Python objects', 'weights_only'],
        'translate',
        '--checkpoint',
        str(d),
        'x',
    )
    assert not marker.exists()


def test_translate_missing_folder(tmp_path, capsys):
    expect(
        capsys,
        2,
        ['--checkpoint', 'nothing', "the shipped models: 'book'"],
        'translate',
        '--checkpoint',
        str(tmp_path / 'nothing'),
        'hola',
    )


@pytest.mark.parametrize('command', ['translate', 'evaluate'])
def test_one_status_for_one_mistake(command, tmp_path, capsys):
    "The same mistake through every subcommand that takes it: the same status (2), the flag named."
    data = ['hola'] if command == 'translate' else ['--bible-split', 'test', '--limit', '2']
    expect(capsys, 2, ['--checkpoint', 'nowhere'], command, '--checkpoint', str(tmp_path / 'nowhere'), *data)
    expect(capsys, 2, ['--max-new-tokens 100000', 'at most'], command, '--max-new-tokens', '100000', *data)
    expect(capsys, 2, ['--num-beams' if command == 'translate' else '--beams'],
           command, '--num-beams' if command == 'translate' else '--beams', '0', *data)


def test_export_missing_model_is_a_flag_given_wrong(tmp_path, capsys):
    "A model folder that does not exist, through export as through translate and evaluate: status 2, the flag named."
    nowhere = str(tmp_path / 'nowhere')
    expect(capsys, 2, ['--checkpoint', 'not a directory'], 'export', '--to', 'ct2', '--checkpoint', nowhere,
           str(tmp_path / 'out'))


def test_translate_training_run_folder(tmp_path, capsys, model_dir):
    run = tmp_path / 'run'
    run.mkdir()
    shutil.copy(model_dir / 'tokenizer.model', run)
    torch.save({'format': 'transformer_nb.training.trainer'}, run / 'checkpoint.pt')
    expect(
        capsys,
        1,
        ['training run', '--export'],
        'translate',
        '--checkpoint',
        str(run),
        'x',
    )


# ---------------------------------------------------------------- translate: flags
FLAGS = {
    'length penalty 1000': (['--length-penalty', '1000'], '--length-penalty'),
    'length penalty nan': (['--length-penalty', 'nan'], '--length-penalty'),
    'length penalty -inf': (['--length-penalty', '-inf'], '--length-penalty'),
    'length penalty word': (['--length-penalty', 'long'], '--length-penalty'),
    'beams 0': (['--beams', '0'], '--beams'),
    'beams word': (['--beams', 'two'], '--beams'),
    'max new tokens 0': (['--max-new-tokens', '0'], '--max-new-tokens'),
    'no repeat ngram negative': (['--no-repeat-ngram-size', '-1'], '--no-repeat-ngram-size'),
    'no repeat ngram word': (['--no-repeat-ngram-size', 'four'], '--no-repeat-ngram-size'),
    'rerank unknown': (['--rerank', 'best'], '--rerank'),
    'batch size negative': (['--batch-size', '-3'], '--batch-size'),
    'device gpu': (['--device', 'gpu'], "did you mean 'cuda'"),
    'device tpu': (['--device', 'tpu'], '--device'),
    'unknown flag': (['--frobnicate'], 'unrecognized arguments'),
}


@pytest.mark.parametrize('case', FLAGS, ids=list(FLAGS))
def test_translate_bad_flag(case, model_dir, capsys):
    argv, needle = FLAGS[case]
    expect(
        capsys, 2, [needle], 'translate', '--checkpoint', str(model_dir), *argv, 'hola'
    )


@pytest.mark.skipif(torch.cuda.is_available(), reason='CUDA is available here')
def test_translate_cuda_missing(model_dir, capsys):
    expect(
        capsys,
        2,
        ['--device', 'CUDA is not available'],
        'translate',
        '--checkpoint',
        str(model_dir),
        '--device',
        'cuda',
        'hola',
    )


def run_translate(model_dir, stdin: bytes, *args):
    "python -m transformer_nb.cli.translate in a fresh process, raw bytes in and out."
    env = {**os.environ, 'OMP_NUM_THREADS': '1'}
    return subprocess.run(
        [
            sys.executable,
            '-m',
            'transformer_nb.cli.translate',
            '--checkpoint',
            str(model_dir),
            '--max-new-tokens',
            '4',
            *args,
        ],
        input=stdin,
        capture_output=True,
        env=env,
        cwd=ROOT,
        timeout=300,
    )


SEPARATORS = ['\x0b', '\x0c', '\x1c', '\x1d', '\x1e', '\x85', '\u2028', '\u2029']


def test_translate_lines_split_at_newlines_only(model_dir):
    """A character str.splitlines breaks at stays in its line: a line out per line in (one
    line per separator, in one run of the command)."""
    lines = [f'uno{sep}dos' for sep in SEPARATORS] + ['tres']
    r = run_translate(model_dir, ('\n'.join(lines) + '\n').encode('utf-8'))
    assert r.returncode == 0, r.stderr
    out = r.stdout.decode('utf-8').split('\n')
    assert len(out) == len(lines) + 1, out  # a line per line and the final newline


def test_translate_crlf_and_odd_text(model_dir):
    "Windows line ends, control characters, bad UTF-8 and lone surrogates translate."
    r = run_translate(model_dir, b'uno\r\ndos\x00\x07 tres\r\n\xff\xfe cuatro\n')
    assert r.returncode == 0 and b'Traceback' not in r.stderr, r.stderr
    assert r.stdout.count(b'\n') == 3
    r = run_translate(
        model_dir, b'', os.fsdecode(b'caf\xe9 y pan')
    )  # an argument that was not UTF-8
    assert r.returncode == 0 and r.stdout.count(b'\n') == 1, r.stderr


def test_debug_shows_the_traceback(tmp_path):
    "--debug (or TRANSFORMER_NB_DEBUG=1) keeps the traceback for a bug report."
    r = subprocess.run(
        [
            sys.executable,
            '-m',
            'transformer_nb.cli.main',
            'translate',
            '--debug',
            '--checkpoint',
            str(tmp_path),  # a folder without a model: its config.json is missing
            'x',
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )
    assert (
        r.returncode == 1
        and 'Traceback' in r.stderr
        and 'FileNotFoundError' in r.stderr
    )


# ---------------------------------------------------------------- evaluate
def test_evaluate_bad_flags(model_dir, tmp_path, capsys):
    ckpt = ['--checkpoint', str(model_dir)]
    one = tmp_path / 'one.tsv'
    one.write_text('uno\tone\n')
    binary = tmp_path / 'binary.tsv'
    binary.write_bytes(os.urandom(3000))
    cases = [
        ([], 'one of the arguments --tsv --bible-split is required'),
        (['--tsv', str(tmp_path / 'none.tsv')], '--tsv'),
        (['--bible-split', 'test', '--beams', '0'], '--beams'),
        (['--bible-split', 'test', '--length-penalty', 'inf'], '--length-penalty'),
        (['--bible-split', 'test', '--no-repeat-ngram-size', '-2'], '--no-repeat-ngram-size'),
        (['--bible-split', 'test', '--rerank', 'yes'], '--rerank'),
        (['--bible-split', 'test', '--limit', '0'], '--limit'),
        (['--bible-split', 'test', '--batch-size', '0'], '--batch-size'),
        (
            ['--tsv', str(one), '--src-col', '1', '--tgt-col', '1'],
            'two different columns',
        ),
        (['--tsv', str(one), '--src-col', '-1'], '--src-col'),
        (['--tsv', str(one), '--books', 'Ruth'], '--books needs --bible-split'),
        (['--bible-split', 'test', '--books', 'Nope'], "unknown book ids ['Nope']"),
        (
            ['--bible-split', 'test', '--hypotheses', '/proc/none/h.txt'],
            '--hypotheses /proc/none: cannot write in /proc',
        ),
        (['--bible-split', 'nope'], 'invalid choice'),
    ]
    for argv, needle in cases:
        expect(capsys, 2, [needle], 'evaluate', *ckpt, *argv)
    with pytest.warns(UserWarning, match='skipped'):
        expect(
            capsys, 2, ['no sentence pairs'], 'evaluate', *ckpt, '--tsv', str(binary)
        )


def test_evaluate_broken_model(model_dir, tmp_path, capsys):
    d = broken_copy(model_dir, tmp_path, WEIGHTS_NAME, b'')
    expect(
        capsys,
        1,
        ['model.safetensors is empty'],
        'evaluate',
        '--checkpoint',
        str(d),
        '--bible-split',
        'test',
        '--limit',
        '2',
    )


def test_evaluate_missing_and_training_run(tmp_path, capsys):
    expect(
        capsys,
        2,
        ['--checkpoint', 'not a model saved'],
        'evaluate',
        '--checkpoint',
        str(tmp_path),
        '--bible-split',
        'test',
    )
    (tmp_path / 'checkpoint.pt').write_bytes(b'')
    (tmp_path / 'tokenizer.model').write_bytes(b'')
    expect(
        capsys,
        2,
        ['training run', '--export'],
        'evaluate',
        '--checkpoint',
        str(tmp_path),
        '--bible-split',
        'test',
    )


# ---------------------------------------------------------------- train
def test_train_usage_errors_write_nothing(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    out = ['--out-dir', str(tmp_path / 'run')]
    cases = [
        ([], '--max-steps N'),
        (['--model', 'huge', '--max-steps', '1'], "invalid choice: 'huge'"),
        (['--max-steps', '0'], '--max-steps'),
        (['--time-budget', 'soon'], '--time-budget'),
        (['--time-budget', '-5'], '--time-budget'),
        (['--dropout', '1.5', '--max-steps', '1'], '--dropout'),
        (['--label-smoothing', '1', '--max-steps', '1'], '--label-smoothing'),
        (['--precision', 'fp8', '--max-steps', '1'], "invalid choice: 'fp8'"),
        (['--device', 'gpu', '--max-steps', '1'], "did you mean 'cuda'"),
        (['--model-overrides', '{bad', '--max-steps', '1'], 'not JSON'),
        (['--model-overrides', '{"n_experts": 8}', '--max-steps', '1'], 'n_experts'),
        (
            ['--keep-checkpoints', '2', '--average-last', '5', '--max-steps', '1'],
            'keep_checkpoints',
        ),
        (['--average', 'a.pt', 'b.pt'], '--average needs --average-out'),
        (['--resume'], '--resume: no checkpoint.pt'),
        (['--max-steps', '1', '--export', str(Path(__file__))], '--export'),
    ]
    for argv, needle in cases:
        expect(capsys, 2, [needle], 'train', *out, *argv)
    assert not (tmp_path / 'run').exists() and not (tmp_path / 'runs').exists()


def test_train_missing_files(tmp_path, capsys):
    "A file given wrong: status 2 and the flag named, before the run folder is touched."
    for flag in ('--corpus', '--tokenizer'):
        expect(
            capsys,
            2,
            [flag, 'no such file'],
            'train',
            '--max-steps',
            '1',
            '--out-dir',
            str(tmp_path / 'run'),
            flag,
            str(tmp_path / 'none'),
        )
    assert not (tmp_path / 'run' / 'tokenizer.model').exists()


def checkpoints(tmp_path):
    "Broken checkpoints of several kinds, by name."
    marker = tmp_path / 'ran'
    files = {'garbage': os.urandom(2000), 'empty': b''}
    for name, data in files.items():
        (tmp_path / f'{name}.pt').write_bytes(data)
    torch.save({'w': Evil(marker)}, tmp_path / 'evil.pt')
    torch.save({'a': torch.ones(2)}, tmp_path / 'weights.pt')
    torch.save(
        {'format': 'transformer_nb.training.trainer', 'step': 3}, tmp_path / 'incomplete.pt'
    )
    torch.save([1, 2], tmp_path / 'list.pt')
    return marker


@pytest.mark.parametrize(
    'name,status,needle',
    [
        ('garbage', 1, 'not a readable PyTorch file'),
        ('empty', 1, 'is empty'),
        ('evil', 1, 'holds Python objects'),
        ('weights', 1, 'not a transformer_nb training checkpoint'),
        ('incomplete', 1, 'is incomplete: no elapsed'),
        ('list', 1, 'holds a list'),
    ],
)
def test_train_resume_broken_checkpoint(name, status, needle, tmp_path, capsys):
    marker = checkpoints(tmp_path)
    run = tmp_path / 'run'
    run.mkdir()
    shutil.copy(tmp_path / f'{name}.pt', run / 'checkpoint.pt')
    before = (run / 'checkpoint.pt').read_bytes()
    expect(
        capsys,
        status,
        [needle, 'checkpoint.pt'],
        'train',
        '--resume',
        '--out-dir',
        str(run),
    )
    assert (run / 'checkpoint.pt').read_bytes() == before and not marker.exists()


@pytest.mark.parametrize(
    'name,needle',
    [
        ('garbage', 'not a readable PyTorch file'),
        ('evil', 'holds Python objects'),
        ('list', 'holds a list'),
        ('missing', 'no such checkpoint file'),
    ],
)
def test_train_average_bad_files(name, needle, tmp_path, capsys):
    checkpoints(tmp_path)
    expect(
        capsys,
        1,
        [needle, f'{name}.pt'],
        'train',
        '--average',
        str(tmp_path / 'weights.pt'),
        str(tmp_path / f'{name}.pt'),
        '--average-out',
        str(tmp_path / 'avg.pt'),
    )
    assert not (tmp_path / 'avg.pt').exists()


def test_train_reused_out_dir_is_kept(tmp_path, capsys):
    run = tmp_path / 'run'
    run.mkdir()
    (run / 'checkpoint.pt').write_bytes(b'an earlier run')
    expect(
        capsys,
        2,
        ['already holds a run', '--resume', '--overwrite', '--out-dir'],
        'train',
        '--preset',
        'tiny',
        '--out-dir',
        str(run),
    )
    assert (run / 'checkpoint.pt').read_bytes() == b'an earlier run'
    assert sorted(p.name for p in run.iterdir()) == ['checkpoint.pt']


def test_train_help_describes_every_flag(capsys):
    status, out, _ = call(capsys, 'train', '--help')
    assert status == 0
    for text in (
        '--time-budget MINUTES',
        'minutes of training',
        'one of base, big, small, tiny',
        'one of auto, native, fp32, bf16, fp16',
        'default: runs/default',
        'presets (--preset NAME)',
        'book   model small',
    ):
        assert text in ' '.join(out.split()) or text in out, text
    from transformer_nb.training.recipe import TrainConfig
    from transformer_nb.cli.train import build_parser

    helps = [
        a.help
        for a in build_parser()._actions
        if a.dest in TrainConfig.__dataclass_fields__
    ]
    assert len(helps) == len(TrainConfig.__dataclass_fields__)
    assert all(
        h and not h.split(' (default')[0].replace('_', '').isidentifier() for h in helps
    )


def test_train_second_interrupt_during_final_save(tmp_path):
    "While the final checkpoint is written, Ctrl-C is noted and does not cut it short."
    from transformer_nb.training.trainer import Trainer

    tr = Trainer.__new__(Trainer)
    tr._stop_signal = None
    with tr._signals(defer=True):
        os.kill(os.getpid(), signal.SIGINT)
        os.kill(os.getpid(), signal.SIGINT)
    assert tr._stop_signal == signal.SIGINT


def test_train_removes_debris(tmp_path):
    "*.tmp files left by a killed save are removed when a run starts in the folder."
    from transformer_nb.training.checkpoint import remove_debris

    (tmp_path / 'weights').mkdir()
    for p in ('checkpoint.pt.tmp', 'weights/step_0000010.pt.tmp'):
        (tmp_path / p).write_bytes(b'x')
    (tmp_path / 'checkpoint.pt').write_bytes(b'keep')
    remove_debris(tmp_path)
    assert sorted(
        str(p.relative_to(tmp_path)) for p in tmp_path.rglob('*') if p.is_file()
    ) == ['checkpoint.pt']


# ---------------------------------------------------------------- data
def test_data_bad_flags(tmp_path, capsys):
    expect(capsys, 2, ['required: command'], 'data')
    expect(capsys, 2, ['invalid choice'], 'data', 'frobnicate')
    expect(
        capsys,
        2,
        ['--sword-path', 'apt-get install'],
        'data',
        'build',
        '--sword-path',
        str(tmp_path / 'none'),
    )
    expect(
        capsys,
        2,
        ['--out', 'does not exist'],
        'data',
        'build',
        '--out',
        str(tmp_path / 'no' / 'x.tsv.gz'),
    )
    assert not list(tmp_path.iterdir())


# ------------------------------------------------------ Python loaders and decoding
def test_python_loaders(model_dir, tmp_path):
    from transformer_nb.training.recipe import TrainConfig
    from transformer_nb.training.trainer import load_checkpoint
    from transformer_nb.translation.translator import Translator

    with pytest.raises(TypeError, match='dropout must be float'):
        TransformerConfig(dropout='0.1')
    with pytest.raises(TypeError, match='JSON object'):
        TransformerConfig.from_dict([1, 2])
    with pytest.raises(ValueError, match='model must be one of the presets'):
        TrainConfig(model='huge', max_steps=1)
    with pytest.raises(TypeError, match='max_steps must be int'):
        TrainConfig(max_steps='10')
    (tmp_path / 'bad.model').write_bytes(b'garbage')
    with pytest.raises(ModelFileError, match='bad.model: not a SentencePiece model'):
        Tokenizer.load(tmp_path / 'bad.model')
    marker = checkpoints(tmp_path)
    with pytest.raises(ModelFileError, match='holds Python objects'):
        load_checkpoint(tmp_path / 'evil.pt')
    assert not marker.exists()
    tr = Translator.from_pretrained(model_dir, max_new_tokens=3)
    for alpha in (float('nan'), float('inf'), 1000):
        with pytest.raises(ValueError, match=r'length_penalty must be None or a number in \[-10, 10\]'):
            tr.translate(['hola'], length_penalty=alpha)
    with pytest.raises(TypeError, match='length_penalty must be float'):
        tr.translate(['hola'], length_penalty='long')
    with pytest.raises(ValueError, match='length_penalty'):
        Translator.from_pretrained(model_dir, length_penalty=-50)
    assert (
        tr.translate(['caf\udce9 y pan', 'x\x00y'])
        and len(tr.translate(['a', 'b'])) == 2
    )


def test_greedy_never_emits_pad_or_bos(model_dir):
    "Even when pad and bos have the largest logits, greedy and sampling skip them."
    from transformer_nb.generation.cache import greedy_search, sample

    model = Transformer.from_pretrained(model_dir)
    c = model.config
    bump = torch.zeros(c.tgt_vocab)
    bump[[c.pad_token_id, c.bos_token_id]] = 100.0
    model.generator.register_forward_hook(lambda m, i, o: o + bump)
    src = torch.tensor([[10, 11, 12, c.eos_token_id]])
    for decode in (greedy_search, lambda *a, **k: sample(*a, **k, generator=torch.Generator().manual_seed(0))):
        out = decode(model, src, max_new_tokens=6)[0].tolist()
        assert len(out) == 6 and c.pad_token_id not in out and c.bos_token_id not in out, out
