"""int8 decoding with `RowInt8` does not depend on the other sentences of a batch: each row's activation range is
fixed, so what remains are the float32 operations whose last bits depend on the padding (the sums over padded keys),
which an int8 rounding can turn into another token, rarely. PyTorch's dynamic quantisation alone takes the range from
the whole batch: about two thirds of the test verses changed with their batch (chapter 15)."""
import torch

from transformer_nb.data import load_bible
from transformer_nb.deploy import RowInt8
from transformer_nb.translate import Translator


def test_rows_are_computed_alone():
    "Bit for bit: a row's product is the same alone and in any batch."
    torch.manual_seed(0)
    lin, x = RowInt8(torch.randn(48, 64), torch.randn(48)), 10 * torch.randn(9, 3, 64)
    assert torch.equal(torch.cat([lin(x[i:i + 1]) for i in range(9)]), lin(x))
    assert torch.equal(lin(x[:4]), lin(x)[:4])


def test_int8_translation_hardly_depends_on_the_batch():
    verses = load_bible('test', src_lang='es').src[:50]
    tr = Translator.from_pretrained('book', optimize='int8', num_beams=1)
    alone = [tr.translate(v) for v in verses]
    for batch_size in (50, 7):
        same = sum(a == b for a, b in zip(tr.translate(verses, batch_size=batch_size), alone))
        assert same >= 48, f'{same} of 50 verses as translated alone, in batches of {batch_size}'
