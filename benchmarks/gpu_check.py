"""The GPU path, checked in one run: mixed precision, torch.compile, throughput and decoding.

    python benchmarks/gpu_check.py                    # on a CUDA device, a few minutes
    python benchmarks/gpu_check.py --device cpu --steps 20 --pairs 2000   # a smoke run anywhere

1. Training: the trainer of `transformer_nb.train` (autocast, GradScaler, torch.compile, MFU) trains
   the `small` model from the same initialisation on the same batches (same seed, dropout off) in
   float32, bf16 and fp16, and in bf16 with `torch.compile`. The mean training loss over the last
   half of the logged steps of each must lie within `--tolerance` (relative) of float32's.
2. Throughput: target tokens/s and MFU (6·P·tokens/s over the GPU's peak, `PEAK_FLOPS`) of each run,
   from the run's own log (the first logged interval, which holds compilation, left out).
3. Decoding: the book's shipped model translates the first `--verses` test verses greedily and with
   beam search (4 beams) on the CPU and on the device, in float32 (TF32 off): the tokens must agree.

The last line printed is JSON with every figure and `ok` (all checks passed).
"""
import argparse, json, math, statistics, sys, tempfile, time
from pathlib import Path

import torch

from transformer_nb.data import load_bible
from transformer_nb.evaluate import translate_ids
from transformer_nb.model import TOKENIZER_NAME, Transformer, pretrained_path
from transformer_nb.data import Tokenizer
from transformer_nb.runlog import read_log
from transformer_nb.recipe import TrainConfig
from transformer_nb.train import Trainer
from transformer_nb.utils import resolve_device


def train_run(args, out: Path, precision: str, compile: bool) -> dict:
    "One short training run; its loss curve and speed, read back from its log."
    tok = pretrained_path('book') / TOKENIZER_NAME
    cfg = TrainConfig(model='small', tokenizer=str(tok), dropout=0.0, max_steps=args.steps,
                      max_tokens=args.max_tokens, warmup=max(1, args.steps // 4), factor=1.0,
                      train_pairs=args.pairs, valid_pairs=200, log_every=args.log_every,
                      eval_every=None, save_every=None, keep_checkpoints=1, average_last=1,
                      device=args.device, precision=precision, compile=compile,
                      out_dir=str(out), progress=False)
    t0 = time.perf_counter()
    summary = Trainer(cfg, overwrite=True).fit()
    log = read_log(out / 'log.csv')['train']
    half = len(log['loss']) // 2
    speed = log['tokens_per_s'][1:] or log['tokens_per_s']  # the first interval holds compilation
    mfu = [m for m in log['mfu'][1:] if not math.isnan(m)]
    return {'loss_tail': statistics.mean(log['loss'][half:]), 'loss_curve': log['loss'],
            'tokens_per_s': statistics.median(speed), 'mfu': statistics.median(mfu) if mfu else None,
            'seconds': round(time.perf_counter() - t0, 1), 'steps': summary['step']}


def decode_check(args, device: torch.device) -> dict:
    "The shipped model on the CPU and on `device`: the same tokens, greedy and beam 4."
    torch.backends.cuda.matmul.allow_tf32 = False; torch.backends.cudnn.allow_tf32 = False
    tok = Tokenizer.load(pretrained_path('book'))
    verses = load_bible('test', src_lang='es').src[:args.verses]
    out = {}
    for beams in (1, 4):
        ids, secs = {}, {}
        for where in ('cpu', device):
            model = Transformer.from_pretrained('book').float().to(where).eval()
            t = time.perf_counter()
            ids[str(where)] = translate_ids(model, tok, verses, num_beams=beams)
            if torch.device(where).type == 'cuda': torch.cuda.synchronize()
            secs[str(where)] = time.perf_counter() - t
        cpu, dev = ids['cpu'], ids[str(device)]
        name = 'greedy' if beams == 1 else 'beam4'
        out[f'{name}_same_tokens'] = sum(a == b for a, b in zip(cpu, dev))
        out[f'{name}_speedup_vs_cpu'] = round(secs['cpu'] / secs[str(device)], 2)
    out['verses'] = len(verses)
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--device', default='cuda', help="'cuda' (default), 'cuda:1', 'mps' or 'cpu'")
    ap.add_argument('--steps', type=int, default=200, help='optimizer updates per training run')
    ap.add_argument('--max-tokens', type=int, default=8192, help='padded tokens per side per batch')
    ap.add_argument('--pairs', type=int, default=None, help='training pairs (default: all)')
    ap.add_argument('--log-every', type=int, default=10, help='steps per logged interval')
    ap.add_argument('--tolerance', type=float, default=0.02,
                    help='relative difference of the late training loss allowed against fp32')
    ap.add_argument('--verses', type=int, default=64, help='test verses decoded on both devices')
    args = ap.parse_args(argv)
    try: device = resolve_device(args.device)
    except (RuntimeError, ValueError) as e:
        print(f'gpu_check: --device {args.device}: {e}', file=sys.stderr); return 2
    cuda = device.type == 'cuda'
    variants = [('fp32', False), ('bf16', False)] + ([('fp16', False), ('bf16', True)] if cuda else [])
    res = {'device': torch.cuda.get_device_name(device) if cuda else str(device),
           'torch': torch.__version__, 'tolerance': args.tolerance}
    with tempfile.TemporaryDirectory() as tmp:
        runs = {f"{p}{'+compile' if c else ''}": train_run(args, Path(tmp) / f'{p}{c}', p, c)
                for p, c in variants}
    ref = runs['fp32']['loss_tail']
    ok = True
    for name, r in runs.items():
        rel = abs(r['loss_tail'] - ref) / ref
        ok &= rel <= args.tolerance
        res[name] = {'loss_tail': round(r['loss_tail'], 4), 'rel_diff_vs_fp32': round(rel, 4),
                     'tokens_per_s': round(r['tokens_per_s']), 'seconds': r['seconds'],
                     'mfu': None if r['mfu'] is None else round(r['mfu'], 4)}
        print(f"{name:14s} loss {r['loss_tail']:.4f} ({rel:+.2%} vs fp32)  "
              f"{r['tokens_per_s']:,.0f} tok/s  mfu {r['mfu']}  {r['seconds']} s", flush=True)
    if 'bf16+compile' in runs:
        res['compile_speedup_bf16'] = round(runs['bf16+compile']['tokens_per_s']
                                            / runs['bf16']['tokens_per_s'], 2)
    res.update(decode_check(args, device))  # on the CPU alone, a smoke test of the check itself
    ok &= res['greedy_same_tokens'] == res['verses'] and res['beam4_same_tokens'] == res['verses']
    res['ok'] = bool(ok)
    print(json.dumps(res))
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main())
