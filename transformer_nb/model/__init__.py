"""The Transformer of the paper, one part per module in the order chapters 1-8 build it:
attention, multi-head attention, the feed-forward network, positional encoding, the
residual sublayer, the encoder, the decoder and the whole model (`transformer`).

Layer 1 of 6 (utils < model, data < text < training, generation < deploy < translation <
cli): it imports its own modules and lower layers only.
"""

from .. import _former_module

# Until 0.18 `transformer_nb.model` was one module: its names still import from here
__getattr__ = _former_module(__name__, 'transformer')
