# ---
# jupyter:
#   kernelspec:
#     display_name: python3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Appendix: the command line
#
# > The `transformer-nb` command: one entry point whose subcommands (train, translate, evaluate, data) are the `main` functions of the chapters that define them.
#
# [![Open In Colab](https://colab.research.google.com/assets/colab-badge.svg)](https://colab.research.google.com/github/transformer-nb/transformer_nb/blob/main/nbs/98_cli.ipynb)
#
# Installing the package puts one command on the path, `transformer-nb`. Each subcommand belongs to the chapter that explains it, and that chapter exports a `main(argv)` function; this page only dispatches to them. A chapter's module is imported only when its subcommand is used, so `transformer-nb --help` answers at once.

# %% tags=["remove-cell"]
# Colab: install the package from the repository (does nothing elsewhere).
import sys
if 'google.colab' in sys.modules:
    import subprocess
    subprocess.run([sys.executable, '-m', 'pip', 'install', '-q',
                    'transformer-nb @ git+https://github.com/transformer-nb/transformer_nb'], check=True)

# %%
#| default_exp cli

# %%
#| export
import importlib, sys

# %%
import contextlib, io, os, subprocess
from pathlib import Path
from fastcore.test import test_eq

# %% [markdown]
# ## The subcommands
#
# | command | chapter | what it does |
# |---|---|---|
# | `transformer-nb train` | [Training](12_training.ipynb) | trains a model from a preset and flags, resumes, exports, scores greedy BLEU |
# | `transformer-nb translate` | [Translating text](15_translate.ipynb) | translates arguments or standard input with a saved model, greedy or beam search |
# | `transformer-nb evaluate` | [Evaluation](17_evaluation.ipynb) | BLEU, chrF and the error analysis of a saved model on the test books or any TSV |
# | `transformer-nb data` | [Data](09_data.ipynb) | rebuilds the shipped corpus from its sources, or prints its split sizes |
#
# Each is also reachable as `python -m transformer_nb.<module>`, which is what the chapters' own tests call.

# %%
#| export
COMMANDS = {  # subcommand -> (module whose `main(argv)` runs it, one-line description)
    'train': ('transformer_nb.train', 'train a model on a parallel corpus (chapter "Training")'),
    'translate': ('transformer_nb.translate', 'translate sentences with a saved model (chapter "Translating text")'),
    'evaluate': ('transformer_nb.evaluate', 'BLEU, chrF and error analysis of a saved model (chapter "Evaluation")'),
    'data': ('transformer_nb.data', 'rebuild or describe the shipped corpus (chapter "Data")'),
}

def usage() -> str:
    "The text `transformer-nb --help` prints."
    width = max(map(len, COMMANDS))
    lines = ['usage: transformer-nb COMMAND [options]', '', 'commands:']
    lines += [f'  {name:<{width}}  {desc}' for name, (_, desc) in COMMANDS.items()]
    lines += ['', 'Run `transformer-nb COMMAND --help` for the options of a command.']
    return '\n'.join(lines)

def main(argv: list[str] | None = None) -> int:
    "Entry point of `transformer-nb`: run the `main` of the chapter module named by the first argument; returns the exit status."
    argv = sys.argv[1:] if argv is None else list(argv)
    if not argv or argv[0] in ('-h', '--help'):
        print(usage())
        return 0 if argv else 2
    if argv[0] in ('-V', '--version'):
        from transformer_nb import __version__
        print(f'transformer-nb {__version__}')
        return 0
    if argv[0] not in COMMANDS:
        print(f'transformer-nb: unknown command {argv[0]!r}\n\n{usage()}', file=sys.stderr)
        return 2
    try: return importlib.import_module(COMMANDS[argv[0]][0]).main(argv[1:]) or 0
    except SystemExit as e:  # argparse exits on --help and on bad flags; hand back its status instead of leaving
        return e.code if isinstance(e.code, int) else (0 if e.code is None else 1)

# %% [markdown]
# `pyproject.toml` declares the command:
#
# ```toml
# [project.scripts]
# transformer-nb = "transformer_nb.cli:main"
# ```
#
# The generated wrapper calls `sys.exit(main())`, so the status returned here is the process's exit status: 0 on success, 2 for a usage error (argparse's convention), 1 when a model cannot be loaded, 130 when training was interrupted by Ctrl-C (after saving a checkpoint).

# %% [markdown]
# Every subcommand's module must provide a `main`; no arguments, or an unknown command, print the usage and fail with status 2 rather than a traceback:

# %%
for name, (mod, _) in COMMANDS.items():
    assert callable(importlib.import_module(mod).main), name
out = io.StringIO()
with contextlib.redirect_stdout(out): test_eq(main(['--help']), 0)
print(out.getvalue())
err = io.StringIO()
with contextlib.redirect_stdout(io.StringIO()): test_eq(main([]), 2)
with contextlib.redirect_stderr(err): test_eq(main(['frobnicate']), 2)
assert "unknown command 'frobnicate'" in err.getvalue()

# %% [markdown]
# A subcommand's `--help` is its own parser's, and argparse's exit is turned into a returned status, so `main` can be called from Python (as here) without ending the interpreter:

# %%
for name in COMMANDS:
    out = io.StringIO()
    with contextlib.redirect_stdout(out): test_eq(main([name, '--help']), 0)
    assert out.getvalue().startswith('usage:'), name
    print(out.getvalue().splitlines()[0])
with contextlib.redirect_stderr(io.StringIO()): test_eq(main(['train', '--max-tokens', 'many']), 2)

# %% [markdown]
# ## Using it
#
# The shipped corpus, through the `data` subcommand:

# %%
test_eq(main(['data', 'stats']), 0)

# %% [markdown]
# Translating with the book's model (the [training chapter](12_training.ipynb) shows the one command that recreates `models/book_small`), first from arguments, then from standard input, one sentence per line. On the command line this is
#
# ```bash
# transformer-nb translate --checkpoint models/book_small --beams 4 "En el principio creó Dios los cielos y la tierra."
# printf 'Bienaventurados los pacificadores.\n' | transformer-nb translate --checkpoint models/book_small
# ```
#
# and here the installed script itself runs, in a separate process:

# %%
model_dir = Path('../models/book_small')
if model_dir.exists():
    r = subprocess.run(['transformer-nb', 'translate', '--checkpoint', str(model_dir), '--beams', '4',
                        'En el principio creó Dios los cielos y la tierra.', 'Jehová es mi pastor; nada me faltará.'],
                       capture_output=True, text=True, timeout=300)
    test_eq(r.returncode, 0); test_eq(len(r.stdout.splitlines()), 2)
    print(r.stdout)
    r = subprocess.run(['transformer-nb', 'translate', '--checkpoint', str(model_dir)], input='Bienaventurados los pacificadores.\n',
                       capture_output=True, text=True, timeout=300)
    test_eq(r.returncode, 0); print(r.stdout)

# %% [markdown]
# Mistakes end with a message and a status, never a traceback:

# %%
r = subprocess.run(['transformer-nb', 'translate', '--checkpoint', 'no/such/model', 'Hola.'], capture_output=True, text=True, timeout=300)
test_eq(r.returncode, 1); assert 'cannot load the model' in r.stderr and 'Traceback' not in r.stderr
print(r.stderr)
