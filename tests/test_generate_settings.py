"""Every setting of `GenerationConfig` against every strategy of `generate`: a setting given a value other than
its default is either applied (the output changes, or the documented effect is seen) or refused by name with the
strategy that reads it; never silently ignored. Defaults the user did not choose (`CHOSEN`, the Translator's)
follow the strategy the user chose. And the default strategy is the one the docstring states."""
from dataclasses import fields

import pytest
import torch

from transformer_nb import GenerationConfig, generate
from transformer_nb.generation.dispatch import STRATEGIES
from transformer_nb.generation.config import DEFAULTS, OWN, generation_mode
from transformer_nb.generation.config import settings_of
from transformer_nb.generation.cache import NaiveDecoder
from transformer_nb.model.transformer import Transformer, TransformerConfig

BASES = {  # strategy -> a config that asks for it
    'greedy': dict(num_beams=1),
    'sample': dict(num_beams=1, do_sample=True),
    'beam': dict(num_beams=4),
    'diverse_beam': dict(num_beams=4, num_beam_groups=2, diversity_penalty=0.5, num_return_sequences=4),
}
OTHER = {  # setting -> a valid value other than its default (and the bases' values)
    'max_new_tokens': 3, 'min_new_tokens': 6, 'temperature': 0.5, 'top_k': 3, 'top_p': 0.5,
    'length_penalty': 2.0, 'gnmt_alpha': 2.5, 'early_stopping': 'never', 'num_return_sequences': 2,
    'diversity_penalty': 3.0, 'repetition_penalty': 5.0, 'repetition_window': 1,  # (refused alone)
    'no_repeat_ngram_size': 1, 'rerank': 'checks', 'eos_token_id': 7, 'pad_token_id': 5,
    'decoder_start_token_id': 9, 'use_cache': False, 'renormalize_logits': True,
}
CONTEXT = {  # setting -> what both runs also set, where the strategy reads it, for the setting to show
    'early_stopping': dict(gnmt_alpha=2.0),  # long hypotheses favoured: stopping early loses them
    'repetition_window': dict(repetition_penalty=2.0),  # the window limits the penalty's tokens
    'renormalize_logits': dict(no_repeat_ngram_size=1),  # a ban, whose probability is then shared out
}
SELECTORS = {'num_beams', 'do_sample', 'num_beam_groups'}  # they choose the strategy
SAME_BY_DESIGN = {'use_cache'}  # the uncached decoder gives the cached one's output: seen on its decoder


@pytest.fixture(scope='module')
def model():
    torch.manual_seed(0)
    c = TransformerConfig(src_vocab_size=60, d_model=32, n_heads=4, d_ff=64, n_encoder_layers=1,
                          n_decoder_layers=2, dropout=0.0, tie_embeddings='none')
    m = Transformer(c).eval()
    with torch.no_grad():
        m.generator.weight.mul_(3.0)  # logits that spread out, so that settings show
        # ⟨EOS⟩ nearly as likely as the token greedy search picks most: outputs of varied lengths, so that
        # the length settings (min_new_tokens, early_stopping, eos_token_id) show too
        src = torch.randint(4, 60, (6, 8), generator=torch.Generator().manual_seed(1))
        common = generate(m, src, num_beams=1).flatten().mode().values
        w = m.generator.weight
        w[3] = 0.8 * w[common] + 0.3 * torch.randn(w.shape[1], generator=torch.Generator().manual_seed(2))
    return m


@pytest.fixture(scope='module')
def src():
    g = torch.Generator().manual_seed(0)
    s = torch.randint(4, 60, (16, 10), generator=g)
    s[:, -1] = 3  # ⟨EOS⟩
    return s


def run(model, src, config):
    return generate(model, src, config, output_scores=True, return_dict_in_generate=True,
                    generator=torch.Generator().manual_seed(0))


def reads_of(mode: str) -> set:
    "The settings the strategy reads: the common ones and its own."
    owned = {n for names in OWN.values() for n in names}
    return (set(DEFAULTS) - owned) | set(settings_of(STRATEGIES[mode]))


def test_every_setting_is_tested():
    assert set(OTHER) | SELECTORS == {f.name for f in fields(GenerationConfig)}
    assert all(OTHER[n] != DEFAULTS[n] for n in OTHER)


@pytest.mark.parametrize('mode', list(BASES))
@pytest.mark.parametrize('name', sorted(OTHER))
def test_applied_or_refused_by_name(model, src, mode, name):
    base = BASES[mode]
    assert generation_mode(GenerationConfig(**base)) == mode
    reads = name in reads_of(mode)
    if not reads or name == 'rerank':  # rerank is the Translator's: no decoding function reads it
        with pytest.raises(ValueError, match=f'{name}={OTHER[name]!r}'):  # by the config, or by generate
            generate(model, src, GenerationConfig(**base).update(**{name: OTHER[name]}))
        return
    context = {k: v for k, v in CONTEXT.get(name, {}).items() if k in reads_of(mode)}
    base = {**base, **context}
    config = GenerationConfig(**base).update(**{name: OTHER[name]})
    if name in SAME_BY_DESIGN:  # seen on the decoder it steps: the uncached one
        built = []
        init = NaiveDecoder.__init__
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(NaiveDecoder, '__init__', lambda self, *a, **k: (built.append(1), init(self, *a, **k))[1])
            seqs = [generate(model, src, c, generator=torch.Generator().manual_seed(0))
                    for c in (GenerationConfig(**base), config)]
        assert torch.equal(*seqs) and built == [1]  # equal output, and only the uncached run built it
        return
    before, after = run(model, src, GenerationConfig(**base)), run(model, src, config)
    assert not equal(before, after), f'{name}={OTHER[name]!r} changed nothing in {mode}'


def equal(a, b) -> bool:
    "Same sequences and same scores (raw logits, or the beams' normalised scores)."
    if a.sequences.shape != b.sequences.shape or not torch.equal(a.sequences, b.sequences):
        return False
    sa, sb = (o.sequences_scores if hasattr(o, 'sequences_scores') else o.scores for o in (a, b))
    return sa.shape == sb.shape and torch.equal(sa, sb)


@pytest.mark.parametrize('mode', list(BASES))
def test_defaults_not_chosen_follow_the_strategy(model, src, mode):
    "CHOSEN's settings that the strategy the user asks for never reads fall away; given ones stay and are refused."
    from transformer_nb.generation.config import CHOSEN, narrow
    narrowed = narrow(CHOSEN.update(**BASES[mode]), BASES[mode])
    assert generation_mode(narrowed) == mode
    assert narrowed.no_repeat_ngram_size == CHOSEN.no_repeat_ngram_size  # read by every strategy: kept
    for name in {n for names in OWN.values() for n in names} - set(OWN[mode]):
        assert getattr(narrowed, name) == DEFAULTS[name] or name in BASES[mode], name
    generate(model, src, narrowed.update(rerank=None))  # decodes: nothing left to refuse
    if mode in ('greedy', 'sample'):
        given = {**BASES[mode], 'gnmt_alpha': 2.0}
        with pytest.raises(ValueError, match='does not use gnmt_alpha=2.0'):
            generate(model, src, narrow(CHOSEN.update(**given), given))


def test_the_default_is_the_papers_beam_search(model, src):
    assert generation_mode(GenerationConfig()) == 'beam' and GenerationConfig().num_beams == 4
    assert 'default is the paper' in generate.__doc__ and '4 beams' in generate.__doc__
    out = generate(model, src)
    from transformer_nb import beam_search
    assert torch.equal(out, beam_search(model, src, num_beams=4))
    with pytest.raises(ValueError, match='do_sample=True: set num_beams=1 to sample'):
        generate(model, src, do_sample=True, top_k=50)
    assert generate(model, src, num_beams=1, do_sample=True, top_k=50).shape[0] == src.shape[0]
