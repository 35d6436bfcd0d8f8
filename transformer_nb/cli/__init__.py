"""The `transformer-nb` command (`main`) and its subcommands: `train`, `translate`,
`evaluate` (`deploy.export` is the fourth).

Layer 6 of 6 (utils < model, data < text < training, generation < deploy < translation <
cli): it imports its own modules and lower layers only.
"""


# Until 0.18 `transformer_nb.cli` was one module; its names still import
# from here (`from transformer_nb.cli import ...`), from the module `main`
# that holds them now.
def __getattr__(name: str):
    if name.startswith('__'):
        raise AttributeError(f'module {__name__!r} has no attribute {name!r}')
    import importlib

    return getattr(importlib.import_module(f'{__name__}.main'), name)
