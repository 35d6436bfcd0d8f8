"""Decoding: the settings (`config`), the step through the model with a key/value cache
and the rules and loop every strategy shares (`cache`), beam search (`beam`) and
`generate`, which picks the strategy from the settings (`dispatch`).

Layer 3 of 6 (utils < model, data < text < training, generation < deploy < translation <
cli): it imports its own modules and lower layers only.
"""

from .. import _former_module

# Until 0.18 `transformer_nb.generation` was one module: its names still import from here
__getattr__ = _former_module(__name__, 'dispatch')
