"""Does `torch.compile` pay for greedy decoding on a CPU? The shipped model, the first 300 test verses sorted by
length into batches of 32, greedy decoding without the repetition block, one thread; eager float32, the prepacked
copy (`optimize_for(model, 'packed')`) and copies with parts compiled by `torch.compile(dynamic=True)`:

    python benchmarks/compile_step.py              # ff (each layer's feed-forward) and layers (whole decoder layers)
    python benchmarks/compile_step.py ff           # one of them

Each compiled copy is warmed up on three batches (the compile time, printed) and then timed against eager float32
in the same run; the outputs are compared row for row with eager's. The last line is a JSON object of the ratios
(> 1: the variant is faster than eager).
"""
import copy, json, sys, time

import torch

from transformer_nb.data import load_bible
from transformer_nb.deploy import optimize_for
from transformer_nb.generate import generate
from transformer_nb.translate import Translator, encode_sources, tensor_of


def compiled(model, part: str):
    "A copy of `model` with `part` compiled: 'ff' (every layer's feed-forward) or 'layers' (decoder layers)."
    c = copy.deepcopy(model)
    if part == 'ff':
        for layer in [*c.encoder.layers, *c.decoder.layers]:
            layer.ff = torch.compile(layer.ff, dynamic=True)
    elif part == 'layers':  # the cache's Python bookkeeping breaks the graph inside each layer
        for i, layer in enumerate(c.decoder.layers):
            c.decoder.layers[i] = torch.compile(layer, dynamic=True)
    else:
        raise SystemExit(f"error: unknown part {part!r}: ff or layers")
    return c


def main(parts):
    torch.set_num_threads(1)
    tr = Translator.from_pretrained('book', optimize=None)
    model, tok = tr.model.eval(), tr.tok
    ids = encode_sources(tok, load_bible('test', src_lang='es').src[:300], model.config.max_len)[0]
    ids = sorted(ids, key=len, reverse=True)
    batches = [tensor_of(ids[i:i + 32], tok.pad_token_id) for i in range(0, len(ids), 32)]

    def run(m, bs=batches):
        t = time.perf_counter()
        with torch.inference_mode():
            out = [row for b in bs for row in generate(m, b, no_repeat_ngram_size=0).tolist()]
        return time.perf_counter() - t, out

    eager, ref = run(model)
    packed, out = run(optimize_for(model, 'packed'))
    print(f'eager {eager:.2f} s; packed {packed:.2f} s ({eager / packed:.2f}x), same rows {out == ref}')
    ratios = {'packed_vs_eager': round(eager / packed, 3)}
    for part in parts:
        c = compiled(model, part)
        t0 = time.perf_counter(); run(c, batches[:3]); warm = time.perf_counter() - t0
        t, out = run(c)
        base, _ = run(model)
        same = sum(a == b for a, b in zip(out, ref))
        print(f'{part}: warm-up {warm:.0f} s; {t:.2f} s against eager {base:.2f} s ({base / t:.2f}x); '
              f'rows as eager {same}/{len(ref)}')
        ratios[f'compiled_{part}_vs_eager'] = round(base / t, 3)
    print(json.dumps(ratios))


if __name__ == '__main__':
    main(sys.argv[1:] or ['ff', 'layers'])
