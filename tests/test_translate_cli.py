"""The `translate` command line on a tiny saved model and the shipped one: arguments, standard input, empty input, a
sentence longer than the model's max_len, unseen characters, a missing model, numbers, streaming and stopping. Each
call runs the command as its console script does (`run_main`), in this process; what needs a process of its own
(the environment a compiler is found in, signals, input left open, peak memory) starts one."""
import contextlib, io, os, subprocess, sys, threading
from typing import NamedTuple
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope='module')
def model_dir(tiny_model):
    "A random tiny model (max_len 32) and a SentencePiece tokenizer trained on 600 lines of the shipped corpus, saved together."
    return tiny_model(32)


class Ran(NamedTuple):
    returncode: int
    stdout: str
    stderr: str


def run(*args, stdin: str | bytes | None = None, process: bool = False) -> Ran:
    """`transformer-nb translate ARGS` as the console script runs it (`run_main`), in this process, its standard
    input `stdin` (text or bytes); what it returned and wrote. process=True: `python -m transformer_nb.cli.translate`
    in a fresh process, for what a process must show (the environment it starts with)."""
    stdin = stdin or ''
    data = stdin.encode('utf-8') if isinstance(stdin, str) else stdin
    if process:
        env = {**os.environ, 'PYTHONPATH': str(ROOT) + os.pathsep + os.environ.get('PYTHONPATH', ''),
               'OMP_NUM_THREADS': '1'}
        env.pop('TRANSFORMER_NB_CHECKPOINT', None)
        r = subprocess.run([sys.executable, '-m', 'transformer_nb.cli.translate', *args], input=data,
                           capture_output=True, env=env, cwd=ROOT, timeout=300)
        return Ran(r.returncode, r.stdout.decode('utf-8'), r.stderr.decode('utf-8'))
    from transformer_nb.cli.translate import main
    from transformer_nb.utils import run_main
    out, err = io.TextIOWrapper(io.BytesIO(), encoding='utf-8'), io.StringIO()
    with pytest.MonkeyPatch.context() as mp:
        mp.delenv('TRANSFORMER_NB_CHECKPOINT', raising=False)
        mp.setattr(sys, 'stdin', io.TextIOWrapper(io.BytesIO(data), encoding='utf-8'))
        mp.setattr(sys, 'stdout', out)
        mp.setattr(sys, 'stderr', err)
        status = run_main(main, list(args), prog='transformer-nb translate')
        out.flush()
    return Ran(status, out.buffer.getvalue().decode('utf-8'), err.getvalue())


def expected(model_dir, sentences, **kw):
    "What Translator.translate returns in this process for the same model and settings."
    from transformer_nb.translation.translator import Translator
    return Translator.from_pretrained(model_dir, **kw).translate(sentences)


SENTENCES = ['Y fué la tarde y la mañana el día tercero.', 'Jehová te bendiga, y te guarde.']
LONG = ' '.join(['Y juntólos en la cárcel por tres días.'] * 12)  # far more than 32 pieces
UNSEEN = 'Ωμέγα ☃ 汉字 y la tierra.'


def test_arguments(model_dir):
    "Sentences given as arguments: one line each, exactly what Translator.translate gives, nothing on stderr."
    r = run('--checkpoint', str(model_dir), '--max-new-tokens', '8', *SENTENCES)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == expected(model_dir, SENTENCES, max_new_tokens=8)
    assert r.stderr == ''


def test_stdin_greedy_and_blank_lines(model_dir):
    "Lines from standard input, greedy (--beams 1): one output line per input line, blank lines stay blank."
    r = run('--checkpoint', str(model_dir), '--beams', '1', '--max-new-tokens', '6', stdin=f'{SENTENCES[0]}\n\n{SENTENCES[1]}\n')
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert len(lines) == 3 and lines[1] == ''
    assert [lines[0], lines[2]] == expected(model_dir, SENTENCES, num_beams=1, max_new_tokens=6)


def test_int8(model_dir):
    "--int8 decodes with the int8 copy: exactly what Translator.from_pretrained(optimize='int8') gives."
    r = run('--checkpoint', str(model_dir), '--int8', '--max-new-tokens', '8', *SENTENCES)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == expected(model_dir, SENTENCES, max_new_tokens=8,
                                             optimize='int8')
    same = run('--checkpoint', str(model_dir), '--optimize', 'int8', '--max-new-tokens', '8', *SENTENCES)
    assert same.stdout == r.stdout  # --int8 is another spelling of --optimize int8
    r = run('--checkpoint', str(model_dir), '--int8', '--device', 'cuda', 'x')
    if 'not available' not in r.stderr:  # where CUDA exists: int8 asks for the CPU
        assert r.returncode == 2 and '--optimize int8' in r.stderr and len(r.stderr.splitlines()) == 1


def test_compile_errors(model_dir, monkeypatch):
    """--compile with --int8 (two deployments), or where torch.compile cannot build C++: one
    line that names the flags, exit status 2 (tests/test_compiled.py compiles for real)."""
    for both in (['--compile', '--int8'], ['--optimize', 'packed', '--int8']):
        r = run('--checkpoint', str(model_dir), *both, 'x')
        assert r.returncode == 2 and 'not allowed with' in r.stderr and len(r.stderr.splitlines()) == 1
    r = run('--checkpoint', str(model_dir), '--optimize', 'fast', 'x')
    assert r.returncode == 2 and "invalid choice: 'fast'" in r.stderr, r.stderr
    monkeypatch.setenv('CXX', '/nonexistent/c++')  # read when a process first compiles
    r = run('--checkpoint', str(model_dir), '--compile', 'x', process=True)
    assert r.returncode == 2, r.stderr
    assert 'error: --optimize compiled: torch.compile cannot build' in r.stderr, r.stderr
    assert len(r.stderr.splitlines()) == 1


def test_english_input_to_the_spanish_model_is_named():
    "The shipped model reads Spanish: English lines are translated as asked, with one warning line that says so."
    r = run('--checkpoint', 'book', '--num-beams', '1', 'In the beginning God created the heavens and the earth.')
    assert r.returncode == 0 and len(r.stdout.splitlines()) == 1, r.stderr
    assert r.stderr.strip() == ('warning: 1 line(s) read as English, but this model translates es-en: '
                                'give it Spanish sentences (the first: line 0)'), r.stderr
    r = run('--checkpoint', 'book', '--num-beams', '1', 'En el principio creó Dios los cielos y la tierra.')
    assert r.returncode == 0 and r.stderr == '', r.stderr


def test_binary_input_is_named_not_translated():
    """Random bytes on standard input (a binary file piped by mistake): one line out per line in, those made of
    bytes that are not text left blank, and one warning that counts them; a line of Spanish among them translates."""
    import random
    rng = random.Random(0)
    junk = [bytes(rng.randrange(256) for _ in range(80)).replace(b'\n', b' ') for _ in range(30)]
    verse = 'Jehová es mi pastor; nada me faltará.'.encode()
    data = b'\n'.join(junk[:15] + [verse] + junk[15:]) + b'\n'
    r = run('--checkpoint', 'book', '--num-beams', '1', stdin=data)
    out, err = r.stdout.split('\n')[:-1], r.stderr
    assert r.returncode == 0 and len(out) == 31, err
    assert sum(line == '' for line in out) >= 28 and out[15], out
    assert 'line(s) held characters that are not text' in err and err.count('warning:') <= 2, err


def test_empty_input(model_dir):
    "No arguments and nothing on standard input: no output, success."
    r = run('--checkpoint', str(model_dir), stdin='')
    assert (r.returncode, r.stdout) == (0, ''), r.stderr


def test_too_long_and_unseen_characters(model_dir):
    "With --no-split a line past max_len is truncated with a warning on stderr; unseen characters pass as <unk>; both translate."
    r = run('--checkpoint', str(model_dir), '--no-split', '--max-new-tokens', '6', '--batch-size', '1', LONG, UNSEEN)
    assert r.returncode == 0, r.stderr
    assert len(r.stdout.splitlines()) == 2
    assert 'warning:' in r.stderr and 'truncated' in r.stderr and 'max_len=32' in r.stderr
    with pytest.warns(UserWarning, match='truncated'):
        assert r.stdout.splitlines() == expected(model_dir, [LONG, UNSEEN], max_new_tokens=6, split=False)


CLAUSES = ', '.join(['y juntólos en la cárcel por tres días'] * 6) + '.'  # one sentence, far past 32 pieces


def test_lines_split_into_sentences_and_clauses(model_dir):
    "By default a line of 12 sentences, and one long sentence of clauses, are cut until each piece fits: no truncation."
    r = run('--checkpoint', str(model_dir), '--max-new-tokens', '6', LONG, CLAUSES)
    assert (r.returncode, r.stderr) == (0, '')
    assert r.stdout.splitlines() == expected(model_dir, [LONG, CLAUSES], max_new_tokens=6)
    from transformer_nb.translation.translator import Translator
    tr = Translator.from_pretrained(model_dir, max_new_tokens=6)
    assert len(tr._segments(LONG, True)) == 12 and len(tr._segments(CLAUSES, True)) > 1


def test_missing_model(tmp_path):
    "A directory that holds no model: an error message and a non-zero status, no traceback; without --checkpoint, the shipped model."
    r = run('--checkpoint', str(tmp_path / 'nothing'), 'hola')
    assert r.returncode == 2 and '--checkpoint' in r.stderr and 'Traceback' not in r.stderr
    r = run('Jehová es mi pastor.')  # no --checkpoint: the model that ships with the package
    assert r.returncode == 0 and len(r.stdout.splitlines()) == 1 and r.stdout.strip(), r.stderr


def test_bad_option(model_dir):
    "A bad option value is a usage error (status 2) that names the option."
    r = run('--checkpoint', str(model_dir), '--beams', '0', 'hola')
    assert r.returncode == 2 and '--beams' in r.stderr


SHORT = ['Hola', 'Hola.', '¡Hola!', 'Gracias.', 'Buenos días.', 'veintitrés']


def test_short_inputs_translate():
    "The shipped model on one- and two-word inputs (chapter 9b's fix): a line each, none empty, none copied."
    r = run(*SHORT)  # the model that ships with the package, its default search
    assert r.returncode == 0, r.stderr
    out = r.stdout.splitlines()
    assert len(out) == len(SHORT) and all(o.strip() for o in out), out
    assert not any(o.strip(' .!¡') == s.strip(' .!¡') for o, s in zip(out, SHORT)), out
    assert out[1].lower().startswith('hello'), out  # 'Hola.'
    assert 'twenty' in out[-1].lower() and 'three' in out[-1].lower(), out  # 'veintitrés'


def test_one_case_lines_are_recased():
    "A line typed in lower case or in capitals reads as the cased one (names from the vocabulary); --no-truecase keeps it."
    r = run('hola', 'HOLA', 'Hola')
    assert r.returncode == 0, r.stderr
    out = r.stdout.splitlines()
    assert out[0] == out[1] == out[2] and out[0].lower().startswith('hello'), out
    r = run('--no-truecase', 'jehová es mi pastor.')
    assert r.returncode == 0 and r.stdout.splitlines() == expected('book', ['jehová es mi pastor.'], truecase=False)


# sentences with numbers in digits, with references a person wrote (as data/number_sentences.tsv)
WHOLE = {'Tenía 25 años.': 'He was 25 years old.', 'Murió en 1616.': 'He died in 1616.',
         'Había 300 hombres en la ciudad.': 'There were 300 men in the city.'}


def judged(sentences: dict, out: list) -> list:
    "Each translation judged by the whole sentence against its reference (faithfulness, chapter 9c)."
    from transformer_nb.text.sentences import faithfulness
    assert len(out) == len(sentences), out
    return [faithfulness(s, o, ref) for (s, ref), o in zip(sentences.items(), out)]


def test_numbers_in_digits_come_back_with_their_sentence():
    """The shipped model has seen numbers only in words: each is spelled for it and written back in digits, and a line
    whose translation lost one is read again with stand-ins. Judged by the whole sentence, each translation keeps its
    number and the words around it; --numbers spelled and --keep-digits read numbers the other ways."""
    r = run(*WHOLE)
    assert r.returncode == 0, r.stderr
    out = r.stdout.splitlines()
    assert all(j['faithful'] for j in judged(WHOLE, out)), list(zip(out, judged(WHOLE, out)))
    r = run('--numbers', 'spelled', 'Tengo 25 años.')
    assert r.returncode == 0 and r.stdout.splitlines() == expected('book', ['Tengo 25 años.'], stand_ins=())
    r = run('--keep-digits', 'Tengo 25 años.')
    assert r.returncode == 0 and r.stdout.splitlines() == expected('book', ['Tengo 25 años.'], spell_digits=False)


def test_digits_kept_at_the_cost_of_the_sentence_fail():
    """Every number said by a stand-in (--numbers stand-ins, the default before) keeps the digits of these sentences
    and loses the rest ("25 years.", "1616."): the whole-sentence measure fails each of them, as it must."""
    lost = {'Tenía 25 años.': 'He was 25 years old.', 'Murió en 1616.': 'He died in 1616.',
            'Vivió 120 años.': 'He lived 120 years.'}
    r = run('--numbers', 'stand-ins', *lost)
    assert r.returncode == 0, r.stderr
    out = r.stdout.splitlines()
    assert all(j['numbers'] and not j['faithful'] for j in judged(lost, out)), out


@pytest.mark.parametrize('command', ['translate', 'evaluate'])
def test_bf16_where_the_processor_cannot(model_dir, command, monkeypatch, capsys):
    """--optimize bf16 on a processor without bfloat16 arithmetic (simulated: the test of the processor answers no):
    one line that names the flag and what is missing, exit status 2, in both commands that decode."""
    args = ['--checkpoint', str(model_dir), '--optimize', 'bf16']
    args += ['x'] if command == 'translate' else ['--bible-split', 'test', '--limit', '2']
    import importlib
    from transformer_nb.utils import run_main
    monkeypatch.setattr('transformer_nb.deploy.optimize.bf16_arithmetic', lambda *a: False)  # no AVX512-BF16, AMX
    main = importlib.import_module(f'transformer_nb.cli.{command}').main
    status = run_main(main, args, prog=f'transformer-nb {command}')
    r = Ran(status, *capsys.readouterr())
    assert r.returncode == 2 and len(r.stderr.splitlines()) == 1, r.stderr
    assert '--optimize bf16: bf16 decoding needs bfloat16 arithmetic' in r.stderr, r.stderr


# Streaming: what is translated is written at once, in order, whatever stops the command.

def start(model_dir, *args, out=None):
    "The command in a fresh process group, its input a pipe left open: the Popen."
    env = {**os.environ, 'PYTHONPATH': str(ROOT) + os.pathsep + os.environ.get('PYTHONPATH', ''), 'OMP_NUM_THREADS': '1'}
    return subprocess.Popen([sys.executable, '-m', 'transformer_nb.cli.translate', '--checkpoint', str(model_dir),
                             '--beams', '1', '--max-new-tokens', '4', *args, *(['--output', str(out)] if out else [])],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=ROOT,
                            start_new_session=True)


def lines_on_disk(path, proc, at_least=1, limit=300):
    "Wait (at most `limit` s, never as a measure) until `path` holds `at_least` whole lines; the lines."
    import time
    for _ in range(limit * 10):
        text = path.read_text(encoding='utf-8') if path.exists() else ''
        if text.count('\n') >= at_least or proc.poll() is not None:
            return text.splitlines()
        time.sleep(0.1)
    return text.splitlines()


def verses(n):
    from transformer_nb.data.corpus import load_bible
    src = load_bible('valid', src_lang='es').src
    return [src[i % len(src)] for i in range(n)]


def test_first_lines_are_written_before_the_input_ends(model_dir, tmp_path):
    "Two lines sent, the input left open: the first translation is on disk, the command still reading."
    proc = start(model_dir, out=tmp_path / 'out.txt')
    try:
        proc.stdin.write(''.join(s + '\n' for s in SENTENCES).encode())
        proc.stdin.flush()
        got = lines_on_disk(tmp_path / 'out.txt', proc, at_least=1)
        assert proc.poll() is None, proc.stderr.read().decode()  # still waiting for input
        assert got == expected(model_dir, SENTENCES[:1], num_beams=1, max_new_tokens=4)
    finally:
        proc.kill()
        proc.communicate()


@pytest.mark.parametrize('sig', ['SIGINT', 'SIGTERM'])
def test_a_stop_leaves_the_translated_prefix(model_dir, tmp_path, sig):
    """Ctrl-C (SIGINT to the process group) or SIGTERM mid-run: every translated line is on disk, whole and in order,
    one line on stderr says how many, exit status 130."""
    import signal
    lines = verses(3000)
    proc = start(model_dir, out=tmp_path / 'out.txt')
    def feed():  # more than a pipe holds: written as the command reads; the input stays open
        with contextlib.suppress(OSError):
            proc.stdin.write(''.join(s + '\n' for s in lines).encode())
            proc.stdin.flush()
    threading.Thread(target=feed, daemon=True).start()
    lines_on_disk(tmp_path / 'out.txt', proc, at_least=40)
    os.killpg(proc.pid, getattr(signal, sig))
    _, err = proc.communicate()
    err = err.decode()
    got = (tmp_path / 'out.txt').read_text(encoding='utf-8')
    assert proc.returncode == 130 and len(err.splitlines()) == 1, err
    assert got.endswith('\n') and 40 <= got.count('\n') < len(lines)
    done = got.splitlines()
    assert f'interrupted; {len(done)} translated line(s) in {tmp_path / "out.txt"}' in err, err
    assert done == expected(model_dir, lines[:len(done)], num_beams=1, max_new_tokens=4)


def peak_memory(model_dir, tmp_path, n):
    "The peak resident memory (kB) of the command translating n lines from a file to a file."
    src = tmp_path / f'in{n}.txt'
    src.write_text(''.join(s + '\n' for s in verses(n)), encoding='utf-8')
    code = ('import resource, sys\nfrom transformer_nb.cli.translate import main\nfrom transformer_nb.utils import run_main\n'
            'status = run_main(main)\nprint(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)\n'
            'sys.exit(status)')
    env = {**os.environ, 'PYTHONPATH': str(ROOT) + os.pathsep + os.environ.get('PYTHONPATH', ''), 'OMP_NUM_THREADS': '1'}
    with open(src, 'rb') as f:
        r = subprocess.run([sys.executable, '-c', code, '--checkpoint', str(model_dir), '--beams', '1',
                            '--max-new-tokens', '2', '--output', str(tmp_path / f'out{n}.txt')],
                           stdin=f, capture_output=True, text=True, env=env, cwd=ROOT, timeout=900)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / f'out{n}.txt').read_text(encoding='utf-8').count('\n') == n
    return int(r.stderr.split()[-1])


def test_memory_is_bounded_by_a_window(model_dir, tmp_path):
    "Ten times the lines, not ten times the memory: 10,000 lines peak within 1.5x of 1,000."
    small, large = peak_memory(model_dir, tmp_path, 1000), peak_memory(model_dir, tmp_path, 10000)
    print(f'peak memory: 1,000 lines {small / 1024:.0f} MB, 10,000 lines {large / 1024:.0f} MB')
    assert large <= 1.5 * small, (small, large)


NUMBERED = ['Son 25 hombres.', 'Tenía 1492 ovejas.']


def test_numbers_are_read_by_the_models_rules(model_dir, tmp_path):
    """A model saved without number rules reads digits as typed; saved with the book's (`text_rules.json`), it spells
    them for the model: the command and `Translator` read them alike in both cases, and --numbers digits asks for
    digits whatever the model's rules."""
    import json, shutil
    from transformer_nb.text.sentences import BOOK_RULES
    from transformer_nb.translation.translator import Translator
    ruled = tmp_path / 'ruled'
    shutil.copytree(model_dir, ruled)
    (ruled / 'text_rules.json').write_text(json.dumps(BOOK_RULES))
    for folder, numbers in ((model_dir, 'digits'), (ruled, 'retry')):
        assert Translator.from_pretrained(folder).rules.numbers == numbers
        r = run('--checkpoint', str(folder), '--max-new-tokens', '6', *NUMBERED)
        assert (r.returncode, r.stderr) == (0, ''), r.stderr
        assert r.stdout.splitlines() == expected(folder, NUMBERED, max_new_tokens=6)
    assert Translator.from_pretrained(ruled, spell_digits=False).rules.numbers == 'digits'
    r = run('--checkpoint', str(ruled), '--max-new-tokens', '6', '--numbers', 'digits', *NUMBERED)
    assert r.stdout.splitlines() == expected(model_dir, NUMBERED, max_new_tokens=6)  # as the model without rules
    # and --numbers retry asks for the spelled reading of a model saved without rules
    r = run('--checkpoint', str(model_dir), '--max-new-tokens', '6', '--numbers', 'retry', *NUMBERED)
    asked = dict(max_new_tokens=6, stand_ins_first=False)
    assert r.stdout.splitlines() == expected(model_dir, NUMBERED, **asked)
    from transformer_nb.generation.config import NUMBER_READINGS
    read = {k: Translator.from_pretrained(model_dir, **v).rules.numbers for k, v in NUMBER_READINGS.items()}
    assert read == {None: 'digits', 'retry': 'retry', 'stand-ins': 'stand-ins', 'spelled': 'retry',
                    'digits': 'digits'}, read  # spelled: retry with no stand-ins
