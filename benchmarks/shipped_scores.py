"""The shipped model's scores on the test books under the four decodings that the README's results table and the
book's index quote, written to `data/shipped_scores.json` (tests/test_quoted_numbers.py checks the quotes).

    python benchmarks/shipped_scores.py                 # about 2 minutes on two CPU cores
    python benchmarks/shipped_scores.py --limit 20 --out /tmp/s.json   # a smoke run

The decodings, each on whole verses as chapter 17 translates them:

* `default`: the translator's default (`CHOSEN`: the beam width, length penalty, repetition block and checks of
  the n-best list that chapter 17 chose on the validation books);
* `greedy, block`: the same with one beam, what `transformer-nb evaluate --beams 1` prints;
* `beam, plain` and `greedy, plain`: without the block and the checks (`PLAIN_SEARCH`).

For each: BLEU and chrF (sacreBLEU) on all 1,275 test verses and on the seven short books, and the share of verses
with a repeated phrase or a changed number (chapter 14a's checks).
"""
import argparse, json, platform
from pathlib import Path

import torch

from baselines import scores  # benchmarks/baselines.py: BLEU and chrF on the test books and the seven short ones
from transformer_nb.data.corpus import Tokenizer, load_bible
from transformer_nb.translation.evaluate import PLAIN_SEARCH, evaluate_model
from transformer_nb.generation.config import CHOSEN
from transformer_nb.model.transformer import Transformer, pretrained_path

OUT = Path(__file__).resolve().parents[1] / 'data' / 'shipped_scores.json'
DECODINGS = {
    'default': CHOSEN,
    'greedy, block': CHOSEN.update(num_beams=1),
    'beam, plain': CHOSEN.update(**PLAIN_SEARCH),
    'greedy, plain': CHOSEN.update(num_beams=1, **PLAIN_SEARCH),
}


def score(model, tok, test, config) -> dict:
    "One decoding's scores, as `baselines.py` scores its rows, with the settings and the two error shares."
    r = evaluate_model(model, tok, test, config.num_beams, generation_config=config)
    keep = ('num_beams', 'gnmt_alpha', 'no_repeat_ngram_size', 'rerank')
    return {
        'settings': {k: getattr(config, k) for k in keep},
        **scores(r['hypotheses'], test),  # all test books and the seven short books
        'repetition_pct': round(r['repetition_pct'], 2),
        'number_mismatch_pct': round(r['number_mismatch_pct'], 2),
    }


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--limit', type=int, help='only the first N test verses (needs --out)')
    ap.add_argument('--out', type=Path, default=OUT, help=f'where to write (default: {OUT})')
    a = ap.parse_args(argv)
    if a.limit and a.out == OUT:
        ap.error('--limit writes a partial result: give --out FILE')
    folder = pretrained_path('book')
    model, tok = Transformer.from_pretrained(folder), Tokenizer.load(folder)
    test = load_bible('test', src_lang='es')
    if a.limit:
        test = test.subset(range(a.limit))
    results = {}
    for name, config in DECODINGS.items():
        results[name] = score(model, tok, test, config)
        print(name, {k: results[name][k] for k in ('bleu', 'chrf', 'seven_books')}, flush=True)
    meta = {'model': 'models/book_small', 'torch': torch.__version__, 'cpu': platform.processor() or platform.machine()}
    a.out.write_text(json.dumps({'meta': meta, 'decodings': results}, indent=1, ensure_ascii=False) + '\n')
    print(f'wrote {a.out}')


if __name__ == '__main__':
    main()
