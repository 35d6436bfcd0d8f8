"""The Transformer of the paper, one part per module in the order chapters 1-8 build it:
attention, multi-head attention, the feed-forward network, positional encoding, the
residual sublayer, the encoder, the decoder and the whole model (`transformer`).

Layer 1 of 6 (utils < model, data < text < training, generation < deploy < translation <
cli): it imports its own modules and lower layers only.
"""


# Until 0.18 `transformer_nb.model` was one module; its names still import
# from here (`from transformer_nb.model import ...`), from the module `transformer`
# that holds them now.
def __getattr__(name: str):
    if name.startswith('__'):
        raise AttributeError(f'module {__name__!r} has no attribute {name!r}')
    import importlib

    return getattr(importlib.import_module(f'{__name__}.transformer'), name)
