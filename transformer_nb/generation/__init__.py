"""Decoding: the settings (`config`), the step through the model with a key/value cache
and the rules and loop every strategy shares (`cache`), beam search (`beam`) and
`generate`, which picks the strategy from the settings (`dispatch`).

Layer 3 of 6 (utils < model, data < text < training, generation < deploy < translation <
cli): it imports its own modules and lower layers only.
"""


# Until 0.18 `transformer_nb.generation` was one module; its names still import
# from here (`from transformer_nb.generation import ...`), from the module `dispatch`
# that holds them now.
def __getattr__(name: str):
    if name.startswith('__'):
        raise AttributeError(f'module {__name__!r} has no attribute {name!r}')
    import importlib

    return getattr(importlib.import_module(f'{__name__}.dispatch'), name)
