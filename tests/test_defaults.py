"""The translator's decoding defaults are the setting chapter 17 chose on the validation books.

Chapter 17 sweeps beam widths and length penalties on validation verses and prints one line
`chosen: num_beams=K, length_penalty=A`; `SEARCH_DEFAULTS` (chapter 15), which `Translator`,
`transformer-nb translate`, `transformer-nb evaluate` and the exports use, must say the same, so that the
README's commands reproduce the README's table."""
import json, re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHOSEN = re.compile(r'chosen: num_beams=(\d+), length_penalty=([0-9.]+)')


def chosen_in(nb_path: Path) -> tuple | None:
    "(num_beams, length_penalty) printed in a notebook's stored outputs, or None."
    for c in json.loads(nb_path.read_text())['cells']:
        for o in c.get('outputs', []):
            m = CHOSEN.search(''.join(o.get('text', '')))
            if m:
                return int(m.group(1)), float(m.group(2))
    return None


def test_defaults_are_the_validation_choice():
    from transformer_nb.translate import SEARCH_DEFAULTS
    chosen = chosen_in(ROOT / 'nbs' / '17_evaluation.ipynb')
    assert chosen, "chapter 17 stores no 'chosen: ...' line: run tools/execute_notebooks.py on it"
    assert (SEARCH_DEFAULTS['num_beams'], SEARCH_DEFAULTS['length_penalty']) == chosen, \
        f'SEARCH_DEFAULTS (chapter 15) differ from the setting chapter 17 chose: {chosen}'


def test_command_line_defaults_follow():
    from transformer_nb.translate import SEARCH_DEFAULTS, build_parser
    from transformer_nb.evaluate_cli import _parser
    t = build_parser().parse_args([])
    e = _parser().parse_args(['--bible-split', 'test'])
    assert (t.beams, t.length_penalty) == (SEARCH_DEFAULTS['num_beams'], SEARCH_DEFAULTS['length_penalty'])
    assert (e.beams, e.length_penalty) == ([SEARCH_DEFAULTS['num_beams']], SEARCH_DEFAULTS['length_penalty'])


def test_the_check_can_fail(tmp_path):
    nb = {'cells': [{'cell_type': 'code', 'outputs': [{'text': ['chosen: num_beams=8, length_penalty=1.4\n']}]}]}
    (tmp_path / 'a.ipynb').write_text(json.dumps(nb))
    assert chosen_in(tmp_path / 'a.ipynb') == (8, 1.4)
