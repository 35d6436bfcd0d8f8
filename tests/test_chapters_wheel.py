"""Every chapter runs from the installed wheel alone, as on Colab: no checkout, no `benchmarks/`, no
`../` paths, no dependency the package does not declare.

`nbdev-test` runs every notebook from a copy of `nbs/` and `pyproject.toml` in a scratch folder, with
the Python of a fresh environment that holds the wheel, its declared dependencies and nbdev, so each
`import transformer_nb` is the wheel's. Cells flagged `slow`, `train` or `gpu` are skipped (the
`tst_flags` of `[tool.nbdev]`); cells that load the shipped model and translate with it run. This is
the suite's one run of the notebooks: `make test` has no separate `nbdev-test` step.

`make wheel-chapters` runs every cell but the `gpu` ones instead, each notebook in a Jupyter kernel of
the wheel's environment, as Colab does (TRANSFORMER_NB_CHAPTER_SKIP=gpu; any value selects that mode)."""
import json, os, shutil, subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NBS = sorted((ROOT / 'nbs').glob('*.ipynb'))
KERNEL_SKIP = os.environ.get('TRANSFORMER_NB_CHAPTER_SKIP')


def _env(bin_dir: Path) -> dict:
    "The environment of a process that must see the fresh venv only."
    env = {k: v for k, v in os.environ.items() if k not in ('PYTHONPATH', 'VIRTUAL_ENV')}
    env['PATH'] = f"{bin_dir}{os.pathsep}{env.get('PATH', '')}"
    return env


@pytest.mark.skipif(KERNEL_SKIP is not None, reason='make wheel-chapters: one kernel per chapter')
def test_chapters_run_from_wheel(wheel_venv, tmp_path):
    work = tmp_path / 'book'  # nothing of the checkout but the notebooks and nbdev's settings
    shutil.copytree(ROOT / 'nbs', work / 'nbs')
    shutil.copy(ROOT / 'pyproject.toml', work)
    py = wheel_venv / 'python'
    where = subprocess.run([py, '-c', 'import transformer_nb; print(transformer_nb.__file__)'],
                           capture_output=True, text=True, cwd=work / 'nbs', env=_env(wheel_venv))
    assert 'site-packages' in where.stdout, where.stdout + where.stderr
    # nbdev-test runs one notebook per core at a time: one thread each (8 % faster than two each on 2 cores)
    r = subprocess.run([wheel_venv / 'nbdev-test', '--do-print', '--timing'], capture_output=True,
                       text=True, cwd=work, env={**_env(wheel_venv), 'OMP_NUM_THREADS': '1'})
    assert r.returncode == 0, f'a chapter failed from the wheel:\n{r.stdout[-3000:]}\n{r.stderr[-8000:]}'
    ran = {l.split(':')[0] for l in r.stdout.splitlines() if l.endswith(' secs')}
    assert ran == {p.name for p in NBS}, sorted({p.name for p in NBS} - ran)
    print(r.stdout[r.stdout.index('Success.'):])


@pytest.mark.skipif(KERNEL_SKIP is None, reason='TRANSFORMER_NB_CHAPTER_SKIP unset: nbdev-test runs them')
@pytest.mark.parametrize('path', NBS, ids=lambda p: p.stem)
def test_chapter_runs_in_a_kernel(path, wheel_venv, tmp_path):
    work = tmp_path / 'work'  # the kernel's working directory: nothing of the checkout around it
    cmd = [str(wheel_venv / 'python'), str(ROOT / 'tools' / 'execute_notebooks.py'), str(path),
           '--check', '--workdir', str(work), '--timeout', '1800']
    skip = KERNEL_SKIP.replace(',', ' ').split()
    if skip: cmd += ['--skip', *skip]
    r = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp_path, env=_env(wheel_venv))
    assert r.returncode == 0, f'{path.name} failed from the wheel:\n{r.stdout[-2000:]}\n{r.stderr[-6000:]}'
    timing = json.loads(r.stdout.strip().splitlines()[-1])
    assert timing['cells'] > 0
    print(f"{path.name}: {timing['seconds']} s, {timing['cells']} cells from the wheel")
    # the kernel never reached into the checkout: nothing was written next to the notebooks
    assert not list(work.rglob('*.ipynb'))
