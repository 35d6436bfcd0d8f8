"""Decoding speed of the book's model against Hugging Face and CTranslate2, on the same weights and verses.

    python benchmarks/decode_speed.py              # everything, one thread (about 10 minutes here)
    python benchmarks/decode_speed.py --quick      # a smoke run: 64 verses, 1 thread, one repeat
    python benchmarks/decode_speed.py --no-ct2     # without CTranslate2 (pip install ctranslate2)

The shipped model (`Translator.from_pretrained('book')`) decodes the first 300 verses of the test books,
sorted by length into batches of 32, as `Translator` batches them. The same weights run in three
systems: ours (`generate`), Hugging Face `generate` on a `MarianMTModel` copy
(`marian_copy`), and CTranslate2 on the export of `transformer_nb.deploy.export.export_ct2`. Every system gets
the same batches and the same length limit per batch (its longest source + 50 tokens, capped by
max_len); beam search uses 4 beams and the length normalisation score / length^1 that all three share
(`length_penalty`, Hugging Face's form). The script prints how many outputs agree with ours.

Measurements alternate between the systems (ours, Hugging Face, CTranslate2, then the next order) and
the medians are reported, because a shared machine is noisy. A CTranslate2 model is loaded only for its
own measurements (loading is not timed): its idle threads would otherwise take the cores from the
system measured next (ours ran about twice as slowly at two threads beside a loaded one); ratios are ours / theirs in verses per
second (> 1: ours is faster).

Threads: by default every system runs on one thread. With more (`--threads 1 2`), the systems share
the process with each other's OpenMP runtimes (PyTorch's and CTranslate2's), and on a 2-core machine
each slows the other: CTranslate2 alone took 3.4-4.1 s for the 300 verses at two threads, and 8.8 s
in this script beside PyTorch. So `--separate N` (default 2) also measures ours and CTranslate2 at N
threads each in a process of its own (this script with `--worker`), alternating, and reports
`greedy_vs_ct2_Nt` and `beam4_vs_ct2_Nt`.

`ours compiled greedy` decodes with `optimize_for(model, 'compiled')` (one decoding step compiled by
`torch.compile`; compiled before the timing); `compiled_vs_eager` is its speed over ours (> 1: faster).

Also measured: the speed-up of the KV cache (greedy, cached against recomputing the prefix, 32 verses
forced to exactly 64 and 128 new tokens), and the BLEU change of int8 decoding (`optimize_for(model, 'int8')`) on
all test verses, greedy. The last line is JSON, also written to data/decode_speed.json.

Needs `pip install "transformer-nb[bench]"` (transformers, ctranslate2); the package never imports them.
"""
import argparse, gc, json, platform, statistics, subprocess, sys, tempfile, time
from pathlib import Path

import torch
import sacrebleu

from transformer_nb.deploy.marian import marian_copy
from transformer_nb.data.corpus import load_bible
from transformer_nb.deploy.optimize import bf16_arithmetic, optimize_for
from transformer_nb.generation.dispatch import generate
from transformer_nb.translation.translator import Translator, tensor_of


def batches_of(tok, sentences, batch, max_len):
    "Source id batches sorted by length (longest first), as `Translator` makes them."
    ids = sorted(tok.encode(list(sentences)), key=len, reverse=True)
    ids = [x[:max_len] for x in ids]
    return [ids[i:i + batch] for i in range(0, len(ids), batch)]


def strip(row, c):
    "Output ids up to the first EOS, without BOS or padding."
    row = list(row)
    if c.eos_token_id in row: row = row[:row.index(c.eos_token_id)]
    return [i for i in row if i not in (c.pad_token_id, c.bos_token_id)]


def limit_of(rows, c) -> int:
    "The length limit of a batch: its longest source + 50 tokens, capped by max_len."
    return min(c.max_len, max(map(len, rows)) + 50)


def decode_ours(model, rows, beams, device='cpu'):
    "Our `generate` on one batch of source ids: output ids per row."
    c, src = model.config, tensor_of(rows).to(device)
    lp = dict(length_penalty=1.0) if beams > 1 else {}  # a normalisation beam search alone reads
    out = generate(model, src, num_beams=beams, max_new_tokens=limit_of(rows, c), **lp)
    return [strip(r, c) for r in out.tolist()]


def decode_hf(hf, c, rows, beams, device='cpu'):
    "Hugging Face `generate` of a `marian_copy` on one batch, with the same settings as ours."
    src = tensor_of(rows).to(device)
    out = hf.generate(input_ids=src, attention_mask=src != c.pad_token_id, num_beams=beams,
                      do_sample=False, max_new_tokens=limit_of(rows, c), length_penalty=1.0,
                      early_stopping=False, pad_token_id=c.pad_token_id, eos_token_id=c.eos_token_id,
                      decoder_start_token_id=c.bos_token_id, bos_token_id=c.bos_token_id)
    return [strip(r, c) for r in out.tolist()]


class Systems:
    "Callables that decode one batch of source ids and return output ids, per system and setting."
    def __init__(self, model, tok, use_ct2: bool, use_hf: bool, tmp: str):
        self.tok, self.c = tok, model.config
        self.model = optimize_for(model, 'auto')  # prepacked, as Translator.from_pretrained decodes
        self.q8 = optimize_for(model, 'int8')
        # bfloat16 where the processor multiplies in it (AVX512-BF16, AMX), else not measured
        self.b16 = optimize_for(model, 'bf16') if bf16_arithmetic() else None
        self.compiled = optimize_for(model, 'compiled')  # compiles here, once (not timed)
        self.hf = marian_copy(model) if use_hf else None
        self.ct2, self.threads = {}, 1
        if use_ct2:
            import ctranslate2
            from transformer_nb.deploy.export import export_ct2
            self.ct2_dirs = {q: export_ct2(model, tok, f'{tmp}/ct2_{q}', quantization=q)
                             for q in ('float32', 'int8')}
            self.ctranslate2 = ctranslate2

    def set_threads(self, n: int):
        torch.set_num_threads(n)
        self.threads = n

    def open_ct2(self, name: str):
        "Load the CTranslate2 model a job needs (outside the timing), and no other."
        self.close_ct2()
        if name.startswith('ct2'):
            q = 'int8' if 'int8' in name else 'float32'
            self.ct2 = {q: self.ctranslate2.Translator(str(self.ct2_dirs[q]), device='cpu',
                                                       intra_threads=self.threads, compute_type=q)}

    def close_ct2(self):
        "Unload it: its idle threads would take the cores from the next system measured."
        self.ct2 = {}
        gc.collect()

    def limit(self, rows):
        return limit_of(rows, self.c)

    def ours(self, rows, beams, int8=False, compiled=False, bf16=False):
        m = self.q8 if int8 else self.compiled if compiled else self.b16 if bf16 else self.model
        return decode_ours(m, rows, beams)

    def huggingface(self, rows, beams):
        return decode_hf(self.hf, self.c, rows, beams)

    def ctranslate(self, rows, beams, q='float32'):
        piece = self.tok.sp.id_to_piece
        pieces = [[piece(i) for i in r[:-1]] for r in rows]  # without </s>: the model adds it
        res = self.ct2[q].translate_batch(pieces, beam_size=beams, length_penalty=1.0,
                                          max_decoding_length=self.limit(rows))
        to_id = self.tok.sp.piece_to_id
        return [strip([to_id(p) for p in r.hypotheses[0]], self.c) for r in res]


def measure(jobs: dict, batches, repeats: int, systems) -> tuple[dict, dict]:
    "Median seconds of each job over all batches, jobs interleaved in rotating order; last outputs."
    times, outs, names = {k: [] for k in jobs}, {}, list(jobs)
    with torch.inference_mode():
        for r in range(repeats):
            for name in names[r % len(names):] + names[:r % len(names)]:
                systems.open_ct2(name)
                t0 = time.perf_counter()
                outs[name] = [y for b in batches for y in jobs[name](b)]
                times[name].append(time.perf_counter() - t0)
                systems.close_ct2()
    return {k: statistics.median(v) for k, v in times.items()}, outs


def worker(system: str, threads: int, model, tok, batches):
    "One system in a process of its own: one timing each of greedy and beam 4, as JSON."
    with tempfile.TemporaryDirectory() as tmp:
        s = Systems(model, tok, system == 'ct2', False, tmp)
        s.set_threads(threads)
        run = s.ours if system == 'ours' else s.ctranslate
        jobs = {f'{system} greedy': lambda b: run(b, 1), f'{system} beam4': lambda b: run(b, 4)}
        t, _ = measure(jobs, batches, 1, s)
    print(json.dumps(t))


def separate(args, threads: int) -> dict:
    "Ours and CTranslate2 at `threads` threads, each in its own process, alternating: median seconds."
    times = {}
    for r in range(args.repeats):
        for system in ('ours', 'ct2')[::1 if r % 2 == 0 else -1]:
            cmd = [sys.executable, __file__, '--worker', system, '--threads', str(threads),
                   '--verses', str(args.verses), '--batch', str(args.batch)]
            line = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout.splitlines()[-1]
            for k, v in json.loads(line).items():
                times.setdefault(k, []).append(v)
    return {k: statistics.median(v) for k, v in times.items()}


def cache_speedup(model, batch, n: int) -> float:
    "Greedy decoding of exactly n tokens: seconds without the cache / seconds with it."
    src = tensor_of(batch)
    with torch.inference_mode():
        t = {}
        for use_cache in (True, False, True):
            t0 = time.perf_counter()
            generate(model, src, num_beams=1, max_new_tokens=n, min_new_tokens=n, use_cache=use_cache)
            t.setdefault(use_cache, []).append(time.perf_counter() - t0)
    return round(t[False][0] / min(t[True]), 2)


def deployment_bleu(model, tok, test, batch: int) -> dict:
    "Greedy BLEU of float32, int8 and (where the processor computes in it) bf16 decoding on all test verses."
    res, plain = {}, dict(num_beams=1, no_repeat_ngram_size=0, rerank=None)
    for q in (None, 'int8', 'bf16'):
        if q == 'bf16' and not bf16_arithmetic(): continue
        tr = Translator(optimize_for(model, q or 'auto'), tok, batch_size=batch, split=False, **plain)
        res[q or 'float32'] = sacrebleu.corpus_bleu(tr.translate(list(test.src)),
                                                    [list(test.tgt)]).score
    out = {'bleu_float32_greedy': round(res['float32'], 2)}
    for q in ('int8', 'bf16'):
        if q in res:
            out |= {f'bleu_{q}_greedy': round(res[q], 2), f'{q}_bleu_delta': round(res[q] - res['float32'], 2)}
    return out


def goals(res: dict) -> list:
    """The speed goals against CTranslate2 (ratios > 1: ours faster), each with its figure and whether it is met.
    One thread, and for float32 also each system at its best thread count (this process at 1, a process of its
    own at --separate N)."""
    sec, sep = res.get('seconds', {}), next((v for k, v in res.items() if k.startswith('separate_seconds')), {})
    best = lambda name: min(x for x in (sec.get(name), sep.get(name)) if x is not None)
    out = []

    def goal(text, figure, target):
        if figure is not None:
            out.append({'goal': text, 'figure': round(figure, 3), 'target': target, 'met': figure >= target})

    for kind in ('greedy', 'beam4'):
        goal(f'float32 {kind} >= 0.8x CTranslate2 float32, one thread', res.get(f'{kind}_vs_ct2'), 0.8)
        if sep:
            goal(f'float32 {kind} >= 0.8x CTranslate2 float32, each at its best thread count',
                 best(f'ct2 {kind}') / best(f'ours {kind}'), 0.8)
        if abs(res.get('bf16_bleu_delta', 1)) <= 0.2:  # near-lossless: the goal applies
            goal(f'bf16 {kind} >= 1.0x CTranslate2 float32, one thread', res.get(f'bf16_{kind}_vs_ct2'), 1.0)
    goal('int8 greedy >= 1.0x CTranslate2 int8, one thread', res.get('int8_greedy_vs_ct2_int8'), 1.0)
    lossless = [k for k in ('greedy', 'bf16 greedy', 'int8 greedy')
                if k == 'greedy' or abs(res.get(f"{k.split()[0]}_bleu_delta", 1)) <= 0.2]
    ours = [sec[f'ours {k}'] for k in lossless if f'ours {k}' in sec]
    theirs = [sec[k] for k in ('ct2 greedy', 'ct2 int8 greedy') if k in sec]
    if ours and theirs:
        goal('our fastest near-lossless greedy (BLEU within 0.2) >= 1.0x CTranslate2 fastest, one thread',
             min(theirs) / min(ours), 1.0)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--quick', action='store_true', help='64 verses, 1 thread, one repeat')
    ap.add_argument('--verses', type=int, default=300, help='first N test verses (default 300)')
    ap.add_argument('--batch', type=int, default=32, help='sentences per batch (default 32)')
    ap.add_argument('--threads', type=int, nargs='+', default=[1],
                    help='thread counts (default 1; see the note on threads above)')
    ap.add_argument('--repeats', type=int, default=3, help='measurements per system (median)')
    ap.add_argument('--no-ct2', action='store_true', help='skip CTranslate2')
    ap.add_argument('--no-hf', action='store_true', help='skip Hugging Face')
    ap.add_argument('--no-bleu', action='store_true', help='skip the int8 BLEU change')
    ap.add_argument('--separate', type=int, default=2, metavar='N',
                    help='also ours and CTranslate2 at N threads, each in its own process (0: not)')
    ap.add_argument('--worker', choices=('ours', 'ct2'), help=argparse.SUPPRESS)  # one system, one process
    ap.add_argument('--out', default=None, help='also write the JSON here (default: '
                    'data/decode_speed.json of the checkout, which chapter 18 shows; none with --quick)')
    args = ap.parse_args()
    if args.quick: args.verses, args.threads, args.repeats = 64, [1], 1
    book = Translator.from_pretrained('book', optimize=None)  # the float32 model as trained
    model, tok, c = book.model, book.tok, book.model.config
    test = load_bible('test', src_lang='es')
    batches = batches_of(tok, test.src[:args.verses], args.batch, c.max_len)
    if args.worker:
        return worker(args.worker, args.threads[0], model, tok, batches)
    res = {'quick': args.quick, 'verses': args.verses, 'batch': args.batch,
           'repeats': args.repeats, 'torch': torch.__version__}
    with tempfile.TemporaryDirectory() as tmp:
        s = Systems(model, tok, not args.no_ct2, not args.no_hf, tmp)
        if not args.no_ct2: res['ctranslate2'] = s.ctranslate2.__version__
        if not args.no_hf:
            import transformers
            transformers.logging.set_verbosity_error()
            res['transformers'] = transformers.__version__
        torch.set_num_threads(1)
        for n in (64, 128): res[f'cache_speedup_{n}'] = cache_speedup(s.model, batches[-1], n)
        print(f"cache speed-up, 64 / 128 new tokens: {res['cache_speedup_64']}x / "
              f"{res['cache_speedup_128']}x", flush=True)
        for threads in args.threads:
            s.set_threads(threads)
            jobs = {'ours greedy': lambda b: s.ours(b, 1), 'ours beam4': lambda b: s.ours(b, 4),
                    'ours int8 greedy': lambda b: s.ours(b, 1, int8=True),
                    'ours compiled greedy': lambda b: s.ours(b, 1, compiled=True)}
            if s.b16 is not None:
                jobs |= {'ours bf16 greedy': lambda b: s.ours(b, 1, bf16=True),
                         'ours bf16 beam4': lambda b: s.ours(b, 4, bf16=True)}
            if s.hf is not None:
                jobs |= {'hf greedy': lambda b: s.huggingface(b, 1),
                         'hf beam4': lambda b: s.huggingface(b, 4)}
            if hasattr(s, 'ct2_dirs'):
                jobs |= {'ct2 greedy': lambda b: s.ctranslate(b, 1),
                         'ct2 beam4': lambda b: s.ctranslate(b, 4),
                         'ct2 int8 greedy': lambda b: s.ctranslate(b, 1, 'int8')}
            t, outs = measure(jobs, batches, args.repeats, s)
            sfx = '' if threads == 1 else f'_{threads}threads'
            print(f"\n{threads} thread(s), {args.verses} verses, batch {args.batch}")
            for k, v in t.items():
                ref = outs['ours int8 greedy' if 'int8' in k else f"ours {k.split()[-1]}"]  # bf16: float32's
                agree = sum(a == b for a, b in zip(outs[k], ref)) / len(ref)
                print(f"  {k:20s} {v:7.2f} s  {args.verses / v:6.1f} verses/s  "
                      f"same output as ours: {agree:.0%}")
                res.setdefault('seconds' + sfx, {})[k] = round(v, 2)
            for other in ('hf', 'ct2'):
                for kind in ('greedy', 'beam4'):
                    if f'{other} {kind}' in t:
                        res[f'{kind}_vs_{other}{sfx}'] = round(t[f'{other} {kind}'] / t[f'ours {kind}'], 3)
                    if f'ours bf16 {kind}' in t and f'{other} {kind}' in t:
                        res[f'bf16_{kind}_vs_{other}{sfx}'] = round(t[f'{other} {kind}'] / t[f'ours bf16 {kind}'], 3)
            if 'ct2 int8 greedy' in t:
                res[f'int8_greedy_vs_ct2_int8{sfx}'] = round(
                    t['ct2 int8 greedy'] / t['ours int8 greedy'], 3)
            res[f'int8_speedup_greedy{sfx}'] = round(t['ours greedy'] / t['ours int8 greedy'], 3)
            res[f'compiled_vs_eager{sfx}'] = round(t['ours greedy'] / t['ours compiled greedy'], 3)
    if args.separate and not args.quick and not args.no_ct2:
        n = args.separate
        t = separate(args, n)
        print(f"\n{n} threads, each system in its own process")
        for k, v in t.items():
            print(f"  {k:17s} {v:7.2f} s  {args.verses / v:6.1f} verses/s")
        for kind in ('greedy', 'beam4'):
            res[f'{kind}_vs_ct2_{n}t'] = round(t[f'ct2 {kind}'] / t[f'ours {kind}'], 3)
        res[f'separate_seconds_{n}t'] = {k: round(v, 2) for k, v in t.items()}
    if not args.no_bleu:
        torch.set_num_threads(max(args.threads))
        res |= deployment_bleu(model, tok, test, args.batch)
        for q in ('int8', 'bf16'):
            if f'{q}_bleu_delta' in res:
                print(f"\n{q} greedy BLEU change on {len(test)} test verses: {res[f'{q}_bleu_delta']:+.2f}")
    res['cpu'] = next((l.split(': ', 1)[1].strip() for l in open('/proc/cpuinfo') if l.startswith('model name')),
                      platform.processor() or 'unknown')
    res['goals'] = goals(res)
    for g in res['goals']:
        print(f"{'met ' if g['met'] else 'MISSED'} {g['figure']:6.3f} (target {g['target']}): {g['goal']}")
    print(json.dumps(res))
    out = args.out or (None if args.quick else Path(__file__).resolve().parents[1] / 'data/decode_speed.json')
    if out: Path(out).write_text(json.dumps(res, indent=1) + '\n')


if __name__ == '__main__':
    main()
