"""int8 decoding does not depend on the other sentences of a batch. `RowInt8` gives each activation row its own fixed
range (PyTorch's dynamic quantisation alone takes the range from the whole batch: about two thirds of the test verses
changed with their batch), and the int8 copy computes attention in plain products, whose last bits do not follow the
batch's padding as the fused kernel's do (an int8 rounding turned those into another token for 3 of 100 verses)."""
import torch

from transformer_nb.data.corpus import load_bible
from transformer_nb.deploy.optimize import RowInt8
from transformer_nb.translation.translator import Translator


def test_rows_are_computed_alone():
    "Bit for bit: a row's product is the same alone and in any batch."
    torch.manual_seed(0)
    lin, x = RowInt8(torch.randn(48, 64), torch.randn(48)), 10 * torch.randn(9, 3, 64)
    assert torch.equal(torch.cat([lin(x[i:i + 1]) for i in range(9)]), lin(x))
    assert torch.equal(lin(x[:4]), lin(x)[:4])


def _differ(a: list, b: list) -> list:
    return [i for i, (x, y) in enumerate(zip(a, b)) if x != y]


def test_int8_translation_does_not_depend_on_the_batch():
    """25 test verses alone and in batches of 25 and 7, with the translator's default search (beams, each sentence's
    rows in one batch with the others'); greedy decoding alone and in a batch is chapter 13a's test."""
    verses = load_bible('test', src_lang='es').src[:25]
    tr = Translator.from_pretrained('book', optimize='int8')
    alone = [tr.translate(v) for v in verses]
    for batch_size in (25, 7):
        differ = _differ(tr.translate(verses, batch_size=batch_size), alone)
        assert not differ, f'verses {differ} alone and in batches of {batch_size}'
