"""Every chapter runs from the installed wheel alone, as on Colab: no checkout, no `benchmarks/`, no
`../` paths. Each notebook is executed top to bottom by a kernel of a fresh environment holding only
the wheel and its declared dependencies, in a scratch folder outside the repository.

Cells flagged `slow`, `train` or `gpu` are skipped here (long evaluations, training runs, CUDA);
cells that load the shipped model and translate with it are not flagged, so they run.
`make wheel-chapters` runs every cell but the `gpu` ones (TRANSFORMER_NB_CHAPTER_SKIP=gpu)."""
import json, os, subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NBS = sorted((ROOT / 'nbs').glob('*.ipynb'))
SKIP = os.environ.get('TRANSFORMER_NB_CHAPTER_SKIP', 'slow train gpu').replace(',', ' ').split()


@pytest.mark.parametrize('path', NBS, ids=lambda p: p.stem)
def test_chapter_runs_from_wheel(path, wheel_venv, tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ('PYTHONPATH', 'VIRTUAL_ENV')}
    env['PATH'] = f"{wheel_venv}{os.pathsep}{env.get('PATH', '')}"
    work = tmp_path / 'work'  # the kernel's working directory: nothing of the checkout around it
    cmd = [str(wheel_venv / 'python'), str(ROOT / 'tools' / 'execute_notebooks.py'), str(path),
           '--check', '--workdir', str(work), '--timeout', '1800']
    if SKIP: cmd += ['--skip', *SKIP]
    r = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp_path, env=env)
    assert r.returncode == 0, f'{path.name} failed from the wheel:\n{r.stdout[-2000:]}\n{r.stderr[-6000:]}'
    timing = json.loads(r.stdout.strip().splitlines()[-1])
    assert timing['cells'] > 0
    print(f"{path.name}: {timing['seconds']} s, {timing['cells']} cells from the wheel")
    # the kernel never reached into the checkout: nothing was written next to the notebooks
    assert not list(work.rglob('*.ipynb'))
