"""Execute notebooks in place so their stored outputs come from a real run, then clean them.

    python tools/execute_notebooks.py nbs/01_attention.ipynb [more.ipynb ...] [--timeout 1800]

Every code cell runs, including those flagged `slow` or `gpu` that `nbdev-test` skips, so this is
the command that reproduces a notebook's stored outputs. The kernel starts in `nbs/`, as under
`nbdev-test`. Afterwards `nbdev-clean` normalises metadata so the diff shows only real changes.
"""
import argparse, subprocess, sys, time
from pathlib import Path

import nbformat
from nbclient import NotebookClient


def execute(path: Path, timeout: int, kernel: str) -> float:
    nb = nbformat.read(path, as_version=4)
    start = time.time()
    client = NotebookClient(nb, timeout=timeout, kernel_name=kernel,
                            resources={'metadata': {'path': str(path.parent.resolve())}})
    client.execute()
    nbformat.write(nb, path)
    return time.time() - start


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('notebooks', nargs='+', type=Path)
    ap.add_argument('--timeout', type=int, default=3600, help='seconds allowed per cell')
    ap.add_argument('--kernel', default='python3')
    args = ap.parse_args()
    for p in args.notebooks:
        if not p.exists(): sys.exit(f'no such notebook: {p}')
        secs = execute(p, args.timeout, args.kernel)
        subprocess.run(['nbdev-clean', '--fname', str(p)], check=True)
        print(f'{p}: executed in {secs:.0f} s')


if __name__ == '__main__':
    main()
