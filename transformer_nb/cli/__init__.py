"""The `transformer-nb` command (`main`) and its subcommands: `train`, `translate`,
`evaluate` (`deploy.export` is the fourth).

Layer 6 of 6 (utils < model, data < text < training, generation < deploy < translation <
cli): it imports its own modules and lower layers only.
"""

from .. import _former_module

# Until 0.18 `transformer_nb.cli` was one module: its names still import from here
__getattr__ = _former_module(__name__, 'main')
