"""Random text never crashes the translator: Unicode of every kind through `Translator` with its default settings
(the checks of the n-best list read numbers, so digits of every script, superscripts and circled numbers are in the
mix), through the number reader, and through the `translate` and `evaluate` commands."""
import random, subprocess, sys
from pathlib import Path

import pytest

ALPHABETS = [
    'abcdefghijklmnopqrstuvwxyz ', 'áéíóúñüÁÉÍÓÚÑ¿¡ ', '0123456789.,', '٠١٢٣٤٥٦٧٨٩', '०१२३४५६७८९',
    '²³¹⁴₀₁₂₄', '①②③⑥⑳', 'Ⅻⅻ½¾', '汉字テスト한국어', 'שלוםمرحبا', 'e\u0301a\u0308', '😀🚆👩\u200d💻',
    '\x00\x0b\x0c\x85\u2028\t', '\u00a0\u2009\u3000', '—–-·…«»“”‘’', '\ud83d\udce9\udce9',
]


def random_texts(n: int, seed: int = 0) -> list:
    "n strings of 1 to 24 characters drawn from a few alphabets each, none of them a newline."
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        pool = ''.join(rng.sample(ALPHABETS, rng.randint(1, 4)))
        out.append(''.join(rng.choice(pool) for _ in range(rng.randint(1, 24))))
    return out


@pytest.fixture(scope='module')
def texts():
    return random_texts(150)


def test_translator_takes_anything(texts):
    from transformer_nb.translation.translator import Translator
    out = Translator.from_pretrained('book').translate(texts)
    assert len(out) == len(texts) and all(isinstance(t, str) for t in out)


def test_number_reader_takes_anything(texts):
    from transformer_nb.text.checks import extract_numbers, number_mismatch
    for t in texts:
        for lang in ('es', 'en'):
            assert all(isinstance(n, int) for n in extract_numbers(t, lang))
        assert number_mismatch(t, t[::-1]) in (True, False)


def cli(*args, stdin=''):
    "Run a command; lone surrogates go in as the invalid UTF-8 bytes a broken file holds."
    exe = Path(sys.executable).parent / 'transformer-nb'
    r = subprocess.run([str(exe), *args], input=stdin.encode('utf-8', 'surrogatepass'),
                       capture_output=True, timeout=600)
    r.stdout, r.stderr = (x.decode('utf-8', 'replace') for x in (r.stdout, r.stderr))
    return r


def test_commands_take_anything(texts, tmp_path):
    lines = [t.replace('\r', ' ') for t in texts[:30]]
    lines = [' '.join(t.split('\n')) for t in lines]
    r = cli('translate', '--num-beams', '2', stdin=''.join(l + '\n' for l in lines))
    assert r.returncode == 0, r.stderr[-2000:]
    assert 'internal error' not in r.stderr and len(r.stdout.split('\n')) == len(lines) + 1
    tsv = tmp_path / 'pairs.tsv'
    pairs = [(a.replace('\t', ' '), b.replace('\t', ' ')) for a, b in zip(lines[:15], lines[15:])]
    tsv.write_bytes(''.join(f'{a}\t{b}\n' for a, b in pairs).encode('utf-8', 'surrogatepass'))
    r = cli('evaluate', '--tsv', str(tsv), '--beams', '1', '--max-new-tokens', '20')
    assert r.returncode == 0 and 'internal error' not in r.stderr and 'Traceback' not in r.stderr, r.stderr[-2000:]
