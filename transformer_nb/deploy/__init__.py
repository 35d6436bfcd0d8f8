"""A model made ready to serve: the deployments `--optimize` names (`optimize`), the
ONNX graphs (`onnx`) and the exports to other formats (`export`, `marian`).

Layer 4 of 6 (utils < model, data < text < training, generation < deploy < translation <
cli): it imports its own modules and lower layers only.
"""
# The table of deployments (`optimize.DEPLOYMENTS`) is whole once its modules are
# imported: `onnx` adds the record of `--optimize onnx` (chapter 13b).
from . import onnx as _onnx  # noqa: F401

from .. import _former_module

# Until 0.18 `transformer_nb.deploy` was one module: its names still import from here
__getattr__ = _former_module(__name__, 'optimize')
