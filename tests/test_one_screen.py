"""The model on one screen (the last section of chapter 8) is the book's model.

The chapter shows the one-screen model in one cell and tests it equal to `Transformer` with a `tiny` model's weights
copied in (logits within 1e-5). Here, where the data and generation chapters are available, the same cells, run as
the chapter shows them, get the shipped weights (`load_pretrained('book')`): on 20 verses of the Bible test split,
their greedy decoding gives the tokens of `generate(model, src, num_beams=1)`, and their teacher-forced logits are
the model's."""
import json
from pathlib import Path

import pytest

torch = pytest.importorskip('torch')

ROOT = Path(__file__).resolve().parents[1]
CHAPTER = ROOT / 'nbs' / '08_model.ipynb'
# the first lines that mark the chapter's cells: the model, and the copy of our weights into it
ONE_SCREEN, COPY = '# The Transformer on one screen', '# Our weights in the one-screen model'
N_VERSES, MAX_LINES = 20, 150


def chapter_cell(first_line: str) -> str:
    "The source of the chapter's code cell that starts with `first_line`."
    cells = [''.join(c['source']) for c in json.loads(CHAPTER.read_text())['cells'] if c['cell_type'] == 'code']
    found = [s for s in cells if s.startswith(first_line)]
    assert len(found) == 1, f'{CHAPTER.name}: {len(found)} code cells start with {first_line!r}'
    return found[0]


@pytest.fixture(scope='module')
def one_screen() -> dict:
    "The names the two cells define, run one after the other as in the chapter."
    from transformer_nb.model.transformer import Transformer
    ns = {'Transformer': Transformer}
    for first_line in (ONE_SCREEN, COPY):
        exec(compile(chapter_cell(first_line), f'{CHAPTER.name}: {first_line}', 'exec'), ns)
    return ns


@pytest.fixture(scope='module')
def book():
    from transformer_nb.model.transformer import load_pretrained
    torch.set_num_threads(2)
    return load_pretrained('book')


@pytest.fixture(scope='module')
def src(book):
    "20 test verses, tokenized as the translator does (⟨EOS⟩ at the end), padded into one batch."
    from transformer_nb.data.corpus import Tokenizer, load_bible
    from transformer_nb.utils import pretrained_path
    verses = load_bible('test', src_lang='es').src[:N_VERSES]
    ids = Tokenizer.load(pretrained_path('book')).encode(verses)
    rows = [torch.tensor(r) for r in ids]
    return torch.nn.utils.rnn.pad_sequence(rows, batch_first=True, padding_value=book.config.pad_token_id)


def test_one_screen_fits_one_screen():
    lines = [l for l in chapter_cell(ONE_SCREEN).splitlines() if l.strip()]
    assert len(lines) <= MAX_LINES, f'the one-screen model has {len(lines)} lines'
    for word in ('raise ', 'cache', 'config'):
        assert word not in chapter_cell(ONE_SCREEN), f'the one-screen model holds {word!r}'


def test_one_screen_logits_are_the_book_models(one_screen, book, src):
    from transformer_nb.model.decoder import shift_right
    plain = one_screen['plain_copy'](book)
    tgt_in = shift_right(src.flip(1)[:, :30], book.config.bos_token_id)  # any target will do
    with torch.no_grad():
        ours, mine = book(src, tgt_in), plain(src, tgt_in)
    assert (ours - mine).abs().max().item() < 1e-4  # logits of up to about 15


def test_one_screen_greedy_is_generate(one_screen, book, src):
    from transformer_nb.generation.dispatch import generate
    eos = book.config.eos_token_id
    theirs = generate(book, src, num_beams=1)  # (B, T): ⟨EOS⟩ then padding, or cut at the length limit
    mine = one_screen['plain_copy'](book).greedy(src)

    def upto_eos(row):
        row = row.tolist()
        return row[: row.index(eos) + 1] if eos in row else row

    for i in range(N_VERSES):
        want, got = upto_eos(theirs[i]), upto_eos(mine[i])
        assert want[-1] == eos, f'verse {i}: generate stopped at its length limit'
        assert got == want, f'verse {i}: the one-screen model decodes {got}, generate {want}'
