"""Checkpoints of `transformer_nb.training.trainer`, through its command (`transformer_nb.cli.train`): Ctrl-C (SIGINT) saves one, and resuming reaches bit-identical weights."""
import signal, subprocess, sys, time
from pathlib import Path

import pytest
import torch

from transformer_nb.data.corpus import Tokenizer
from transformer_nb.training.runlog import read_log
from transformer_nb.training.recipe import TrainConfig, load_split
from transformer_nb.training.trainer import load_checkpoint

ROOT = Path(__file__).resolve().parents[1]
STEPS = 60  # the reference run's length; the interrupted run is stopped well before


@pytest.fixture(scope='module')
def tokenizer(tmp_path_factory):
    "One small tokenizer shared by every run, so that runs are comparable."
    pairs = load_split(TrainConfig.preset('tiny'), 'train')
    return str(Tokenizer.train(pairs.src + pairs.tgt, vocab_size=600).save(tmp_path_factory.mktemp('tok') / 'tok.model'))


def cli(out, tokenizer, *extra):
    return [sys.executable, '-m', 'transformer_nb.cli.train', '--preset', 'tiny', '--out-dir', str(out), '--tokenizer', tokenizer,
            '--threads', '1', '--dropout', '0.1', '--log-every', '1', '--eval-every', '25', '--save-every', '1000', *extra]


def run(args, timeout=300):
    return subprocess.run(args, cwd=ROOT, capture_output=True, text=True, timeout=timeout)


def test_sigint_saves_and_resume_is_bit_exact(tmp_path, tokenizer):
    ref = run(cli(tmp_path / 'ref', tokenizer, '--max-steps', str(STEPS)))
    assert ref.returncode == 0, ref.stderr[-2000:]
    # the same run, endless, interrupted with SIGINT once it has logged a few steps
    p = subprocess.Popen(cli(tmp_path / 'int', tokenizer, '--max-steps', '100000'), cwd=ROOT,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    log, deadline = tmp_path / 'int' / 'log.csv', time.time() + 240
    try:
        while time.time() < deadline:
            if p.poll() is not None: pytest.fail(f'training ended early: {p.stderr.read()[-2000:]}')
            if log.exists() and len(log.read_text().splitlines()) > 6: break  # header + 6 steps
            time.sleep(0.05)
        else: pytest.fail('the run logged nothing in time')
        p.send_signal(signal.SIGINT)
        _, err = p.communicate(timeout=120)
    finally:
        if p.poll() is None: p.kill()
    assert p.returncode == 130, err[-2000:]
    assert 'continue with: --resume' in err
    ckpt = load_checkpoint(tmp_path / 'int' / 'checkpoint.pt')  # weights_only=True
    stopped_at = ckpt['step']
    assert 6 <= stopped_at < STEPS, f'stopped at step {stopped_at}'
    assert not list((tmp_path / 'int').glob('*.tmp')), 'a temporary checkpoint file was left behind'
    # resume with the reference's limit: the flags given now override the run's own
    res = run([sys.executable, '-m', 'transformer_nb.cli.train', '--resume', '--out-dir', str(tmp_path / 'int'),
               '--max-steps', str(STEPS)])
    assert res.returncode == 0, res.stderr[-2000:]
    a = load_checkpoint(tmp_path / 'ref' / 'checkpoint.pt')
    b = load_checkpoint(tmp_path / 'int' / 'checkpoint.pt')
    assert a['step'] == b['step'] == STEPS
    for k, v in a['model'].items():
        assert torch.equal(v, b['model'][k]), f'{k} differs after resuming from step {stopped_at}'
    for ka, kb in zip(a['optimizer']['state'].values(), b['optimizer']['state'].values()):
        assert all(torch.equal(ka[n], kb[n]) for n in ka)
    # the training logs agree too (the resumed log dropped nothing before the checkpoint and duplicated nothing after)
    la, lb = read_log(tmp_path / 'ref' / 'log.csv'), read_log(tmp_path / 'int' / 'log.csv')
    assert la['train']['step'] == lb['train']['step'] == [float(s) for s in range(1, STEPS + 1)]
    assert la['train']['loss'] == lb['train']['loss']


def test_resume_refuses_a_different_setup(tmp_path, tokenizer):
    ok = run(cli(tmp_path / 'r', tokenizer, '--max-steps', '3', '--average-last', '1'))
    assert ok.returncode == 0, ok.stderr[-2000:]
    bad = run([sys.executable, '-m', 'transformer_nb.cli.train', '--resume', '--out-dir', str(tmp_path / 'r'), '--max-tokens', '1024'])
    assert bad.returncode != 0 and 'max_tokens: 512 -> 1024' in bad.stderr
    missing = run([sys.executable, '-m', 'transformer_nb.cli.train', '--resume', '--out-dir', str(tmp_path / 'nothing')])
    assert missing.returncode != 0 and 'no checkpoint' in missing.stderr
    # a new run in the same folder must say so; then the old checkpoints are deleted first
    again = run(cli(tmp_path / 'r', tokenizer, '--max-steps', '2', '--average-last', '1'))
    assert again.returncode != 0 and 'already holds a run' in again.stderr
    fresh = run(cli(tmp_path / 'r', tokenizer, '--max-steps', '2', '--average-last', '1', '--overwrite'))
    assert fresh.returncode == 0, fresh.stderr[-2000:]
    assert [p.name for p in sorted((tmp_path / 'r' / 'weights').iterdir())] == ['step_0000002.pt']
    assert load_checkpoint(tmp_path / 'r' / 'checkpoint.pt')['step'] == 2


def fused(state: dict) -> dict:
    "A state_dict as 0.6 wrote it: each attention's q_proj and kv_proj rows stacked in one in_proj."
    out = {}
    for k, v in state.items():
        if '.kv_proj.' in k:
            continue
        if '.q_proj.' in k:
            out[k.replace('.q_proj.', '.in_proj.')] = torch.cat([v, state[k.replace('.q_proj.', '.kv_proj.')]])
        else:
            out[k] = v
    return out


def test_a_checkpoint_of_the_fused_layout(tmp_path, tokenizer):
    "0.6 fused attention's input projections: its weights load; resuming says which version can, in one line."
    from transformer_nb.model.multihead import upgrade_state_dict
    ok = run(cli(tmp_path / 'r', tokenizer, '--max-steps', '2', '--average-last', '1'))
    assert ok.returncode == 0, ok.stderr[-2000:]
    ckpt = load_checkpoint(tmp_path / 'r' / 'checkpoint.pt')
    old = fused(ckpt['model'])
    assert any('.in_proj.' in k for k in old)
    new = upgrade_state_dict(old)  # what loading does with it: the same tensors, bit for bit
    assert sorted(new) == sorted(ckpt['model'])
    assert all(torch.equal(new[k], v) for k, v in ckpt['model'].items())
    torch.save({**ckpt, 'model': old}, tmp_path / 'r' / 'checkpoint.pt')
    bad = run([sys.executable, '-m', 'transformer_nb.cli.train', '--resume', '--out-dir', str(tmp_path / 'r'),
               '--max-steps', '4'])
    assert bad.returncode != 0 and 'transformer-nb 0.6' in bad.stderr, bad.stderr[-2000:]
    assert 'Traceback' not in bad.stderr


def test_the_command_reads_a_resumed_checkpoint_once(tmp_path, tokenizer, monkeypatch):
    "`train --resume` reads checkpoint.pt once: for the run's settings and for the trainer's state alike."
    from transformer_nb.training import checkpoint, trainer as train
    from transformer_nb.cli import train as train_cli
    ok = run(cli(tmp_path / 'r', tokenizer, '--max-steps', '2', '--average-last', '1'))
    assert ok.returncode == 0, ok.stderr[-2000:]
    reads = []
    def counted(path, *args, **kw):
        reads.append(Path(path).name)
        return checkpoint.load_checkpoint(path, *args, **kw)
    for module in (train, train_cli):  # each module's own name for it
        monkeypatch.setattr(module, 'load_checkpoint', counted)
    assert train_cli.main(['--resume', '--out-dir', str(tmp_path / 'r'), '--max-steps', '3', '--threads', '1']) == 0
    assert reads == ['checkpoint.pt']
    assert load_checkpoint(tmp_path / 'r' / 'checkpoint.pt')['step'] == 3


SAVE_INTERRUPTED = '''
import os, signal, sys, torch
from transformer_nb.cli.train import main
from transformer_nb.utils import run_main

save = torch.save


def ctrl_c_twice_mid_save(obj, f, *args, **kw):
    "The first periodic checkpoint: two SIGINTs while it is written, as a user pressing Ctrl-C twice."
    if getattr(f, 'name', '').endswith('checkpoint.pt.tmp') and not getattr(ctrl_c_twice_mid_save, 'done', 0):
        ctrl_c_twice_mid_save.done = 1
        os.kill(os.getpid(), signal.SIGINT)
        os.kill(os.getpid(), signal.SIGINT)
    return save(obj, f, *args, **kw)


torch.save = ctrl_c_twice_mid_save
sys.exit(run_main(main, prog='transformer-nb train'))
'''


def test_second_ctrl_c_during_a_save_is_clean(tmp_path, tokenizer):
    """Ctrl-C twice while a periodic checkpoint is written: the write finishes whole, then the run stops at once,
    exit status 130, no traceback and no error; the checkpoint loads and the run resumes from it."""
    args = cli(tmp_path / 'run', tokenizer, '--max-steps', '40', '--save-every', '5')[3:]
    r = run([sys.executable, '-c', SAVE_INTERRUPTED, *args])
    assert r.returncode == 130, r.stderr[-2000:]
    assert 'Traceback' not in r.stderr and 'error' not in r.stderr, r.stderr[-2000:]
    assert f'stopped by a signal at step 5; continue with: --resume --out-dir {tmp_path / "run"}' in r.stderr
    assert load_checkpoint(tmp_path / 'run' / 'checkpoint.pt')['step'] == 5
    assert not list((tmp_path / 'run').glob('*.tmp'))
    resumed = run(cli(tmp_path / 'run', tokenizer, '--resume', '--max-steps', '8'))
    assert resumed.returncode == 0, resumed.stderr[-2000:]
