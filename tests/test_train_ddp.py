"""Distributed data parallel through torchrun on the CPU (gloo, localhost): two processes with one batch each reach the
weights of one process that accumulates the same two batches, and so does one process alone under torchrun (in DDP,
its first batch under no_sync): the path a one-GPU machine takes."""
import os, subprocess, sys
from pathlib import Path

import pytest
import torch.distributed as dist

from transformer_nb.data.corpus import Tokenizer
from transformer_nb.training.runlog import read_log
from transformer_nb.training.recipe import TrainConfig, load_split
from transformer_nb.training.trainer import load_checkpoint

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.skipif(not dist.is_available() or not dist.is_gloo_available(), reason='needs torch.distributed with gloo')
STEPS = 5


def test_two_processes_match_one_with_accumulation(tmp_path):
    pairs = load_split(TrainConfig.preset('tiny'), 'train')
    tok = str(Tokenizer.train(pairs.src + pairs.tgt, vocab_size=600).save(tmp_path / 'tok.model'))
    common = ['-m', 'transformer_nb.cli.train', '--preset', 'tiny', '--tokenizer', tok, '--dropout', '0', '--threads', '1',
              '--max-steps', str(STEPS), '--log-every', '1', '--eval-every', '1000', '--save-every', '1000', '--average-last', '1']
    env = {**os.environ, 'MASTER_ADDR': '127.0.0.1', 'GLOO_SOCKET_IFNAME': 'lo', 'OMP_NUM_THREADS': '1'}
    one = subprocess.run([sys.executable, *common, '--out-dir', str(tmp_path / 'one'), '--accum-steps', '2'],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert one.returncode == 0, one.stderr[-3000:]
    assert 'distributed:' not in one.stderr  # no torchrun, no process group
    torchrun = [sys.executable, '-m', 'torch.distributed.run', '--standalone', '--nnodes=1']
    two = subprocess.run([*torchrun, '--nproc_per_node=2', *common, '--out-dir', str(tmp_path / 'two'),
                          '--accum-steps', '1'], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert two.returncode == 0, two.stderr[-3000:]
    assert 'distributed: 2 processes (gloo)' in two.stderr
    alone = subprocess.run([*torchrun, '--nproc_per_node=1', *common, '--out-dir', str(tmp_path / 'alone'),
                            '--accum-steps', '2'], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert alone.returncode == 0, alone.stderr[-3000:]
    assert 'distributed: 1 process (gloo)' in alone.stderr
    a, b = load_checkpoint(tmp_path / 'one' / 'checkpoint.pt'), load_checkpoint(tmp_path / 'two' / 'checkpoint.pt')
    c = load_checkpoint(tmp_path / 'alone' / 'checkpoint.pt')
    assert c['step'] == STEPS and len(c['rng']) == 1
    worst_alone = max((a['model'][k] - c['model'][k]).abs().max().item() for k in a['model'])
    print(f'max |w_1proc - w_1proc_ddp| after {STEPS} updates: {worst_alone:.2e}')
    assert worst_alone < 1e-6
    assert a['step'] == b['step'] == STEPS
    assert len(b['rng']) == 2  # one random state per process
    worst = max((a['model'][k] - b['model'][k]).abs().max().item() for k in a['model'])
    print(f'max |w_1proc - w_2proc| after {STEPS} updates: {worst:.2e}')
    assert worst < 1e-5
    # the same tokens were seen, and the logged losses (summed over both processes) agree
    la, lb = read_log(tmp_path / 'one' / 'log.csv')['train'], read_log(tmp_path / 'two' / 'log.csv')['train']
    assert la['tokens'] == lb['tokens']
    assert max(abs(x - y) for x, y in zip(la['loss'], lb['loss'])) < 1e-4
    assert lb['loss'][-1] < lb['loss'][0] - 0.2  # and it did train


def test_no_process_group_without_torchrun(tmp_path, monkeypatch):
    "A platform's stray MASTER_ADDR and WORLD_SIZE=1, without torchrun's RANK and MASTER_PORT: no process group."
    from transformer_nb.training.trainer import Trainer
    monkeypatch.setenv('MASTER_ADDR', '127.0.0.1')
    monkeypatch.setenv('WORLD_SIZE', '1')
    for k in ('RANK', 'MASTER_PORT'):
        monkeypatch.delenv(k, raising=False)
    trainer = Trainer(TrainConfig.preset('tiny', out_dir=str(tmp_path / 'run'), device='cpu'), overwrite=True)
    assert not trainer.ddp and not dist.is_initialized()
