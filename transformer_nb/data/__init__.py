"""Text as data: the shipped Bible corpus, its splits and its tokenizer (`corpus`),
batches of similar length (`batching`) and how the corpus is rebuilt from its sources
(`build`).

Layer 1 of 6 (utils < model, data < text < training, generation < deploy < translation <
cli): it imports its own modules and lower layers only.
"""

from .. import _former_module

# Until 0.18 `transformer_nb.data` was one module: its names still import from here
__getattr__ = _former_module(__name__, 'corpus')
