"""Each way the translator can read numbers in digits, judged by the whole sentence: does the translation keep the
number, and the rest of the sentence? Written to `data/number_faithfulness.json`, which chapter 15 shows and
`tests/test_number_faithfulness.py` holds the translator's default to.

    python benchmarks/number_faithfulness.py        # about 4 minutes on two CPU cores

Two sets of Spanish sentences with numbers in digits and English references:

* `sentences`: the sentences of `data/number_sentences.tsv`, written for the project (ages, years, chapter and verse,
  counts, money, dates, measures), with references a person wrote;
* `verses`: the test verses that spell a number from 2 to 999, the number rewritten in digits (as chapter 15 builds
  them), with their verse of the World English Bible as reference.

The ways, each the shipped model with the translator's decoding defaults: the four of `transformer-nb translate
--numbers` (`retry`: each number spelled, a line whose translation lost one read again with stand-ins; `stand-ins`:
each said by a stand-in; `spelled`: each spelled; `digits`: as typed), and one more that only this script builds,
`small spelled`: numbers below 1,000 spelled (chapter 9b taught the model each of them), larger ones said by
stand-ins. A translation is faithful when it keeps every number and its sentence chrF, numbers aside, reaches
`KEPT_CHRF` (`faithfulness`, chapter 9c); the script also measures the sentence chrF of the translator's translations of
all test verses, whose lower quartile `KEPT_CHRF` stands for.
"""
import argparse, csv, json, platform, re, statistics
from pathlib import Path

import torch

from transformer_nb.data.corpus import corpus_path, load_bible
from transformer_nb.text.numbers import spanish_number
from transformer_nb.text.sentences import KEPT_CHRF, SPELLINGS, STAND_INS, _NUMBER
from transformer_nb.text.sentences import faithfulness, words_to_digits
from transformer_nb.translation.translator import Translator
from transformer_nb.cli.translate import NUMBER_READINGS

OUT = Path(__file__).resolve().parents[1] / 'data' / 'number_faithfulness.json'
WAYS = {  # name -> what it is, as the table says it
    'retry': 'spelled; a line that lost a number read again with stand-ins',
    'stand-ins': 'each number said by a stand-in',
    'spelled': 'each number spelled',
    'digits': 'digits as typed',
    'small spelled': 'spelled below 1,000, stand-ins from 1,000 on',
}


def sentences() -> list:
    "(Spanish, English) of data/number_sentences.tsv, its comment lines and header aside."
    lines = corpus_path('number_sentences.tsv').read_text(encoding='utf-8').splitlines()
    rows = list(csv.DictReader((l for l in lines if not l.startswith('#')), delimiter='\t'))
    return [(r['es'], r['en']) for r in rows]


def verses() -> list:
    "(Spanish, English) of the test verses that spell a number from 2 to 999, the number in digits."
    test = load_bible('test', src_lang='es')
    words = sorted({(spanish_number(n, old), n) for n in range(2, 1000) for old in (0, 1)},
                   key=lambda w: -len(w[0]))  # longest first: 'veinte y tres' before 'veinte'
    number_word = re.compile('|'.join(rf'\b{w}\b' for w, _ in words))
    value = dict(words)
    in_digits = lambda v: number_word.sub(lambda m: str(value[m[0]]), v)
    return [(in_digits(s), t) for s, t in zip(test.src, test.tgt) if in_digits(s) != s]


def small_spelled(book: Translator, lines: list) -> list:
    "Numbers below 1,000 spelled, larger ones said by stand-ins, read by `book` as typed."
    spell, forms = SPELLINGS['es-en']
    read = []
    for line in lines:
        free = [s for s in STAND_INS if not re.search(rf'\b{spell(s)}\b', line, re.I)]
        numbers = []

        def say(m):
            n = int(m[0])
            if n == 0:  # as digits_to_words: 0 stays
                return m[0]
            s = free.pop(0) if n >= 1000 and free else n
            numbers.append(n if s == n else (s, n))
            return spell(s)

        read.append((_NUMBER.sub(say, line), numbers))
    out = book.translate([r for r, _ in read])
    return [words_to_digits(o, n, forms) for o, (_, n) in zip(out, read)]


def table(judged: list) -> dict:
    """The shares of a set's translations that keep the numbers, the sentence, both; the mean chrF; and the share that
    keeps both at a threshold 10 chrF below `KEPT_CHRF` and 10 above."""
    share = lambda kept: round(100 * sum(kept) / len(judged), 1)
    pct = lambda key: share(j[key] for j in judged)
    at = {f'{t:g}': share(j['numbers'] and j['chrf'] >= t for j in judged) for t in (KEPT_CHRF - 10, KEPT_CHRF + 10)}
    return {'sentences': len(judged), 'numbers_pct': pct('numbers'), 'sentence_pct': pct('sentence'),
            'faithful_pct': pct('faithful'), 'mean_chrf': round(statistics.mean(j['chrf'] for j in judged), 1),
            'faithful_pct_at_chrf': at}


def calibration(book: Translator) -> dict:
    "The sentence chrF of the translator's translations of all test verses: its quartiles."
    test = load_bible('test', src_lang='es')
    chrf = [faithfulness(s, o, r, least=0)['chrf'] for s, o, r in zip(test.src, book.translate(test.src), test.tgt)]
    q1, median, q3 = statistics.quantiles(chrf, n=4)
    return {'verses': len(chrf), 'lower_quartile': round(q1, 1), 'median': round(median, 1),
            'upper_quartile': round(q3, 1)}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--out', type=Path, default=OUT, help=f'where to write (default: {OUT})')
    a = ap.parse_args(argv)
    torch.set_num_threads(1)
    sets = {'sentences': sentences(), 'verses': verses()}
    book = Translator.from_pretrained('book', spell_digits=False)  # the model, read as typed
    readers = {name: Translator(book.model, book.tok, direction='es-en', **kw)
               for name, kw in NUMBER_READINGS.items()}
    ways, translations = {}, {}
    for name in WAYS:
        row = {'what': WAYS[name], 'flag': f'--numbers {name}' if name in NUMBER_READINGS else None}
        judged_all = []
        for set_name, pairs in sets.items():
            src = [s for s, _ in pairs]
            out = small_spelled(book, src) if name == 'small spelled' else readers[name].translate(src)
            judged = [faithfulness(s, o, r) for (s, r), o in zip(pairs, out)]
            row[set_name], judged_all = table(judged), judged_all + judged
            if set_name == 'sentences':
                translations[name] = out
        row['all'] = table(judged_all)
        ways[name] = row
        print(f"{name:14} {row['all']}", flush=True)
    # a line is read twice by retry where its spelled translation lost a number
    ways['retry']['read_again_pct'] = round(100 - ways['spelled']['all']['numbers_pct'], 1)
    best = max(ways, key=lambda w: (ways[w]['all']['faithful_pct'], ways[w]['all']['mean_chrf']))
    cal = calibration(readers['retry'])
    print('test verses, sentence chrF:', cal, f'(KEPT_CHRF = {KEPT_CHRF})')
    meta = {'model': 'models/book_small', 'torch': torch.__version__,
            'cpu': platform.processor() or platform.machine()}
    result = {'meta': meta, 'kept_chrf': KEPT_CHRF, 'test_verses_chrf': cal,
              'sets': {k: len(v) for k, v in sets.items()}, 'ways': ways, 'most_faithful': best,
              'examples': [{'es': s, 'en': r, **{w: translations[w][i] for w in WAYS}}
                           for i, (s, r) in enumerate(sets['sentences'])]}
    a.out.write_text(json.dumps(result, indent=1, ensure_ascii=False) + '\n')
    print(f'most faithful: {best}; wrote {a.out}')


if __name__ == '__main__':
    main()
