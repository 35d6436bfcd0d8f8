"""The training command line, `transformer-nb train` (`python -m transformer_nb.cli.train`), run from a subprocess on a tiny subset."""
import json, subprocess, sys
from pathlib import Path

import torch

from transformer_nb.model.transformer import load_pretrained
from transformer_nb.training.runlog import read_log
from transformer_nb.training.trainer import load_checkpoint

ROOT = Path(__file__).resolve().parents[1]


def train(*args, timeout=600):
    return subprocess.run([sys.executable, '-m', 'transformer_nb.cli.train', *args], cwd=ROOT, capture_output=True, text=True, timeout=timeout)


def test_help_lists_the_config_flags():
    r = train('--help')
    assert r.returncode == 0
    for flag in ('--preset', '--resume', '--max-tokens', '--accum-steps', '--time-budget', '--precision', '--compile', '--average'):
        assert flag in r.stdout


def test_bad_flags_are_refused():
    assert train('--max-tokens', 'many').returncode == 2
    r = train('--preset', 'tiny', '--direction', 'de-en')
    assert r.returncode != 0 and "'es-en', 'en-es'" in r.stderr


def test_train_export_score_and_average(tmp_path):
    out, model_dir = tmp_path / 'run', tmp_path / 'model'
    r = train('--preset', 'tiny', '--out-dir', str(out), '--max-steps', '8', '--save-every', '4', '--eval-every', '4',
              '--threads', '1', '--export', str(model_dir), '--bleu')
    assert r.returncode == 0, r.stderr[-3000:]
    summary = json.loads(r.stdout.splitlines()[0])
    assert summary['stopped'] == 'max_steps' and summary['step'] == 8
    # the precision it computes in, and why, said at the start and kept beside the model
    from transformer_nb.training.recipe import precision_reason
    used = precision_reason('auto', torch.device('cpu'))
    assert f'precision: {used}' in r.stderr.splitlines(), r.stderr[-2000:]
    assert json.loads((model_dir / 'training_config.json').read_text())['precision_used'] == used
    log = read_log(out / 'log.csv')
    assert [int(s) for s in log['train']['step']] == [5] and [int(s) for s in log['valid']['step']] == [4, 8]
    assert 'valid_avg' in log  # the last two snapshots were averaged
    # the export loads through the normal path, with float16 weights on disk
    model = load_pretrained(model_dir)
    assert model.config.d_model == 64 and next(model.parameters()).dtype == torch.float32
    from safetensors import safe_open
    with safe_open(model_dir / 'model.safetensors', framework='pt') as f:
        state = {k: f.get_tensor(k) for k in f.keys()}
        tied = json.loads(f.metadata()['tied'])
    assert all(v.dtype == torch.float16 for v in state.values() if v.is_floating_point())
    assert 'generator.weight' in tied and 'generator.weight' not in state  # stored once
    assert (model_dir / 'tokenizer.model').exists() and (model_dir / 'training_log.csv').exists()
    scores = json.loads((model_dir / 'bleu.json').read_text())
    assert scores['test']['n'] == 1275 and scores['seven_books']['n'] == 505
    assert scores['test']['bleu_signature'].startswith('nrefs:1|case:mixed') and 'chrf' in scores['seven_books']
    assert len((model_dir / 'hyp.seven_books.txt').read_text().splitlines()) == 505
    # checkpoint averaging from the command line
    snaps = sorted((out / 'weights').glob('step_*.pt'))
    r = train('--average', *map(str, snaps), '--average-out', str(tmp_path / 'avg.pt'))
    assert r.returncode == 0, r.stderr[-2000:]
    avg, a, b = (load_checkpoint(p) for p in (tmp_path / 'avg.pt', *snaps))
    k = 'encoder.layers.0.ff.linear1.weight'
    assert torch.allclose(avg[k], (a[k] + b[k]) / 2, atol=1e-7)
    assert torch.equal(avg[k], load_checkpoint(out / 'averaged.pt')[k])  # what the run itself averaged


def test_export_never_replaces_a_model_silently(tmp_path):
    "A folder that holds a model, the shipped one above all, is replaced only with --overwrite."
    from transformer_nb.model.transformer import pretrained_path
    shipped = pretrained_path('book')
    before = (shipped / 'model.safetensors').stat().st_mtime_ns
    r = train('--preset', 'tiny', '--out-dir', str(tmp_path / 'run'), '--export', str(shipped))
    assert r.returncode == 2 and 'holds the shipped model already' in r.stderr and '--overwrite' in r.stderr
    assert (shipped / 'model.safetensors').stat().st_mtime_ns == before and not (tmp_path / 'run').exists()
    mine = tmp_path / 'mine'
    mine.mkdir()
    (mine / 'config.json').write_text('{}')
    r = train('--preset', 'tiny', '--out-dir', str(tmp_path / 'run'), '--export', str(mine))
    assert r.returncode == 2 and f'--export {mine} holds a model already' in r.stderr


def test_unwritable_folders_are_refused_before_training(tmp_path):
    """A folder that cannot be written (in /proc, which no one may write, root included) is one line and exit
    status 2 before any data is loaded: the run's folder is never made."""
    import pytest
    if not Path('/proc/self').is_dir():
        pytest.skip('no /proc on this system')
    cases = {'--export': ['--out-dir', str(tmp_path / 'run'), '--export', '/proc/transformer_nb/model'],
             '--out-dir': ['--out-dir', '/proc/transformer_nb/run']}
    for flag, args in cases.items():
        r = train('--preset', 'tiny', *args)
        assert r.returncode == 2 and len(r.stderr.splitlines()) == 1, r.stderr
        assert f'{flag} /proc/transformer_nb/' in r.stderr and 'cannot write in /proc' in r.stderr, r.stderr
    assert not (tmp_path / 'run').exists()
