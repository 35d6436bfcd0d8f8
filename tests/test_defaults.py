"""The translator's decoding defaults are the setting chapter 17 chose on the validation books.

Chapter 17 sweeps beam widths and length penalties on validation verses, then the repetition block
and the checks of the n-best list, and prints one line
`chosen: num_beams=K, length_penalty=A, no_repeat_ngram_size=N, rerank=R`; `SEARCH_DEFAULTS`
(chapter 15), which `Translator`, `transformer-nb translate`, `transformer-nb evaluate` and the
exports use, must say the same, so that the README's commands reproduce the README's table."""
import json, re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHOSEN = re.compile(
    r"chosen: num_beams=(\d+), length_penalty=([0-9.]+), "
    r"no_repeat_ngram_size=(\d+), rerank=(None|'checks')"
)


def chosen_in(nb_path: Path) -> tuple | None:
    "(num_beams, length_penalty, no_repeat_ngram_size, rerank) printed in a notebook's outputs."
    for c in json.loads(nb_path.read_text())['cells']:
        for o in c.get('outputs', []):
            m = CHOSEN.search(''.join(o.get('text', '')))
            if m:
                rerank = None if m.group(4) == 'None' else m.group(4).strip("'")
                return int(m.group(1)), float(m.group(2)), int(m.group(3)), rerank
    return None


def _defaults() -> tuple:
    from transformer_nb.translate import SEARCH_DEFAULTS as d
    return d['num_beams'], d['length_penalty'], d['no_repeat_ngram_size'], d['rerank']


def test_defaults_are_the_validation_choice():
    chosen = chosen_in(ROOT / 'nbs' / '17_evaluation.ipynb')
    assert chosen, "chapter 17 stores no 'chosen: ...' line: run tools/execute_notebooks.py on it"
    assert _defaults() == chosen, \
        f'SEARCH_DEFAULTS (chapter 15) differ from the setting chapter 17 chose: {chosen}'


def test_command_line_defaults_follow():
    from transformer_nb.translate import build_parser
    from transformer_nb.evaluate_cli import _parser
    beams, alpha, ngram, rerank = _defaults()
    t = build_parser().parse_args([])
    e = _parser().parse_args(['--bible-split', 'test'])
    flag = rerank or 'none'
    assert (t.beams, t.length_penalty, t.no_repeat_ngram_size, t.rerank) == (beams, alpha, ngram, flag)
    assert (e.beams, e.length_penalty, e.no_repeat_ngram_size, e.rerank) == ([beams], alpha, ngram, flag)


def test_the_check_can_fail(tmp_path):
    line = "chosen: num_beams=8, length_penalty=1.4, no_repeat_ngram_size=4, rerank='checks'\n"
    nb = {'cells': [{'cell_type': 'code', 'outputs': [{'text': [line]}]}]}
    (tmp_path / 'a.ipynb').write_text(json.dumps(nb))
    assert chosen_in(tmp_path / 'a.ipynb') == (8, 1.4, 4, 'checks')
    nb['cells'][0]['outputs'][0]['text'] = [line.replace("'checks'", 'None').replace('=4,', '=0,')]
    (tmp_path / 'b.ipynb').write_text(json.dumps(nb))
    assert chosen_in(tmp_path / 'b.ipynb') == (8, 1.4, 0, None)
    (tmp_path / 'c.ipynb').write_text(json.dumps({'cells': []}))
    assert chosen_in(tmp_path / 'c.ipynb') is None
