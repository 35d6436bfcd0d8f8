"""Execute notebooks top to bottom: refresh their stored outputs, or check that they run.

    python tools/execute_notebooks.py nbs/01_attention.ipynb [more.ipynb ...]
    python tools/execute_notebooks.py nbs/12a_trainer.ipynb --skip train
    python tools/execute_notebooks.py nbs/*.ipynb --check --workdir /tmp/run --skip slow train gpu

By default every code cell runs, including those flagged `slow`, `train` or `gpu` that `nbdev-test`
skips, so this is the command that reproduces a notebook's stored outputs; the kernel starts in
`nbs/`, as under `nbdev-test`, and afterwards `nbdev-clean` normalises the metadata so the diff shows
only real changes. `--skip FLAG ...` leaves the cells carrying one of those nbdev flags unexecuted,
with the outputs they stored (a training run that the chapter documents but that is not repeated).

`--check` writes nothing back: it runs each notebook in `--workdir` (a scratch folder, outside the
repository if you want to prove that a chapter needs the installed package alone), stops at the first
error, and prints one JSON line per notebook with its execution time.
"""
import argparse, json, subprocess, sys, time
from pathlib import Path

import nbformat
from nbclient import NotebookClient


def flags(cell) -> set:
    "The nbdev flags of a cell, kept in its metadata (`{'nbdev': {'slow': 'true'}}`)."
    return set(cell.get('metadata', {}).get('nbdev', {}))


def execute(path: Path, timeout: int, kernel: str, skip: set, workdir: Path) -> tuple:
    "Run the notebook's code cells, except those flagged in `skip`; return (notebook, seconds, cells run)."
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(nb, timeout=timeout, kernel_name=kernel,
                            resources={'metadata': {'path': str(workdir)}})
    start, ran = time.time(), 0
    with client.setup_kernel():
        for i, cell in enumerate(nb.cells):
            if cell.cell_type != 'code' or flags(cell) & skip: continue
            client.execute_cell(cell, i)
            ran += 1
    return nb, time.time() - start, ran


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('notebooks', nargs='+', type=Path)
    ap.add_argument('--timeout', type=int, default=3600, help='seconds allowed per cell')
    ap.add_argument('--kernel', default='python3')
    ap.add_argument('--skip', nargs='*', default=[], metavar='FLAG',
                    help='leave cells with these nbdev flags unexecuted (their stored outputs stay)')
    ap.add_argument('--check', action='store_true',
                    help='write nothing back; print a JSON line of timings per notebook')
    ap.add_argument('--workdir', type=Path,
                    help="the kernel's working directory (default: the notebook's folder)")
    args = ap.parse_args()
    for p in args.notebooks:
        if not p.exists(): sys.exit(f'no such notebook: {p}')
    if args.workdir: args.workdir.mkdir(parents=True, exist_ok=True)
    for p in args.notebooks:
        workdir = (args.workdir or p.parent).resolve()
        nb, secs, ran = execute(p, args.timeout, args.kernel, set(args.skip), workdir)
        if args.check:
            print(json.dumps({'notebook': p.name, 'seconds': round(secs, 1), 'cells': ran}),
                  flush=True)
            continue
        nbformat.write(nb, p)
        subprocess.run(['nbdev-clean', '--fname', str(p)], check=True)
        print(f'{p}: executed in {secs:.0f} s ({ran} code cells)', flush=True)


if __name__ == '__main__':
    main()
