"""The GPU path, checked and measured in one run: mixed precision, torch.compile, fused Adam, DDP and decoding.

    python benchmarks/gpu_check.py            # on a CUDA GPU (about 6 minutes on an H100): writes data/gpu_check.json
    python benchmarks/gpu_check.py --quick --device cpu --out /tmp/gpu_check.json   # a smoke run of the script anywhere
    python benchmarks/gpu_check.py --only speed book     # some sections again, merged into the JSON already there

Each section is written to the JSON as soon as it is done (a run cut short keeps what it measured), in this order:

1. `system`: the GPU's name, memory and compute capability; torch, CUDA, cuDNN and NCCL versions; the driver;
   `device='auto'` resolving to the GPU.
2. `precision`: the trainer of `transformer_nb.training.trainer` trains the `small` model from the same initialisation on the
   same batches (same seed, dropout off) in float32 (TF32 off: the reference), bf16 and fp16 with the gradient scaler.
   Checks: every logged interval's mean loss lies within `--tolerance` (relative) of float32's; fp16 leaves no NaN or
   infinite weight, and the updates its scaler skipped (an overflow) are counted.
3. `decoding`: the book's shipped model decodes the first `--verses` test verses greedily and with beam search
   (4 beams), on the CPU and on the GPU, float32 with TF32 off, through `generate` (batches of 32 sorted by length,
   as `benchmarks/decode_speed.py` makes them); the tokens must agree. Hugging Face `generate` on a `MarianMTModel`
   copy of the same weights decodes the same batches on the GPU: its speed against ours, and how many outputs agree.
4. `ddp`: `torchrun --nproc_per_node=1` trains the `tiny` preset for 20 updates: the trainer joins an NCCL process
   group and wraps the model in DistributedDataParallel (the command says so on its standard error).
5. `book`: the `book` preset (the shipped model's recipe) for `--book-steps` updates with `device='auto'`, its
   validation and snapshots included; the time to its 10,000 updates extrapolated from it.
6. `speed`: target tokens/s, MFU (6·P·tokens/s over the GPU's bf16 peak, `PEAK_FLOPS`) and peak memory of the
   `small` and the paper's `base` model, bf16, eager and with `torch.compile` (the first logged interval, which holds
   the compilation, left out); and one Adam update of `base`'s parameters timed fused, multi-tensor (foreach) and
   per tensor. Check: the compiled runs' logged losses lie within `--tolerance` of the eager runs'.

The last line printed is JSON with every figure and `ok` (all checks passed); the exit status is 0 when ok.
"""
import argparse, json, math, os, platform, statistics, subprocess, sys, tempfile, time
from pathlib import Path

import torch

from transformer_nb.data.corpus import Tokenizer, load_bible
from transformer_nb.deploy.marian import marian_copy
from transformer_nb.model.transformer import TOKENIZER_NAME, Transformer, TransformerConfig, pretrained_path
from transformer_nb.training.recipe import TrainConfig
from transformer_nb.training.runlog import peak_flops, read_log
from transformer_nb.training.schedule import make_optimizer
from transformer_nb.training.trainer import Trainer
from transformer_nb.utils import cuda_bf16, resolve_device

from decode_speed import batches_of, decode_hf, decode_ours  # the same batches and settings

ROOT = Path(__file__).resolve().parents[1]
SECTIONS = ('system', 'precision', 'decoding', 'ddp', 'book', 'speed')


def sync(device):
    if torch.device(device).type == 'cuda': torch.cuda.synchronize(device)


def train_run(args, out: Path, **fields) -> tuple[dict, Trainer]:
    "One short training run of the shipped tokenizer's vocabulary: its log's figures, and the trainer."
    cfg = dict(model='small', tokenizer=str(pretrained_path('book') / TOKENIZER_NAME), dropout=0.0,
               max_steps=args.steps, max_tokens=args.max_tokens, warmup=max(1, args.steps // 4), factor=1.0,
               train_pairs=args.pairs, valid_pairs=200, log_every=args.log_every, eval_every=None,
               save_every=None, keep_checkpoints=1, average_last=1, device=args.device, out_dir=str(out),
               progress=False)
    if torch.cuda.is_available(): torch.cuda.reset_peak_memory_stats()
    t0 = time.perf_counter()
    trainer = Trainer(TrainConfig(**{**cfg, **fields}), overwrite=True)
    summary = trainer.fit()
    log = read_log(out / 'log.csv')['train']
    speed = log['tokens_per_s'][1:] or log['tokens_per_s']  # the first interval holds compilation
    mfu = [m for m in log['mfu'][1:] if not math.isnan(m)]
    res = {'loss_curve': [round(x, 4) for x in log['loss']], 'steps': summary['step'],
           'tokens_per_s': round(statistics.median(speed)), 'mfu': round(statistics.median(mfu), 4) if mfu else None,
           'seconds': round(time.perf_counter() - t0, 1), 'params': trainer.n_params,
           'fused_adam': bool(trainer.optimizer.defaults.get('fused')),
           'peak_memory_gib': round(torch.cuda.max_memory_allocated() / 2**30, 2)
           if trainer.device.type == 'cuda' else None}
    return res, trainer


def system(args, device) -> dict:
    "What the figures were measured on, and whether device='auto' finds the GPU."
    res = {'torch': torch.__version__, 'cuda': torch.version.cuda, 'python': platform.python_version(),
           'cpu_cores': os.cpu_count(), 'device': str(device), 'auto_device': str(resolve_device('auto')),
           'peak_flops': peak_flops(device)}  # MFU's denominator: the bf16 tensor-core peak
    if device.type == 'cuda':
        p = torch.cuda.get_device_properties(device)
        res.update(gpu=p.name, gpu_memory_gib=round(p.total_memory / 2**30, 1), capability=f'{p.major}.{p.minor}',
                   cudnn=torch.backends.cudnn.version(), nccl='.'.join(map(str, torch.cuda.nccl.version())),
                   bf16_native=cuda_bf16(device))
        try:
            res['driver'] = subprocess.run(['nvidia-smi', '--query-gpu=driver_version', '--format=csv,noheader'],
                                           capture_output=True, text=True, timeout=30).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            res['driver'] = None
        res['checks'] = {'auto_is_cuda': resolve_device('auto').type == 'cuda'}
    return res


def curve_diff(curve: list, ref: list, tolerance: float) -> tuple[float, bool]:
    "The largest relative difference of a loss curve from a reference curve; within tolerance?"
    rel = max(abs(a - b) / b for a, b in zip(curve, ref))
    return round(rel, 4), len(curve) == len(ref) and rel <= tolerance


def precision(args, tmp: Path) -> dict:
    "float32, bf16 and fp16 (scaled) from the same start on the same batches: the curves, fp16's health."
    torch.backends.cuda.matmul.allow_tf32 = False; torch.backends.cudnn.allow_tf32 = False
    variants = ('fp32', 'bf16', 'fp16') if resolve_device(args.device).type == 'cuda' else ('fp32', 'bf16')
    res, checks = {'tolerance': args.tolerance}, {}
    for p in variants:
        run, trainer = train_run(args, tmp / f'precision_{p}', precision=p)
        if p == 'fp16':  # an update the scaler skipped (inf or NaN gradients) leaves Adam's step count behind
            adam_steps = min(int(s['step']) for s in trainer.optimizer.state.values())
            run.update(scaler_skipped_updates=trainer.step - adam_steps, final_scale=trainer.scaler.get_scale())
            checks['fp16_weights_finite'] = all(bool(torch.isfinite(w).all()) for w in trainer.model.parameters())
        res[p] = run
        print(f"{p:5s} loss {run['loss_curve'][-1]:.4f}  {run['tokens_per_s']:,} tok/s  mfu {run['mfu']}  "
              f"{run['seconds']} s", flush=True)
    ref = res['fp32']['loss_curve']
    for p in variants[1:]:
        res[p]['max_rel_diff_vs_fp32'], checks[f'{p}_curve_within_tolerance'] = curve_diff(
            res[p]['loss_curve'], ref, args.tolerance)
    res['checks'] = checks
    return res


def timed(fn, device):
    sync(device); t = time.perf_counter(); out = fn(); sync(device)
    return out, time.perf_counter() - t


def decoding(args, device) -> dict:
    "The shipped model on the CPU and the GPU (same tokens?), and Hugging Face generate beside ours on the GPU."
    torch.backends.cuda.matmul.allow_tf32 = False; torch.backends.cudnn.allow_tf32 = False
    tok = Tokenizer.load(pretrained_path('book'))
    cpu = Transformer.from_pretrained('book').float().eval()
    batches = batches_of(tok, load_bible('test', src_lang='es').src[:args.verses], 32, cpu.config.max_len)
    dev = Transformer.from_pretrained('book').float().to(device).eval()
    try:
        hf = marian_copy(cpu).to(device).eval()
    except ImportError:  # transformers is an optional extra: then ours alone
        hf = None
    res, checks = {'verses': sum(map(len, batches))}, {}
    with torch.inference_mode():
        for beams, name in ((1, 'greedy'), (4, 'beam4')):
            run = lambda m, where: [y for b in batches for y in decode_ours(m, b, beams, where)]
            ref, cpu_s = timed(lambda: run(cpu, 'cpu'), 'cpu')
            jobs = {'ours': lambda: run(dev, device)}
            if hf is not None:
                jobs['hf'] = lambda: [y for b in batches for y in decode_hf(hf, cpu.config, b, beams, device)]
            outs, secs = {k: f() for k, f in jobs.items()}, {k: [] for k in jobs}  # one warm-up each
            for r in range(args.repeats):
                for k in list(jobs)[::1 if r % 2 == 0 else -1]:
                    outs[k], s = timed(jobs[k], device)
                    secs[k].append(s)
            same = sum(a == b for a, b in zip(ref, outs['ours']))
            res[name] = {'same_tokens_as_cpu': same, 'cpu_seconds': round(cpu_s, 2),
                         'seconds': round(statistics.median(secs['ours']), 3)}
            checks[f'{name}_same_tokens_as_cpu'] = same == len(ref)
            if hf is not None:
                res[name].update(hf_seconds=round(statistics.median(secs['hf']), 3),
                                 hf_same_tokens=sum(a == b for a, b in zip(outs['hf'], outs['ours'])),
                                 speed_vs_hf=round(statistics.median(secs['hf']) / statistics.median(secs['ours']), 2))
            print(f'{name}: {res[name]}', flush=True)
    res['checks'] = checks
    return res


def ddp(args, tmp: Path) -> dict:
    "One process under torchrun: the trainer in a process group (NCCL on a GPU) and in DDP."
    cmd = [sys.executable, '-m', 'torch.distributed.run', '--standalone', '--nnodes=1', '--nproc_per_node=1',
           '-m', 'transformer_nb.cli.train', '--preset', 'tiny', '--device', args.device, '--max-steps', '20',
           '--log-every', '5', '--eval-every', '1000', '--save-every', '1000', '--average-last', '1',
           '--out-dir', str(tmp / 'ddp')]
    t0 = time.perf_counter()
    try:  # a hung collective must not take the whole run's time
        p = subprocess.run(cmd, cwd=tmp, capture_output=True, text=True, timeout=args.ddp_timeout)
    except subprocess.TimeoutExpired as e:
        out = e.stderr.decode(errors='replace') if isinstance(e.stderr, bytes) else e.stderr or ''
        p = subprocess.CompletedProcess(cmd, None, '', out + f'\n(killed after {args.ddp_timeout} s)')
    backend = 'nccl' if resolve_device(args.device).type == 'cuda' else 'gloo'
    res = {'returncode': p.returncode, 'seconds': round(time.perf_counter() - t0, 1),
           'stderr_tail': p.stderr[-1500:] if p.returncode != 0 else None}
    loss = read_log(tmp / 'ddp' / 'log.csv')['train']['loss'] if p.returncode == 0 else []
    res['loss_first_last'] = [round(loss[0], 3), round(loss[-1], 3)] if loss else None
    res['checks'] = {'ran': p.returncode == 0, 'process_group': f'distributed: 1 process ({backend})' in p.stderr,
                     'trained': bool(loss) and loss[-1] < loss[0]}
    return res


def book(args, tmp: Path) -> dict:
    "The book's preset on device='auto': a timed run of --book-steps updates, extrapolated to its 10,000."
    cfg = TrainConfig.preset('book', device='auto', max_steps=args.book_steps, time_budget=None,
                             tokenizer=str(pretrained_path('book') / TOKENIZER_NAME), out_dir=str(tmp / 'book'),
                             log_every=max(1, min(50, args.book_steps // 5)), progress=False)
    trainer = Trainer(cfg, overwrite=True)
    summary = trainer.fit()
    log = read_log(tmp / 'book' / 'log.csv')['train']
    full = TrainConfig.preset('book').max_steps
    return {'device': str(trainer.device), 'precision': trainer.precision, 'steps': summary['step'],
            'seconds': summary['time_s'], 'tokens_per_s': round(statistics.median(log['tokens_per_s'][1:] or
                                                                                   log['tokens_per_s'])),
            'full_steps': full, 'minutes_to_full': round(summary['time_s'] * full / summary['step'] / 60, 1),
            'val_loss': round(summary['val']['loss'], 3),
            'checks': {'auto_is_cuda': trainer.device.type == 'cuda'} if torch.cuda.is_available() else {}}


def adam_step_ms(device, model_name: str) -> dict:
    "One Adam update of a model's parameters (random gradients): fused, foreach and per tensor, median ms."
    model = Transformer(TransformerConfig.preset(model_name, src_vocab_size=8000)).to(device)
    for p in model.parameters(): p.grad = torch.randn_like(p) * 1e-3
    res = {}
    for name, kw in (('fused', dict(fused=True)), ('foreach', dict(foreach=True)),
                     ('per_tensor', dict(fused=False, foreach=False))):
        opt, _ = make_optimizer(model, model.config.d_model, fused=kw.get('fused'), foreach=kw.get('foreach'))
        times = []
        for i in range(25):
            _, s = timed(opt.step, device)
            if i >= 5: times.append(s)  # after a warm-up
        res[name] = round(1000 * statistics.median(times), 3)
    return res


def speed(args, tmp: Path, put) -> dict:
    "small and base in bf16, eager then compiled: tokens/s, MFU, memory; Adam's update fused or not."
    adam = 'small' if args.quick else 'base'
    tokens, curves = {'small': args.max_tokens, 'base': args.base_tokens}, {}
    for model, compile in (('small', False), ('base', False), ('small', True), ('base', True)):
        if compile and model == 'small':  # the eager figures first: compilation takes the longest
            put(f'adam_step_ms_{adam}', adam_step_ms(resolve_device(args.device), adam))
        name = f"{model}_bf16{'_compile' if compile else ''}"
        run, _ = train_run(args, tmp / name, model=model, precision='bf16', compile=compile,
                           max_steps=args.speed_steps, max_tokens=tokens[model], log_every=args.speed_log_every)
        curves[name] = run.pop('loss_curve')
        res = put(name, {**run, 'max_tokens': tokens[model]})
    checks = {}
    for model in tokens:  # the compiled model trains as the eager one: the same losses
        rel, checks[f'{model}_compile_same_losses'] = curve_diff(
            curves[f'{model}_bf16_compile'], curves[f'{model}_bf16'], args.tolerance)
        put(f'{model}_compile_max_rel_diff', rel)
        put(f'{model}_compile_speedup', round(res[f'{model}_bf16_compile']['tokens_per_s']
                                              / res[f'{model}_bf16']['tokens_per_s'], 2))
    return {**res, 'checks': checks}


def parse(argv):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--device', default='cuda', help="'cuda' (default), 'cuda:1' or 'cpu' (a smoke run)")
    ap.add_argument('--out', help='the JSON to write (default on a GPU: data/gpu_check.json; elsewhere none)')
    ap.add_argument('--only', nargs='+', choices=SECTIONS, help='these sections alone, merged into --out')
    ap.add_argument('--quick', action='store_true', help='a smoke run: few steps, verses and pairs')
    ap.add_argument('--steps', type=int, default=200, help='updates of each precision run')
    ap.add_argument('--max-tokens', type=int, default=8192, help="padded tokens per side per batch, 'small'")
    ap.add_argument('--base-tokens', type=int, default=16384, help="the same for 'base'")
    ap.add_argument('--pairs', type=int, default=None, help='training pairs (default: all)')
    ap.add_argument('--log-every', type=int, default=10, help='updates per logged interval, precision runs')
    ap.add_argument('--speed-steps', type=int, default=60, help='updates of each speed run')
    ap.add_argument('--speed-log-every', type=int, default=10)
    ap.add_argument('--ddp-timeout', type=int, default=180, help='seconds the torchrun run may take')
    ap.add_argument('--book-steps', type=int, default=500, help="updates of the 'book' preset's timed run")
    ap.add_argument('--tolerance', type=float, default=0.03,
                    help="the largest relative difference of a logged loss from float32's")
    ap.add_argument('--verses', type=int, default=100, help='test verses decoded')
    ap.add_argument('--repeats', type=int, default=3, help='timings of each decoder (median)')
    args = ap.parse_args(argv)
    if args.quick:
        args.steps, args.pairs, args.log_every, args.verses, args.repeats = 10, 2000, 5, 8, 1
        args.speed_steps, args.speed_log_every, args.base_tokens, args.book_steps = 6, 2, 2048, 20
    return args


def main(argv=None) -> int:
    args = parse(argv)
    try: device = resolve_device(args.device)
    except (RuntimeError, ValueError) as e:
        print(f'gpu_check: --device {args.device}: {e}', file=sys.stderr); return 2
    out = Path(args.out) if args.out else ROOT / 'data' / 'gpu_check.json' if device.type == 'cuda' else None
    res = json.loads(out.read_text()) if args.only and out and out.exists() else {}
    res['command'] = ' '.join(['python benchmarks/gpu_check.py', *(argv if argv is not None else sys.argv[1:])])
    def save():
        checks = {f'{s}.{k}': v for s in SECTIONS if s in res for k, v in res[s].get('checks', {}).items()}
        res['failed'] = [k for k, v in checks.items() if not v]
        res['ok'] = not res['failed'] and all(s in res for s in SECTIONS)
        if out: out.write_text(json.dumps(res, indent=1) + '\n')

    def put(key, value):  # a figure of the section under way, written at once
        res[name][key] = value
        print(f'{name}.{key}: {value}', flush=True)
        save()
        return res[name]

    with tempfile.TemporaryDirectory() as tmp:
        for name in args.only or SECTIONS:
            t0, res[name] = time.perf_counter(), {}
            run = {'system': lambda: system(args, device), 'precision': lambda: precision(args, Path(tmp)),
                   'decoding': lambda: decoding(args, device), 'ddp': lambda: ddp(args, Path(tmp)),
                   'book': lambda: book(args, Path(tmp)), 'speed': lambda: speed(args, Path(tmp), put)}[name]
            res[name].update(run())
            put('section_seconds', round(time.perf_counter() - t0, 1))
    print(json.dumps(res))
    return 0 if res['ok'] else 1


if __name__ == '__main__':
    sys.exit(main())
