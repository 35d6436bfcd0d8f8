"""Where a decoding step's time goes, by kernel, for each deployment of the shipped model.

    python benchmarks/step_profile.py                    # none, packed, bf16 (where computed), int8; batch 32 and 1
    python benchmarks/step_profile.py --modes int8 --batches 32

Greedy search (`generate`, `num_beams=1`) on the first test verses of the shipped model, sorted by length as
`Translator` batches them, one thread, under `torch.profiler`. Each operator's own time (self CPU time) is put in one
of these groups:

* `vocabulary`: the projection onto the 8,000 pieces (a product with an input of the vocabulary's width; an int8
  product hides its weight's shape, so there it counts among `layers`: `vocabulary_ms_per_step` times the
  generator itself, by hooks, in every deployment);
* `layers`: the other products with a weight (`addmm`, `linear`, oneDNN's packed and int8 products);
* `attention`: the products of queries with keys and of weights with values (`bmm`, `matmul`, SDPA);
* `softmax`, `layer_norm`, `argmax` (the choice of the token), `cache` (copies, concatenations and `index_select`s
  that move keys and values), `elementwise` (additions, masks, activations, conversions) and `other`.

The table gives, per deployment and batch size, milliseconds a step (the encoder included, timed without the
profiler, the median of `--repeats` runs) and each group's share of the operators' time under the profiler; the JSON (the last line,
also written to data/step_profile.json with `--write`) holds the 12 costliest operators of each run as well. Run it
before and after a change to the step; nothing else should run on the machine meanwhile.
"""
import argparse, collections, json, platform, re, statistics, time
from pathlib import Path

import torch
from torch.profiler import ProfilerActivity, profile

from transformer_nb.data.corpus import load_bible
from transformer_nb.deploy.optimize import bf16_arithmetic, optimize_for
from transformer_nb.generation.dispatch import generate
from transformer_nb.translation.translator import Translator, tensor_of

ROOT = Path(__file__).resolve().parents[1]
GROUPS = ('vocabulary', 'layers', 'attention', 'softmax', 'layer_norm', 'argmax', 'cache', 'elementwise',
          'other')
PRODUCTS = re.compile(r'addmm|linear|_int_mm|mkldnn|onednn|qlinear|quantized|^aten::mm$')
ATTENTION = re.compile(r'bmm|matmul|baddbmm|scaled_dot_product|_flash_attention|_efficient_attention')
CACHE = re.compile(r'copy_|cat|index_select|index|slice_scatter|narrow|clone|contiguous|empty|zeros|full|fill_')


def cpu() -> str:
    "The processor's name and the arithmetic a decoding step can use (AVX-512, bfloat16, VNNI, AMX)."
    info = Path('/proc/cpuinfo').read_text() if Path('/proc/cpuinfo').exists() else ''
    name = next((l.split(': ', 1)[1] for l in info.splitlines() if l.startswith('model name')),
                platform.processor() or platform.machine())
    flags = set(next((l.split(': ', 1)[1].split() for l in info.splitlines() if l.startswith('flags')), []))
    has = [f for f in ('avx2', 'avx512f', 'avx512_bf16', 'avx512_vnni', 'amx_bf16', 'amx_int8') if f in flags]
    return f"{name} ({', '.join(has)})"


def group_of(name: str, shapes, vocab: int) -> str:
    "The group of one operator call, from its name and its inputs' shapes."
    if PRODUCTS.search(name):
        return 'vocabulary' if any(vocab in s for s in shapes) else 'layers'
    if ATTENTION.search(name): return 'attention'
    if 'softmax' in name: return 'softmax'
    if 'layer_norm' in name: return 'layer_norm'
    if 'argmax' in name or 'max' == name.split('::')[-1]: return 'argmax'
    if CACHE.search(name): return 'cache'
    if re.search(r'add|mul|sub|div|relu|gelu|where|masked|eq|ne|to|_to_copy|view|reshape|transpose|permute|'
                 r'unsqueeze|squeeze|expand|select|t$|any|all|nonzero', name):
        return 'elementwise'
    return 'other'


def own_times(prof):
    "Every operator's own time (without the operators it called), by name and input shapes: (name, shapes, µs)."
    for e in prof.key_averages(group_by_input_shape=True):
        shapes = [list(s) for s in (e.input_shapes or []) if s]
        yield e.key, shapes, e.self_cpu_time_total


def profile_mode(model, batches, vocab: int, repeats: int = 3) -> dict:
    "Milliseconds a step and the share of each group, over greedy decoding of `batches`."
    def run():
        steps = 0
        for src in batches:
            out = generate(model, src, num_beams=1, max_new_tokens=min(96, 2 * src.size(1) + 10),
                           return_dict_in_generate=True)
            steps += len(out.batch_sizes)
        return steps
    spent, began = [0.0], [0.0]  # the vocabulary projection timed alone, by hooks on the generator
    hooks = [model.generator.register_forward_pre_hook(lambda *a: began.__setitem__(0, time.perf_counter())),
             model.generator.register_forward_hook(
                 lambda *a: spent.__setitem__(0, spent[0] + time.perf_counter() - began[0]))]
    with torch.inference_mode():
        run()  # warm-up: first calls, allocations
        walls, vocab_s = [], []
        for _ in range(repeats):  # medians: a shared machine is noisy
            spent[0], start = 0.0, time.perf_counter()
            steps = run()
            walls.append(time.perf_counter() - start)
            vocab_s.append(spent[0])
        wall, spent[0] = statistics.median(walls), statistics.median(vocab_s)
        for h in hooks: h.remove()
        with profile(activities=[ProfilerActivity.CPU], record_shapes=True) as prof:
            run()
    by_group, by_op = collections.Counter(), collections.Counter()
    for name, shapes, us in own_times(prof):
        by_group[group_of(name, shapes, vocab)] += us
        by_op[name] += us
    total = sum(by_group.values())
    return {'steps': steps, 'ms_per_step': round(1e3 * wall / steps, 3),
            'vocabulary_ms_per_step': round(1e3 * spent[0] / steps, 3),
            'ms_per_step_in_operators': round(total / 1e3 / steps, 3),
            'share': {g: round(by_group[g] / total, 3) for g in GROUPS},
            'top_ops_ms_per_step': {k: round(v / 1e3 / steps, 3) for k, v in by_op.most_common(12)}}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--modes', nargs='+', default=['none', 'packed', 'bf16', 'int8'])
    ap.add_argument('--batches', nargs='+', type=int, default=[32, 1])
    ap.add_argument('--verses', type=int, default=64, help='test verses per batch size (default 64)')
    ap.add_argument('--repeats', type=int, default=3, help='timed runs; the median is kept (default 3)')
    ap.add_argument('--write', action='store_true', help='write data/step_profile.json')
    args = ap.parse_args(argv)
    torch.set_num_threads(1)
    book = Translator.from_pretrained('book', optimize=None)  # the float32 model as trained
    model, tok = book.model, book.tok
    vocab = model.config.tgt_vocab
    src = load_bible('test', src_lang='es').src[:args.verses]
    ids = sorted(tok.encode(list(src)), key=len, reverse=True)
    res = {'cpu': cpu(), 'torch': torch.__version__, 'threads': 1,
           'verses': args.verses, 'runs': {}}
    for how in args.modes:
        if how == 'bf16' and not bf16_arithmetic():
            print('bf16: this processor does not compute in bfloat16; skipped'); continue
        deployed = optimize_for(model, None if how == 'none' else how)
        for b in args.batches:
            batches = [tensor_of(ids[i:i + b]) for i in range(0, len(ids), b)]
            if b == 1: batches = batches[:16]  # one sentence at a time: 16 of them
            r = profile_mode(deployed, batches, vocab, args.repeats)
            res['runs'][f'{how} batch {b}'] = r
            shares = '  '.join(f'{g} {100 * r["share"][g]:4.1f}%' for g in GROUPS if r['share'][g] >= 0.005)
            print(f'{how:7} batch {b:2}: {r["ms_per_step"]:6.2f} ms a step (vocabulary projection '
                  f'{r["vocabulary_ms_per_step"]:.2f})  {shares}', flush=True)
    print(json.dumps(res))
    if args.write:
        (ROOT / 'data' / 'step_profile.json').write_text(json.dumps(res, indent=1) + '\n')


if __name__ == '__main__':
    main()
