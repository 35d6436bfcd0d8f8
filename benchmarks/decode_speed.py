"""Decoding speed of transformer_nb against Hugging Face `MarianMTModel.generate`, on one identical random model.

    python benchmarks/decode_speed.py            # small sizes: d_model 256, 3+3 layers, 4 heads, d_ff 1024, V 8000
    python benchmarks/decode_speed.py --quick    # a smoke run: batch 8, one repeat
    python benchmarks/decode_speed.py --full     # also Hugging Face without cache at every length, 5 repeats
    python benchmarks/decode_speed.py --base     # the paper's base sizes (d_model 512, 6+6 layers, 8 heads, d_ff 2048)

Both models hold the same random weights (ours are copied into a `MarianMTModel`, a post-norm encoder-decoder with
sinusoidal positions, so the two compute the same function; the script checks that their logits and greedy tokens
agree). The same batch (32 sentences of 30 tokens) is decoded with exactly N new tokens (min_new_tokens =
max_new_tokens = N, for N = 64 and 128) in three ways: greedy with the cache, greedy without it (every position
recomputed at every step), and beam search with 4 beams. Measurements alternate (ours, theirs, ours, theirs, ...)
and the medians are reported, because a shared machine is noisy. Throughput is generated tokens per second
(batch × N / seconds; beams do not count). The last line is JSON with the ratios (ours / theirs, cached / uncached).

Timing runs on one CPU thread by default (--threads to change): on a shared machine a second math-library thread
that waits for a busy core stalls every matrix product, and the timings turn into noise. The uncached rows cost
10-20 times more than the others and their ratios are large, so they are measured once (--uncached-repeats), and
Hugging Face's uncached decoding only at the first length unless --full.

Needs `pip install transformers` (benchmark only; the package never imports it).
"""
import argparse, json, statistics, sys, time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout without installing
from transformer_nb.model import Transformer, TransformerConfig  # noqa: E402
from transformer_nb.generate import generate  # noqa: E402
from transformer_nb.beam import marian_copy  # noqa: E402


def our_model(base: bool, vocab: int, max_len: int) -> Transformer:
    "A random model of the benchmark sizes, in eval mode."
    sizes = (dict(d_model=512, n_heads=8, d_ff=2048, n_encoder_layers=6, n_decoder_layers=6) if base else
             dict(d_model=256, n_heads=4, d_ff=1024, n_encoder_layers=3, n_decoder_layers=3))
    torch.manual_seed(0)
    return Transformer(TransformerConfig(src_vocab_size=vocab, dropout=0.0, max_len=max_len, **sizes)).eval()


def timed(fn):
    t0 = time.perf_counter(); out = fn(); return time.perf_counter() - t0, out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--quick', action='store_true', help='one repeat, batch 8: a smoke run (ratios are rough)')
    ap.add_argument('--full', action='store_true', help='HF without cache at every length; 5 repeats')
    ap.add_argument('--base', action='store_true', help="the paper's base sizes instead of the small ones")
    ap.add_argument('--vocab', type=int, default=8000)
    ap.add_argument('--batch', type=int, default=None, help='sentences per batch (default 32; 8 with --quick)')
    ap.add_argument('--src-len', type=int, default=30)
    ap.add_argument('--lengths', type=int, nargs='+', default=[64, 128], help='new tokens per sentence')
    ap.add_argument('--repeats', type=int, default=None, help='measurements per cell (default 3; 1 with --quick, 5 with --full)')
    ap.add_argument('--uncached-repeats', type=int, default=1, help='measurements per uncached cell')
    ap.add_argument('--threads', type=int, default=1, help='torch CPU threads (0: torch\'s default)')
    ap.add_argument('--no-uncached', action='store_true', help='skip the (slow) uncached rows')
    args = ap.parse_args()
    batch = args.batch or (8 if args.quick else 32)
    repeats = args.repeats or (1 if args.quick else 5 if args.full else 3)
    if args.threads: torch.set_num_threads(args.threads)
    import transformers
    transformers.logging.set_verbosity_error()
    try:
        from transformer_nb.beam import beam_search
    except ImportError:
        beam_search = None

    ours = our_model(args.base, args.vocab, max_len=max(512, args.src_len + max(args.lengths) + 2))
    theirs = marian_copy(ours)
    c = ours.config
    g = torch.Generator().manual_seed(0)
    src = torch.randint(4, args.vocab, (batch, args.src_len), generator=g)
    src[:, -1] = c.eos_id  # (B, S): no padding
    mask = src != c.pad_id
    kw = dict(pad_token_id=c.pad_id, eos_token_id=c.eos_id, decoder_start_token_id=c.bos_id, bos_token_id=c.bos_id)

    with torch.inference_mode():  # the two models compute the same function
        tgt = torch.cat([torch.full((batch, 1), c.bos_id), torch.randint(4, args.vocab, (batch, 15), generator=g)], 1)
        err = (ours(src, tgt) - theirs(input_ids=src, attention_mask=mask, decoder_input_ids=tgt).logits).abs().max().item()
        a = generate(ours, src, max_new_tokens=16, min_new_tokens=16)
        b = theirs.generate(input_ids=src, attention_mask=mask, max_new_tokens=16, min_new_tokens=16, do_sample=False,
                            num_beams=1, **kw)[:, 1:]
    print(f"transformers {transformers.__version__}, torch {torch.__version__}, {torch.get_num_threads()} threads; "
          f"{'base' if args.base else 'small'} sizes: d_model {c.d_model}, {c.n_encoder_layers}+{c.n_decoder_layers} layers, "
          f"{c.n_heads} heads, d_ff {c.d_ff}, V {c.tgt_vocab}; batch {batch} x {args.src_len} tokens; {repeats} repeats "
          f"({min(repeats, args.uncached_repeats)} without cache)")
    print(f"same function: max |logit difference| {err:.1e}; greedy tokens identical: {torch.equal(a, b)}")

    def row_fns(kind, n):
        "(ours, theirs) callables for one table cell."
        both = dict(max_new_tokens=n, min_new_tokens=n)
        if kind == 'greedy, cache':
            return (lambda: generate(ours, src, use_cache=True, **both),
                    lambda: theirs.generate(input_ids=src, attention_mask=mask, do_sample=False, num_beams=1,
                                            use_cache=True, **both, **kw))
        if kind == 'greedy, no cache':
            return (lambda: generate(ours, src, use_cache=False, **both),
                    lambda: theirs.generate(input_ids=src, attention_mask=mask, do_sample=False, num_beams=1,
                                            use_cache=False, **both, **kw))
        if kind == 'beam 4':
            return ((lambda: beam_search(ours, src, num_beams=4, length_penalty=1.0, early_stopping=False, **both))
                    if beam_search else None,
                    lambda: theirs.generate(input_ids=src, attention_mask=mask, do_sample=False, num_beams=4,
                                            length_penalty=1.0, early_stopping=False, use_cache=True, **both, **kw))

    kinds = ['greedy, cache'] + ([] if args.no_uncached else ['greedy, no cache']) + ['beam 4']
    cells = [(k, n) for k in kinds for n in args.lengths]
    times = {(k, n, who): [] for k, n in cells for who in ('ours', 'theirs')}
    outputs = {}
    start = time.time()
    with torch.inference_mode():
        for r in range(repeats):
            for k, n in cells:
                if k == 'greedy, no cache' and r >= args.uncached_repeats: continue
                fns = dict(zip(('ours', 'theirs'), row_fns(k, n)))
                if k == 'greedy, no cache' and n != args.lengths[0] and not args.full: fns['theirs'] = None
                order = ('ours', 'theirs') if r % 2 == 0 else ('theirs', 'ours')  # alternate who goes first
                for who in order:
                    if fns[who] is None: continue
                    dt, out = timed(fns[who])
                    times[(k, n, who)].append(dt)
                    outputs[(k, n, who)] = out
            print(f"  repeat {r + 1}/{repeats} done ({time.time() - start:.0f} s)", flush=True)

    def tps(k, n, who):
        t = times[(k, n, who)]
        return batch * n / statistics.median(t) if t else None

    fmt = lambda x: 'n/a' if x is None else f'{x:9.0f}'
    print(f"\n{'':18s}{'N':>5s} {'ours tok/s':>11s} {'HF tok/s':>10s} {'ours/HF':>8s}")
    for k, n in cells:
        o, t = tps(k, n, 'ours'), tps(k, n, 'theirs')
        r = 'n/a' if o is None or t is None else f'{o / t:7.2f}x'
        print(f"{k:18s}{n:5d} {fmt(o):>11s} {fmt(t) if t else 'skipped':>10s} {r:>8s}")
    for k, n in cells:  # greedy outputs must agree token for token (same function, same greedy rule)
        o, t = outputs.get((k, n, 'ours')), outputs.get((k, n, 'theirs'))
        if isinstance(o, torch.Tensor) and t is not None and o.shape == t[:, 1:].shape:
            print(f"{k}, N={n}: tokens identical to HF: {torch.equal(o, t[:, 1:])}")

    def ratio(k, n, a='ours', b='theirs', kb=None):
        x, y = tps(k, n, a), tps(kb or k, n, b)
        return None if x is None or y is None else round(x / y, 3)

    def gmean(xs):
        xs = [x for x in xs if x is not None]
        return round(statistics.geometric_mean(xs), 3) if xs else None

    res = {'quick': args.quick, 'sizes': 'base' if args.base else 'small', 'batch': batch, 'src_len': args.src_len,
           'threads': torch.get_num_threads(), 'repeats': repeats, 'max_abs_logit_diff_vs_hf': err}
    for n in args.lengths:
        if not args.no_uncached:
            res[f'cache_speedup_{n}'] = ratio('greedy, cache', n, 'ours', 'ours', kb='greedy, no cache')
            res[f'hf_cache_speedup_{n}'] = ratio('greedy, cache', n, 'theirs', 'theirs', kb='greedy, no cache')
            res[f'uncached_vs_hf_{n}'] = ratio('greedy, no cache', n)
        res[f'greedy_vs_hf_{n}'] = ratio('greedy, cache', n)
        res[f'beam4_vs_hf_{n}'] = ratio('beam 4', n)
    res['greedy_vs_hf'] = gmean([res[f'greedy_vs_hf_{n}'] for n in args.lengths])
    res['beam4_vs_hf'] = gmean([res[f'beam4_vs_hf_{n}'] for n in args.lengths])
    res['tokens_per_s'] = {f'{k} N={n} {who}': None if tps(k, n, who) is None else round(tps(k, n, who), 1)
                           for k, n in cells for who in ('ours', 'theirs')}
    print(json.dumps(res))


if __name__ == '__main__':
    main()
