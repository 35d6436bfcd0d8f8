__version__ = "0.18.0"

# What users reach for first, importable from the package root. Imported on first use (PEP 562), so that
# `import transformer_nb` stays cheap and loading a Translator never imports the trainer.
# No name here is also a module's: Python binds `transformer_nb.<module>` to the module whenever it is imported, so
# a function named like its module would turn into the module behind the reader's back (`generate` lives in the
# module `generation` for that reason).
_LAZY = {'Transformer': 'model', 'TransformerConfig': 'model', 'load_pretrained': 'model',
         'save_pretrained': 'model', 'Tokenizer': 'data', 'generate': 'generation',
         'GenerationConfig': 'generation_config', 'beam_search': 'beam', 'greedy_search': 'kv_cache',
         'Translator': 'translate', 'optimize_for': 'deploy', 'Trainer': 'train', 'TrainConfig': 'train'}
__all__ = ['__version__', *_LAZY]


def __getattr__(name: str):
    if name not in _LAZY:
        raise AttributeError(f"module 'transformer_nb' has no attribute {name!r}")
    import importlib
    value = getattr(importlib.import_module(f'{__name__}.{_LAZY[name]}'), name)
    globals()[name] = value  # the next lookup is a plain attribute
    return value


def __dir__(): return sorted(__all__)
