"""`compile_for_cpu` compiled for real, on a small random model: greedy decoding, sampling and beam search
choose the same tokens as the model itself, over batches of several sizes and source lengths, from two
graphs (one for one row per memory row, one for beams; no recompilation); the model given is left unchanged."""
import torch
import torch._dynamo.utils

from transformer_nb.generation.beam import beam_search
from transformer_nb.deploy.optimize import compile_for_cpu, deployed_as
from transformer_nb.generation.dispatch import generate
from transformer_nb.model.transformer import Transformer, TransformerConfig


def test_compiled_decoding_is_the_models_own():
    torch.manual_seed(0)
    config = TransformerConfig(src_vocab_size=50, d_model=32, n_heads=4, d_ff=64, n_encoder_layers=2,
                               n_decoder_layers=2, max_len=40)
    model = Transformer(config).eval()
    before = {k: v.clone() for k, v in model.state_dict().items()}
    torch._dynamo.utils.counters.clear()
    compiled = compile_for_cpu(model)
    assert deployed_as(compiled) == 'compiled' and deployed_as(model) is None
    g = torch.Generator().manual_seed(1)
    for B, S in ((5, 9), (2, 17), (7, 4)):
        src = torch.randint(4, 50, (B, S), generator=g)
        src[0, S // 2:] = config.pad_token_id  # a shorter source in the batch
        with torch.inference_mode():
            assert generate(compiled, src, num_beams=1).tolist() == generate(model, src, num_beams=1).tolist()
            forced = dict(num_beams=1, max_new_tokens=30, min_new_tokens=30)
            assert generate(compiled, src, **forced).tolist() == generate(model, src, **forced).tolist()
            draw = lambda m: generate(m, src, num_beams=1, do_sample=True, top_k=5,
                                      generator=torch.Generator().manual_seed(2)).tolist()
            assert draw(compiled) == draw(model)
            assert beam_search(compiled, src, num_beams=3).tolist() == \
                beam_search(model, src, num_beams=3).tolist()
    # one graph for one row per memory row (greedy, sampling), one for beams
    assert torch._dynamo.utils.counters['stats']['unique_graphs'] == 2
    assert all(torch.equal(v, before[k]) for k, v in model.state_dict().items())


def test_training_forward_is_one_graph():
    "The trainer's compiled forward pass (torch.compile of the model) has no graph break: none at the id checks."
    torch.manual_seed(0)
    config = TransformerConfig(src_vocab_size=50, d_model=32, n_heads=4, d_ff=64, n_encoder_layers=1,
                               n_decoder_layers=1, max_len=40)
    model = Transformer(config).train()
    src, tgt_in = torch.randint(4, 50, (3, 7)), torch.randint(4, 50, (3, 5))
    torch._dynamo.reset()
    explained = torch._dynamo.explain(model)(src, tgt_in)
    assert explained.graph_break_count == 0, explained.break_reasons
    assert explained.graph_count == 1
