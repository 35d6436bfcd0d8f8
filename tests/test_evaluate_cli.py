"""`transformer-nb evaluate` / `python -m transformer_nb.cli.evaluate` on a tiny random model: plumbing, table and JSON output, errors."""
import contextlib, io, json, shutil, subprocess, sys
from pathlib import Path

import pytest

from transformer_nb.data.corpus import load_bible
from transformer_nb.cli.evaluate import main
from transformer_nb.generation.config import CHOSEN

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope='module')
def saved(tmp_path_factory, tiny_model):
    "A tiny random model with a 300-piece tokenizer, saved like a trained one, and a 4-column TSV of 6 pairs."
    d = tmp_path_factory.mktemp('evaluate')
    shutil.copytree(tiny_model(256), d / 'model')
    valid = load_bible('valid', src_lang='es')
    rows = [f'{i}\tignored\t{s}\t{t}\n' for i, (s, t) in enumerate(zip(valid.src[:6], valid.tgt[:6]))]
    (d / 'pairs.tsv').write_text(''.join(rows), encoding='utf-8')
    return d


def run_main(argv):
    out = io.StringIO()
    with contextlib.redirect_stdout(out): rc = main(argv)
    return rc, out.getvalue()


def test_tsv_two_settings(saved, tmp_path):
    rc, out = run_main(['--checkpoint', str(saved / 'model'), '--tsv', str(saved / 'pairs.tsv'), '--src-col', '2', '--tgt-col', '3',
                        '--num-beams', '1', '2', '--limit', '4', '--max-new-tokens', '6', '--hypotheses', str(tmp_path / 'hyp.txt')])
    assert rc == 0
    lines = out.strip().splitlines()
    assert lines[0].startswith('4 sentence pairs from') and 'es→en' in lines[0]
    for row in ('BLEU', 'chrF', 'repetition errors %', 'number mismatches %', 'unknown tokens %', 'length ratio'):
        assert any(l.startswith(row) for l in lines), row
    assert 'greedy' in lines[1] and f"beam 2, α={CHOSEN.gnmt_alpha:g}" in lines[1]
    summary = json.loads(lines[-1])
    assert summary['n'] == 4 and [r['num_beams'] for r in summary['results']] == [1, 2]
    for r in summary['results']:
        assert 0 <= r['bleu'] <= 100 and 0 <= r['chrf'] <= 100 and r['n'] == 4
        assert {'repetition_pct', 'number_mismatch_pct', 'unk_hypothesis_pct', 'length_ratio_mean', 'length_ratio_std', 'by_length'} <= set(r)
        assert sum(b['n'] for b in r['by_length']) == 4
    assert summary['bleu_signature'].startswith('nrefs:1|case:mixed|eff:no|tok:13a')
    assert len((tmp_path / 'hyp.txt').read_text(encoding='utf-8').splitlines()) == 4


def test_optimize_int8_is_the_int8_flag(saved):
    "--optimize int8 and --int8 evaluate the same int8 copy: the same scores."
    base = ['--checkpoint', str(saved / 'model'), '--tsv', str(saved / 'pairs.tsv'), '--num-beams', '1', '--limit', '4',
            '--max-new-tokens', '6']
    scores = [json.loads(run_main(base + flags)[1].strip().splitlines()[-1])['results']
              for flags in (['--optimize', 'int8'], ['--int8'])]
    for r in (*scores[0], *scores[1]): del r['seconds']
    assert scores[0] == scores[1]


def test_split_reaches_the_translator(saved, tmp_path):
    "--split scores the translator's sentence-by-sentence translations; without it, whole lines (the book's protocol)."
    from transformer_nb.translation.translator import Translator
    valid = load_bible('valid', src_lang='es')
    lines = [' '.join(valid.src[i:i + 3]) for i in (0, 3)], [' '.join(valid.tgt[i:i + 3]) for i in (0, 3)]
    (tmp_path / 'para.tsv').write_text(''.join(f'{s}\t{t}\n' for s, t in zip(*lines)), encoding='utf-8')
    tr = Translator.from_pretrained(saved / 'model', num_beams=1, max_new_tokens=6)
    for flag in ([], ['--split']):
        hyp = tmp_path / 'hyp.txt'
        rc, out = run_main(['--checkpoint', str(saved / 'model'), '--tsv', str(tmp_path / 'para.tsv'), '--num-beams', '1',
                            '--max-new-tokens', '6', '--hypotheses', str(hyp), *flag])
        assert rc == 0 and json.loads(out.strip().splitlines()[-1])['split'] == bool(flag)
        assert hyp.read_text(encoding='utf-8').splitlines() == tr.translate(lines[0], split=bool(flag))


def test_bible_split_baseline_books(saved):
    rc, out = run_main(['--checkpoint', str(saved / 'model'), '--bible-split', 'test', '--books', 'baseline',
                        '--num-beams', '1', '--limit', '3', '--max-new-tokens', '5'])
    summary = json.loads(out.strip().splitlines()[-1])
    assert rc == 0 and summary['n'] == 3 and summary['data'] == 'bible test (baseline)'


@pytest.mark.parametrize('argv, message', [
    (['--tsv', 'PAIRS'], 'no config.json'),  # checkpoint folder without a model
    (['--tsv', 'missing.tsv'], 'no such file'),
    (['--tsv', 'PAIRS', '--src-col', '1', '--tgt-col', '1'], 'two different columns'),
    (['--bible-split', 'test', '--books', 'Narnia'], 'unknown book'),
    (['--tsv', 'PAIRS', '--num-beams', '0'], 'argument --num-beams/--beams: must be >= 1'),
    (['--tsv', 'PAIRS', '--int8', '--optimize', 'none'], 'not allowed with argument --int8'),
])
def test_bad_arguments_exit_with_a_message(saved, tmp_path, argv, message):
    ckpt = tmp_path if message == 'no config.json' else saved / 'model'
    argv = ['--checkpoint', str(ckpt)] + [str(saved / 'pairs.tsv') if a == 'PAIRS' else a for a in argv]
    err = io.StringIO()
    with contextlib.redirect_stderr(err), pytest.raises(SystemExit) as e: main(argv)
    assert e.value.code == 2 and message in err.getvalue(), err.getvalue()


def test_a_foreign_tokenizer_is_refused(saved, tmp_path):
    "A model folder whose tokenizer is not the model's (the book's 8,000 pieces for a 300-piece model): status 2."
    from transformer_nb.model.transformer import pretrained_path
    shutil.copytree(saved / 'model', tmp_path / 'model')
    shutil.copy(pretrained_path('book') / 'tokenizer.model', tmp_path / 'model' / 'tokenizer.model')
    err = io.StringIO()
    with contextlib.redirect_stderr(err), pytest.raises(SystemExit) as e:
        main(['--checkpoint', str(tmp_path / 'model'), '--tsv', str(saved / 'pairs.tsv')])
    assert e.value.code == 2 and 'do not belong together' in err.getvalue(), err.getvalue()


def test_python_dash_m(saved):
    "The module runs as a script (the `if __name__ == '__main__'` guard) and exits 0."
    r = subprocess.run([sys.executable, '-m', 'transformer_nb.cli.evaluate', '--checkpoint', str(saved / 'model'),
                        '--tsv', str(saved / 'pairs.tsv'), '--src-col', '2', '--tgt-col', '3', '--num-beams', '2',
                        '--limit', '2', '--max-new-tokens', '4'], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    summary = json.loads(r.stdout.strip().splitlines()[-1])
    # stderr is a pipe, not a terminal: progress comes as plain lines, the last at 100 %
    assert r.stderr.strip().splitlines()[-1].startswith('2/2 sentences (100%)'), r.stderr
    d = CHOSEN  # the translator's defaults, chosen in chapter 17, named where not plain
    name = f"beam 2, α={d.gnmt_alpha:g}"
    name += f", block {d.no_repeat_ngram_size}" if d.no_repeat_ngram_size else ''
    name += ', checks' if d.rerank == 'checks' else ''
    assert summary['n'] == 2 and summary['results'][0]['decoding'] == name


NUMBERED = ['Son 25 hombres. Y 3 mujeres.', 'Tenía 1492 ovejas; dio 7.', 'Nada.']


def test_evaluate_and_translate_read_a_line_alike(saved, tmp_path, monkeypatch):
    """`evaluate --split` and `translate` read the same lines the same way (one reading, chapter 9c's `read_lines`),
    numbers included, for a model saved with the book's number rules: the same segments reach the model, the same
    translations come out. The check is sensitive: evaluate with the number rule skipped (--numbers digits) gives the
    model the digits, and the comparison fails."""
    import json as json_
    from transformer_nb.text.sentences import BOOK_RULES
    from transformer_nb.translation.translator import Translator
    model = tmp_path / 'model'
    shutil.copytree(saved / 'model', model)
    (model / 'text_rules.json').write_text(json_.dumps(BOOK_RULES))
    refs = ['They were 25 men. And 3 women.', 'He had 1492 sheep; he gave 7.', 'Nothing.']
    (tmp_path / 'numbered.tsv').write_text(''.join(f'{s}\t{t}\n' for s, t in zip(NUMBERED, refs)), encoding='utf-8')
    given, ids = [], Translator._ids
    monkeypatch.setattr(Translator, '_ids', lambda self, per_line, **kw: (given.append(per_line), ids(self, per_line, **kw))[1])

    def evaluate(*flags):
        given.clear()
        hyp = tmp_path / 'hyp.txt'
        rc, _ = run_main(['--checkpoint', str(model), '--tsv', str(tmp_path / 'numbered.tsv'), '--num-beams', '1',
                          '--max-new-tokens', '6', '--split', '--hypotheses', str(hyp), *flags])
        assert rc == 0
        return hyp.read_text(encoding='utf-8').splitlines(), list(given)

    hyps, by_evaluate = evaluate()
    given.clear()
    tr = Translator.from_pretrained(model, num_beams=1, max_new_tokens=6, direction='es-en')  # as the test above
    assert hyps == tr.translate(NUMBERED)
    by_translate = list(given)
    assert by_evaluate == by_translate
    assert ['Son veinticinco hombres.', 'Y tres mujeres.'] in by_evaluate[0]  # spelled: the model's rule
    skipped, by_skipping = evaluate('--numbers', 'digits')
    assert by_skipping != by_translate and ['Son 25 hombres.', 'Y 3 mujeres.'] in by_skipping[0]


def test_evaluate_names_its_deployment(saved):
    "The JSON line says which copy of the model each setting decoded with (`translate_ids`' `deployment`)."
    from transformer_nb.deploy.optimize import deployed_as, optimize_for
    from transformer_nb.model.transformer import load_pretrained
    from transformer_nb.translation.evaluate import translate_ids
    base = ['--checkpoint', str(saved / 'model'), '--tsv', str(saved / 'pairs.tsv'), '--num-beams', '1', '--limit', '2',
            '--max-new-tokens', '4']
    for flags, want in (([], deployed_as(optimize_for(load_pretrained(saved / 'model'), 'auto')) or 'none'),
                        (['--optimize', 'int8'], 'int8')):
        summary = json.loads(run_main(base + flags)[1].strip().splitlines()[-1])
        assert [r['deployment'] for r in summary['results']] == [want]
    from transformer_nb.data.corpus import Tokenizer
    model, tok = load_pretrained(saved / 'model'), Tokenizer.load(saved / 'model' / 'tokenizer.model')
    src = load_bible('valid', src_lang='es').src[:2]
    plain = translate_ids(model, tok, src, max_new_tokens=4, deployment=None)
    assert translate_ids(model, tok, src, max_new_tokens=4) == plain  # 'auto' by default: the same ids here
