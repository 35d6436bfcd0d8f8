"""The figures that the README, the book's index and benchmarks/README quote are the ones code wrote: speed ratios
from `benchmarks/decode_speed.py` (`data/decode_speed.json`), the shipped model's scores from
`benchmarks/shipped_scores.py` (`data/shipped_scores.json`), the baselines' from `benchmarks/baselines.py`
(`data/baselines.json`), the KV cache's speed-up from chapter 13's output, the share of sentences whose numbers and
words both survive from `benchmarks/number_faithfulness.py` (`data/number_faithfulness.json`). Rerunning a script or
a chapter without updating a quote (or the reverse) fails here."""
import json, re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BENCH = json.loads((ROOT / 'data' / 'decode_speed.json').read_text())


def x(key: str, digits: int = 2) -> str:
    "A ratio of the JSON as the pages print it: 1.633 -> '1.63×'."
    return f'{BENCH[key]:.{digits}f}×'


def readme_cells(label: str) -> list:
    "The cells after the first of the README's row whose first cell starts with `label`."
    rows = [l for l in (ROOT / 'README.md').read_text().splitlines() if l.startswith(f'| {label}')]
    assert len(rows) == 1, f'README: {len(rows)} rows start with {label!r}'
    return [c.strip() for c in rows[0].strip(' |').split(' | ')[1:]]


def readme_row(label: str) -> str:
    "The last cell of the README's results row whose first cell starts with `label`."
    return readme_cells(label)[-1]


def test_readme_quotes_the_benchmark():
    bleu = f"{BENCH['int8_bleu_delta']:+.2f}".replace('-', '−')
    want = {
        'greedy decoding with the KV cache against without': f"{x('cache_speedup_64', 1)} / {x('cache_speedup_128', 1)}",
        'greedy decoding against Hugging Face': x('greedy_vs_hf'),
        'beam search (4 beams) against Hugging Face': x('beam4_vs_hf'),
        'greedy / beam 4 against CTranslate2': f"{x('greedy_vs_ct2')} / {x('beam4_vs_ct2')}",
        'the same at two threads': f"{x('greedy_vs_ct2_2t')} / {x('beam4_vs_ct2_2t')}",
        'int8 greedy (`--int8`) against CTranslate2 int8': f"{x('int8_greedy_vs_ct2_int8')}; {bleu}",
        'int8 greedy against our float32 greedy': x('int8_speedup_greedy'),
        'greedy with a compiled decoding step': x('compiled_vs_eager'),
    }
    got = {label: readme_row(label) for label in want}
    wrong = {label: (got[label], cell) for label, cell in want.items() if got[label] != cell}
    assert not wrong, f'README rows (quoted, from data/decode_speed.json): {wrong}'


def test_index_quotes_the_benchmark():
    text = '\n'.join(''.join(c['source']) for c in json.loads((ROOT / 'nbs' / '00_index.ipynb').read_text())['cells'])
    speed = f"{x('greedy_vs_hf')} / {x('beam4_vs_hf')}, same tokens; {x('greedy_vs_ct2')} / {x('beam4_vs_ct2')}"
    cache = f"{x('cache_speedup_64', 1)} / {x('cache_speedup_128', 1)} (the book's model"
    assert speed in text and cache in text, f'the index should quote {speed!r} and {cache!r}'


def test_benchmarks_readme_quotes_the_json():
    text = (ROOT / 'benchmarks' / 'README.md').read_text()
    line = next(l for l in text.splitlines() if l.startswith('`"greedy_vs_hf"'))  # the JSON excerpt
    quoted = dict(re.findall(r'"(\w+)": (-?[0-9.]+)', line))
    assert len(quoted) >= 10, quoted
    wrong = {k: (v, BENCH[k]) for k, v in quoted.items() if float(v) != BENCH[k]}
    assert not wrong, f'benchmarks/README.md quotes other values than data/decode_speed.json: {wrong}'


SHIPPED = json.loads((ROOT / 'data' / 'shipped_scores.json').read_text())['decodings']
BASELINES = json.loads((ROOT / 'data' / 'baselines.json').read_text())


def pair(r: dict, digits: int) -> str:
    "BLEU / chrF as the pages print them: 28.99 / 49.96."
    return f"{r['bleu']:.{digits}f} / {r['chrf']:.{digits}f}"


def test_readme_results_quote_the_data():
    """Every score of the README's results table is the one `benchmarks/shipped_scores.py` (the book's model) or
    `benchmarks/baselines.py` (the baselines) wrote: test books to two decimals, the seven short books to one."""
    model = {"the book's model, the default": 'default',
             "the book's model, greedy, repeated 4-grams blocked": 'greedy, block',
             "the book's model, beam 8, GNMT α = 1.4, plain search": 'beam, plain',
             "the book's model, greedy, plain search": 'greedy, plain'}
    want = {label: [pair(SHIPPED[k], 2), pair(SHIPPED[k]['seven_books'], 1)] for label, k in model.items()}
    book = BASELINES['book']
    for label, r in {"the book's code with the 30-minute recipe": book, "the same run's last weights": book['last_weights'],
                     '`torch.nn.Transformer` of the same size': BASELINES['torch'],
                     'Apertium, rule-based': BASELINES['apertium'], 'the Spanish source, copied': BASELINES['copy']}.items():
        want[label] = [pair(r, 1), pair(r['seven_books'], 1)]
    got = {label: readme_cells(label) for label in want}
    wrong = {label: (got[label], cells) for label, cells in want.items() if got[label] != cells}
    assert not wrong, f'README results rows (got, from data/shipped_scores.json and data/baselines.json): {wrong}'


def test_index_headlines_quote_the_data():
    "The index's headline scores: the shipped model's from data/shipped_scores.json, the KV cache's from chapter 13."
    text = '\n'.join(''.join(c['source']) for c in json.loads((ROOT / 'nbs' / '00_index.ipynb').read_text())['cells'])
    d, plain = SHIPPED['default'], SHIPPED['beam, plain']
    quotes = [f"| {pair(SHIPPED['greedy, plain'], 2)} |",
              f"| {pair(d, 2)}; repetitions in {d['repetition_pct']:.2f} % of the verses, number mismatches in "
              f"{d['number_mismatch_pct']:.2f} % (plain beam: {plain['repetition_pct']:.2f} % and "
              f"{plain['number_mismatch_pct']:.2f} %)"]
    ch13 = '\n'.join(''.join(o.get('text', '')) for c in json.loads((ROOT / 'nbs' / '13_kv_cache.ipynb').read_text())['cells']
                     for o in c.get('outputs', []))
    speed = {n: re.search(rf'{n} tokens: .* speed-up ([0-9.]+)x', ch13).group(1) for n in (64, 128)}
    quotes.append(f"| {speed[64]}× / {speed[128]}× (d_model 128, 8 sentences)")
    missing = [q for q in quotes if q not in text]
    assert not missing, f'the index should quote: {missing}'


def test_readme_quotes_the_number_measure():
    "The README's paragraph on numbers quotes data/number_faithfulness.json: each way's share of faithful sentences."
    data = json.loads((ROOT / 'data' / 'number_faithfulness.json').read_text())
    text = ' '.join((ROOT / 'README.md').read_text().split())  # lines joined
    pct = lambda way: f"{data['ways'][way]['all']['faithful_pct']:.1f} %"
    want = [f"a sentence chrF of at least {data['kept_chrf']:g} against a reference",
            f"{pct('retry')} of {sum(data['sets'].values())} sentences with numbers",
            f"{pct('stand-ins')} when every number is said by a stand-in",
            f"{pct('spelled')} when each is spelled", f"{pct('digits')} read as digits"]
    missing = [w for w in want if w not in text]
    assert not missing, f'README.md should quote (from data/number_faithfulness.json): {missing}'
