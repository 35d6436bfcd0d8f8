__version__ = "0.19.0"

# What users reach for first, importable from the package root. Imported on first use (PEP 562), so that
# `import transformer_nb` stays cheap and loading a Translator never imports the trainer.
# No name here is also a module's: Python binds `transformer_nb.<module>` to the module whenever it is imported, so
# a function named like its module would turn into the module behind the reader's back (`generate` lives in the
# module `generation.dispatch` for that reason).
_LAZY = {
    'Transformer': 'model.transformer',
    'TransformerConfig': 'model.transformer',
    'load_pretrained': 'model.transformer',
    'save_pretrained': 'model.transformer',
    'Tokenizer': 'data.corpus',
    'generate': 'generation.dispatch',
    'GenerationConfig': 'generation.config',
    'beam_search': 'generation.beam',
    'greedy_search': 'generation.cache',
    'Translator': 'translation.translator',
    'optimize_for': 'deploy.optimize',
    'Trainer': 'training.trainer',
    'TrainConfig': 'training.trainer',
}
__all__ = ['__version__', *_LAZY]


def __getattr__(name: str):
    if name not in _LAZY:
        raise AttributeError(f"module 'transformer_nb' has no attribute {name!r}")
    import importlib
    value = getattr(importlib.import_module(f'{__name__}.{_LAZY[name]}'), name)
    globals()[name] = value  # the next lookup is a plain attribute
    return value


def __dir__(): return sorted(__all__)


def _former_module(package: str, module: str):
    """The `__getattr__` of a subpackage that was one module until 0.18: the old module's
    names, from the module of the subpackage that holds them now."""

    def __getattr__(name: str):
        if name.startswith('__'):
            raise AttributeError(f'module {package!r} has no attribute {name!r}')
        import importlib

        return getattr(importlib.import_module(f'{package}.{module}'), name)

    return __getattr__


# Until 0.18 the package was one flat folder of modules named after chapters; they now live in
# subpackages by what they do (model, data, text, training, generation, deploy, translation,
# cli, book). For one release an old path still imports, as the module it became, with a
# DeprecationWarning naming the new path. (model, data, generation, deploy and cli are now
# packages that give the old module's names themselves.)
_MOVED = {
    'attention': 'model.attention',
    'multihead': 'model.multihead',
    'feedforward': 'model.feedforward',
    'positional': 'model.positional',
    'sublayer': 'model.sublayer',
    'encoder': 'model.encoder',
    'decoder': 'model.decoder',
    'batching': 'data.batching',
    'short_pairs': 'training.short_pairs',
    'corpus': 'data.build',
    'numbers': 'text.numbers',
    'sentences': 'text.sentences',
    'checks': 'text.checks',
    'schedule': 'training.schedule',
    'loss': 'training.loss',
    'recipe': 'training.recipe',
    'train': 'training.trainer',
    'checkpoint': 'training.checkpoint',
    'runlog': 'training.runlog',
    'kv_cache': 'generation.cache',
    'beam': 'generation.beam',
    'generation_config': 'generation.config',
    'onnx_graphs': 'deploy.onnx',
    'export': 'deploy.export',
    'marian': 'deploy.marian',
    'browser': 'book.browser',
    'translate': 'translation.translator',
    'evaluate': 'translation.evaluate',
    'train_cli': 'cli.train',
    'evaluate_cli': 'cli.evaluate',
    'translate_cli': 'cli.translate',
    'plot': 'book.plot',
    'diagrams': 'book.diagrams',
    'charts': 'book.charts',
    'beam_tree': 'book.beam_tree',
    'complexity': 'book.complexity',
    'heads': 'book.heads',
}


class _MovedModules:
    "Finds `transformer_nb.<old name>` and hands back the module it became."

    @classmethod
    def find_spec(cls, fullname, path=None, target=None):
        head, _, old = fullname.rpartition('.')
        if head != __name__ or old not in _MOVED:
            return None
        import importlib.util

        return importlib.util.spec_from_loader(fullname, cls)

    @staticmethod
    def create_module(spec):
        import importlib, warnings

        new = f"{__name__}.{_MOVED[spec.name.rpartition('.')[2]]}"
        warnings.warn(
            f'{spec.name} is now {new}; the old name will be removed in 0.20',
            DeprecationWarning,
            stacklevel=3,
        )
        module = importlib.import_module(new)
        spec.loader_state = module.__spec__  # put back after the import system sets ours
        return module

    @staticmethod
    def exec_module(module):
        module.__spec__ = module.__spec__.loader_state


import sys as _sys

if not any(f is _MovedModules for f in _sys.meta_path):
    _sys.meta_path.append(_MovedModules)
del _sys
