"""The matrix products of one decoding step of the book's model, in every kernel PyTorch offers a CPU.

    python benchmarks/linear_kernels.py            # one thread, about a minute
    python benchmarks/linear_kernels.py --quick    # a smoke run: fewer calls

A decoding step multiplies the same weights over and over by a few rows: per decoder layer the
self-attention's queries and keys/values, its output, the cross-attention's queries and output and
the two feed-forward layers, then the generator (d_model -> vocabulary). This script times those
products, with the shipped model's shapes and random weights, at 1, 32 and 128 rows (one sentence,
a greedy batch, four beams of it), in each kernel:

- `float32`: `nn.Linear`; `float32 packed`: the weight prepacked for oneDNN (`PackedLinear`);
- `int8 rows` (ours, `RowInt8`): int8 weights per output row, each activation row scaled into
  [-1, 1] and quantised by PyTorch's dynamic quantised linear;
- `int8 onednn`: the same per-row scaling, then oneDNN's int8 product (`onednn.qlinear_pointwise`,
  the kernel of PT2E quantisation with the x86 Inductor quantizer: VNNI or AMX), the scale
  applied afterwards;
- `int8 _int_mm`: the same rows, `torch._int_mm` (int8 x int8 -> int32, exact), scaled after;
- `int8 weights, bf16`: weight-only int8, bfloat16 activations (`aten._weight_int8pack_mm`);
- `bf16`, `bf16 packed` (where the CPU has bfloat16 arithmetic).

Each kernel's step total is the sum over the step's products; the ratio is float32 packed's time
over the kernel's (> 1: faster). Kernels take turns, five rounds, medians. For each int8 kernel it
also checks whether a row's result is the same alone as in a batch of 32 (the translator's promise
for int8: a sentence translates the same alone and in any batch). A last row times the
self-attention's queries, keys and values as one product (d_model -> 3 d_model) against the two
the model makes (queries; keys and values). Writes data/linear_kernels.json.
"""
import argparse, json, platform, statistics, sys, time
from pathlib import Path

import torch
import torch.nn.functional as F

from transformer_nb.deploy.optimize import PackedLinear, RowInt8, bf16_arithmetic
from transformer_nb.model.transformer import load_pretrained, shipped_path

ROWS = (1, 32, 128)


def step_shapes(config) -> list:
    "(in, out) of each weight product of one decoding step, in order."
    D, F_, V = config.d_model, config.d_ff, config.tgt_vocab_size or config.src_vocab_size
    layer = [(D, D), (D, 2 * D), (D, D), (D, D), (D, D), (D, F_), (F_, D)]
    return layer * config.n_decoder_layers + [(D, V)]


def _row_scaled(x):  # each row into [-1, 1], quantised with the fixed scale 1/127
    a = x.abs().amax(-1, keepdim=True).clamp_min(1e-30)
    return torch.round(x * (127 / a)).to(torch.int8), a


def kernels(w, b, bf16: bool) -> dict:
    "name -> function of x (rows, in) for the weight w (out, in) and bias b."
    s = w.abs().amax(1) / 127
    wq = torch.round(w / s[:, None]).to(torch.int8)
    packed, rows = PackedLinear(w, b), RowInt8(w, b)
    qw, zp = torch.ops.onednn.qlinear_prepack(wq, None), torch.zeros(len(w), dtype=torch.long)
    wqt, s127 = wq.t().contiguous(), s / 127

    def onednn(x):
        qx, a = _row_scaled(x)
        y = torch.ops.onednn.qlinear_pointwise(
            qx, 1 / 127, 0, qw, s, zp, None, 1.0, 0, torch.float32, 'none', [], '')
        return torch.addcmul(b, y, a)

    def int_mm(x):
        qx, a = _row_scaled(x)
        return torch.addcmul(b, torch._int_mm(qx, wqt) * s127, a)

    out = {'float32': lambda x: F.linear(x, w, b), 'float32 packed': packed, 'int8 rows': rows,
           'int8 onednn': onednn, 'int8 _int_mm': int_mm}
    if bf16:
        wb, bb, sb = w.bfloat16(), b.bfloat16(), s.bfloat16()
        pb = PackedLinear(wb, bb)
        out['int8 weights, bf16'] = lambda x: torch.ops.aten._weight_int8pack_mm(x.bfloat16(), wq, sb) + bb
        out['bf16'] = lambda x: F.linear(x.bfloat16(), wb, bb)
        out['bf16 packed'] = lambda x: pb(x.bfloat16())
    return out


def timed(f, x, calls: int) -> float:
    "Seconds per call, over `calls` calls after a warm-up."
    for _ in range(3):
        f(x)
    t = time.perf_counter()
    for _ in range(calls):
        f(x)
    return (time.perf_counter() - t) / calls


def alone_equals_batched(f, d_in: int) -> bool:
    "Whether each of 32 rows gives the same bits alone as in the batch."
    x = torch.randn(32, d_in) * torch.logspace(-2, 2, 32)[:, None]
    full = f(x)
    return all(torch.equal(f(x[i : i + 1])[0], full[i]) for i in range(32))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--quick', action='store_true', help='fewer calls, one round')
    ap.add_argument('--out', type=Path, default=Path(__file__).resolve().parents[1] / 'data/linear_kernels.json')
    args = ap.parse_args()
    torch.manual_seed(0)
    torch.set_num_threads(1)
    config = load_pretrained(shipped_path('models/book_small')).config
    bf16 = bf16_arithmetic()
    shapes = step_shapes(config)
    made = {io: kernels(torch.randn(io[1], io[0]) / io[0] ** 0.5, torch.randn(io[1]) * 0.1, bf16)
            for io in set(shapes)}
    names = list(next(iter(made.values())))
    rounds, calls = (1, 10) if args.quick else (5, 60)
    res = {'cpu': next((l.split(': ', 1)[1].strip() for l in open('/proc/cpuinfo')
                        if l.startswith('model name')), platform.processor()),
           'torch': torch.__version__, 'threads': 1, 'bf16_arithmetic': bf16,
           'step_products': len(shapes), 'step_ms': {}, 'vs_float32_packed': {}}
    with torch.inference_mode():
        for m in ROWS:
            xs = {io: torch.randn(m, io[0]) for io in made}
            runs = {n: [] for n in names}
            for _ in range(rounds):  # kernels take turns
                for n in names:
                    per = {io: timed(made[io][n], xs[io], calls) for io in made}
                    runs[n].append(sum(per[io] for io in shapes))
            ms = {n: statistics.median(r) * 1e3 for n, r in runs.items()}
            res['step_ms'][m] = {n: round(v, 4) for n, v in ms.items()}
            res['vs_float32_packed'][m] = {n: round(ms['float32 packed'] / v, 3) for n, v in ms.items()}
            print(f'{m:4d} rows: ' + ', '.join(f'{n} {v:.2f} ms' for n, v in ms.items()), flush=True)
        io = (config.d_model, config.d_model)
        res['int8_alone_equals_batched'] = {
            n: alone_equals_batched(made[io][n], io[0]) for n in names if n.startswith('int8')}
        D = config.d_model
        w = torch.randn(3 * D, D) / D ** 0.5
        q, kv, qkv = PackedLinear(w[:D], None), PackedLinear(w[D:], None), PackedLinear(w, None)
        x = torch.randn(32, D)
        two = statistics.median(timed(lambda x: (q(x), kv(x)), x, calls * 10) for _ in range(rounds))
        one = statistics.median(timed(qkv, x, calls * 10) for _ in range(rounds))
        res['qkv_one_product_us'], res['qkv_two_products_us'] = round(one * 1e6, 2), round(two * 1e6, 2)
    print(f"int8 kernels, a row alone = in a batch: {res['int8_alone_equals_batched']}")
    print(f"self-attention Q, K, V at 32 rows: one product {one * 1e6:.1f} us, two {two * 1e6:.1f} us "
          f"per layer and step")
    print(json.dumps(res))
    if not args.quick:
        args.out.write_text(json.dumps(res, indent=1) + '\n')


if __name__ == '__main__':
    sys.exit(main())
