"""The translator's decoding defaults are the setting chapter 17 chose on the validation books.

Chapter 17 sweeps beam widths and length penalties on validation verses, then the repetition block
and the checks of the n-best list, and prints one line
`chosen: num_beams=K, gnmt_alpha=A, no_repeat_ngram_size=N, rerank=R`; `CHOSEN`
(appendix 95, `GenerationConfig`), which `Translator`, `transformer-nb translate`, `transformer-nb
evaluate` and the exports use, must say the same, so that the README's commands reproduce the
README's table. No other module of the package may hold a decoding default of its own."""
import json, re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHOSEN = re.compile(
    r"chosen: num_beams=(\d+), gnmt_alpha=([0-9.]+), "
    r"no_repeat_ngram_size=(\d+), rerank=(None|'checks')"
)


def chosen_in(nb_path: Path) -> tuple | None:
    "(num_beams, gnmt_alpha, no_repeat_ngram_size, rerank) printed in a notebook's outputs."
    for c in json.loads(nb_path.read_text())['cells']:
        for o in c.get('outputs', []):
            m = CHOSEN.search(''.join(o.get('text', '')))
            if m:
                rerank = None if m.group(4) == 'None' else m.group(4).strip("'")
                return int(m.group(1)), float(m.group(2)), int(m.group(3)), rerank
    return None


def _defaults() -> tuple:
    from transformer_nb.generation.config import CHOSEN as d
    return d.num_beams, d.gnmt_alpha, d.no_repeat_ngram_size, d.rerank


def test_defaults_are_the_validation_choice():
    chosen = chosen_in(ROOT / 'nbs' / '17_evaluation.ipynb')
    assert chosen, "chapter 17 stores no 'chosen: ...' line: run tools/execute_notebooks.py on it"
    assert _defaults() == chosen, \
        f'CHOSEN (generation_config) differs from the setting chapter 17 chose: {chosen}'


def test_command_line_defaults_follow():
    from transformer_nb.cli.translate import build_parser
    from transformer_nb.cli.evaluate import _parser
    beams, alpha, ngram, rerank = _defaults()
    from transformer_nb.generation.config import from_args
    t = from_args(build_parser().parse_args([]))
    e_args = _parser().parse_args(['--bible-split', 'test'])
    e = from_args(e_args)
    assert (t.num_beams, t.gnmt_alpha, t.no_repeat_ngram_size, t.rerank) == (beams, alpha, ngram, rerank)
    assert (e_args.beam_widths, e.gnmt_alpha, e.no_repeat_ngram_size, e.rerank) == ([beams], alpha, ngram, rerank)
    for name in ('length_penalty', 'gnmt_alpha', 'no_repeat_ngram_size', 'rerank'):
        assert f'--{name.replace("_", "-")}' in build_parser().format_help()


def test_the_check_can_fail(tmp_path):
    line = "chosen: num_beams=8, gnmt_alpha=1.4, no_repeat_ngram_size=4, rerank='checks'\n"
    nb = {'cells': [{'cell_type': 'code', 'outputs': [{'text': [line]}]}]}
    (tmp_path / 'a.ipynb').write_text(json.dumps(nb))
    assert chosen_in(tmp_path / 'a.ipynb') == (8, 1.4, 4, 'checks')
    nb['cells'][0]['outputs'][0]['text'] = [line.replace("'checks'", 'None').replace('=4,', '=0,')]
    (tmp_path / 'b.ipynb').write_text(json.dumps(nb))
    assert chosen_in(tmp_path / 'b.ipynb') == (8, 1.4, 0, None)
    (tmp_path / 'c.ipynb').write_text(json.dumps({'cells': []}))
    assert chosen_in(tmp_path / 'c.ipynb') is None


SETTINGS = ('num_beams', 'length_penalty', 'gnmt_alpha', 'no_repeat_ngram_size', 'rerank',
            'repetition_penalty', 'min_new_tokens', 'max_new_tokens', 'early_stopping')


def second_defaults(source: str) -> list:
    "Decoding settings given a default outside `generation_config`: `num_beams: int = 4`, `num_beams=4,` in a dict."
    literal = r"-?\d[\d.]*|'[^']*'|True|False"  # a number, a string or a bool: a default
    pattern = re.compile(rf"^\s*(?:{'|'.join(SETTINGS)})\s*(?::[^=\n]*)?=\s*(?:{literal})", re.M)
    return [m.group(0).strip() for m in pattern.finditer(source)]


def test_one_owner_of_the_defaults():
    "Only generation/config.py writes a decoding setting's default (evaluate's greedy aside)."
    pkg = ROOT / 'transformer_nb'
    allowed = {'generation/config': None, 'translation/evaluate': {'num_beams: int = 1'}}
    paths = sorted(pkg.rglob('*.py'))
    assert len(paths) > 40 and pkg / 'generation' / 'beam.py' in paths  # the check sees every module
    for path in paths:
        name = path.relative_to(pkg).with_suffix('').as_posix()
        if name == '_modidx' or allowed.get(name, ()) is None:
            continue
        found = set(second_defaults(path.read_text())) - set(allowed.get(name, ()))
        assert not found, f'{path.name} holds decoding defaults of its own: {sorted(found)}'


def test_the_owner_check_can_fail():
    assert second_defaults('def f(\n    num_beams: int = 4,\n):') == ['num_beams: int = 4']
    assert second_defaults("SEARCH = dict(\n    no_repeat_ngram_size=4,\n)") == ['no_repeat_ngram_size=4']
    assert second_defaults('    num_beams=args.beams,\n    max_new_tokens=None,') == []
