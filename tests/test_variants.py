"""A variant of a layer is one class and one name: registered in `encoder.FEED_FORWARD_MODULES` or
`encoder.ATTENTION_MODULES`, chosen by `TransformerConfig(feed_forward=..., attention=...)`, it is built into every
layer of both stacks, trains, decodes with the key/value cache, saves and loads by its name; an exporter that
cannot hold it says so; a config naming a variant that is not registered is refused with the registry's names."""
import pytest
import torch
import torch.nn.functional as F
from torch import nn

from transformer_nb.model import encoder
from transformer_nb.model.encoder import TransformerConfig
from transformer_nb.generation.dispatch import generate
from transformer_nb.model.transformer import Transformer, load_pretrained, save_pretrained
from transformer_nb.model.multihead import MultiHeadAttention


class SwiGLU(nn.Module):
    "Shazeer's gated feed-forward network, FFN(x) = (SiLU(x W) ⊙ x V) W₂: the variant, one class of the config."

    def __init__(self, c: TransformerConfig):
        super().__init__()
        self.wv = nn.Linear(c.d_model, 2 * c.d_ff)
        self.w2 = nn.Linear(c.d_ff, c.d_model)

    def forward(self, x):
        a, b = self.wv(x).chunk(2, dim=-1)
        return self.w2(F.silu(a) * b)


def no_bias_attention(c: TransformerConfig) -> MultiHeadAttention:
    "Attention without biases in its projections: a variant as a function of the config."
    return MultiHeadAttention(c.d_model, c.n_heads, c.attention_dropout, bias=False,
                              attn_implementation=c.attn_implementation)


@pytest.fixture
def registered(monkeypatch):
    monkeypatch.setitem(encoder.FEED_FORWARD_MODULES, 'swiglu', SwiGLU)
    monkeypatch.setitem(encoder.ATTENTION_MODULES, 'no_bias', no_bias_attention)
    return TransformerConfig(src_vocab_size=40, d_model=16, n_heads=2, d_ff=24, n_encoder_layers=2,
                             n_decoder_layers=2, dropout=0.0, max_len=32, feed_forward='swiglu', attention='no_bias')


def test_a_registered_variant_is_built_and_trains(registered):
    torch.manual_seed(0)
    model = Transformer(registered)
    layers = [*model.encoder.layers, *model.decoder.layers]
    assert all(isinstance(l.ff, SwiGLU) for l in layers)
    attns = [a for l in layers for a in (l.self_attn, getattr(l, 'cross_attn', None)) if a is not None]
    assert len(attns) == 6 and all(a.q_proj.bias is None for a in attns)
    src, tgt = torch.randint(4, 40, (4, 7)), torch.randint(4, 40, (4, 6))
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    before = layers[0].ff.wv.weight.detach().clone()
    losses = []
    for _ in range(3):  # three updates on one batch: the variant's weights learn it
        logits = model(src, tgt[:, :-1])
        loss = F.cross_entropy(logits.reshape(-1, 40), tgt[:, 1:].reshape(-1))
        opt.zero_grad(); loss.backward(); opt.step()
        losses.append(loss.item())
    assert not torch.equal(before, layers[0].ff.wv.weight) and losses[-1] < losses[0], losses


def test_a_variant_decodes_with_the_cache_and_saves_by_name(registered, tmp_path):
    torch.manual_seed(0)
    model = Transformer(registered).eval()
    src = torch.randint(4, 40, (3, 5))
    cached = generate(model, src, max_new_tokens=8, num_beams=1)
    assert torch.equal(cached, generate(model, src, max_new_tokens=8, num_beams=1, use_cache=False))
    path = save_pretrained(model, tmp_path / 'variant')
    again = load_pretrained(path).eval()
    assert (again.config.feed_forward, again.config.attention) == ('swiglu', 'no_bias')
    assert torch.equal(generate(again, src, max_new_tokens=8, num_beams=1), cached)


def test_an_unregistered_variant_is_refused_by_name():
    with pytest.raises(ValueError, match=r"feed_forward must be one of \['positionwise'\]"):
        TransformerConfig(feed_forward='swiglu')
    with pytest.raises(ValueError, match='attention must be one of'):
        TransformerConfig(attention='rotary')


def test_marian_cannot_hold_a_variant(registered):
    pytest.importorskip('transformers')
    from transformer_nb.deploy.marian import marian_copy
    with pytest.raises(ValueError, match="feed_forward='swiglu' are variants it cannot hold"):
        marian_copy(Transformer(registered))
