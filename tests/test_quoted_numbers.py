"""The speed figures that the README, the book's index and benchmarks/README quote are the ones
`benchmarks/decode_speed.py` wrote into `data/decode_speed.json`: rerunning the benchmark without updating a quote
(or the reverse) fails here."""
import json, re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BENCH = json.loads((ROOT / 'data' / 'decode_speed.json').read_text())


def x(key: str, digits: int = 2) -> str:
    "A ratio of the JSON as the pages print it: 1.633 -> '1.63×'."
    return f'{BENCH[key]:.{digits}f}×'


def readme_row(label: str) -> str:
    "The last cell of the README's results row whose first cell starts with `label`."
    rows = [l for l in (ROOT / 'README.md').read_text().splitlines() if l.startswith(f'| {label}')]
    assert len(rows) == 1, f'README: {len(rows)} rows start with {label!r}'
    return rows[0].rstrip(' |').rsplit('| ', 1)[1]


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
