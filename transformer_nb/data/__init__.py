"""Text as data: the shipped Bible corpus, its splits and its tokenizer (`corpus`),
batches of similar length (`batching`) and how the corpus is rebuilt from its sources
(`build`).

Layer 1 of 6 (utils < model, data < text < training, generation < deploy < translation <
cli): it imports its own modules and lower layers only.
"""


# Until 0.18 `transformer_nb.data` was one module; its names still import
# from here (`from transformer_nb.data import ...`), from the module `corpus`
# that holds them now.
def __getattr__(name: str):
    if name.startswith('__'):
        raise AttributeError(f'module {__name__!r} has no attribute {name!r}')
    import importlib

    return getattr(importlib.import_module(f'{__name__}.corpus'), name)
