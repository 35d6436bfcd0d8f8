"""The package installs from a wheel into a fresh virtual environment and works without nbdev or the notebooks."""
import os, subprocess, sys, textwrap
from pathlib import Path

import pytest
import torch

ROOT = Path(__file__).resolve().parents[1]

SMOKE = textwrap.dedent('''
    import importlib.util, sys, torch
    import transformer_nb
    from transformer_nb.attention import attention, causal_mask
    assert "site-packages" in transformer_nb.__file__, transformer_nb.__file__
    assert importlib.util.find_spec("nbdev") is None, "nbdev must not be needed at run time"
    q = torch.randn(2, 4, 5, 8)
    out, w = attention(q, q, q, is_causal=True, need_weights=True)
    assert out.shape == (2, 4, 5, 8) and torch.allclose(w.sum(-1), torch.ones(2, 4, 5))
    print("ok", transformer_nb.__version__)
''')


def run(cmd, **kw):
    r = subprocess.run(cmd, capture_output=True, text=True, **kw)
    assert r.returncode == 0, f'{cmd} failed:\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}'
    return r.stdout


@pytest.mark.skipif(os.environ.get('TRANSFORMER_NB_SKIP_WHEEL') == '1', reason='TRANSFORMER_NB_SKIP_WHEEL=1')
def test_wheel_installs_and_imports_in_fresh_venv(tmp_path):
    run([sys.executable, '-m', 'pip', 'wheel', '--no-deps', '-q', '-w', str(tmp_path / 'dist'), str(ROOT)])
    wheels = list((tmp_path / 'dist').glob('transformer_nb-*.whl'))
    assert len(wheels) == 1, wheels
    run([sys.executable, '-m', 'venv', str(tmp_path / 'venv')])
    py = str(tmp_path / 'venv' / 'bin' / 'python')
    # The torch already installed here (a CPU build on CI) keeps the fresh environment from pulling a CUDA build.
    run([py, '-m', 'pip', 'install', '-q', f"torch=={torch.__version__.split('+')[0]}"])
    run([py, '-m', 'pip', 'install', '-q', str(wheels[0])])
    out = run([py, '-c', SMOKE], cwd=tmp_path)
    assert out.startswith('ok')
    # The console script: train a tiny model from the shipped corpus, export it, translate with it, from the fresh install.
    cli = str(tmp_path / 'venv' / 'bin' / 'transformer-nb')
    assert 'translate' in run([cli, '--help'], cwd=tmp_path)
    run([cli, 'train', '--preset', 'tiny', '--out-dir', str(tmp_path / 'run'), '--export', str(tmp_path / 'model')], cwd=tmp_path)
    assert {'config.json', 'model.pt', 'tokenizer.model'} <= {p.name for p in (tmp_path / 'model').iterdir()}
    out = run([cli, 'translate', '--checkpoint', str(tmp_path / 'model'), 'En el principio.', 'Y dijo Dios.'], cwd=tmp_path)
    assert len(out.splitlines()) == 2, out
    bad = subprocess.run([cli, 'translate', '--checkpoint', str(tmp_path / 'nowhere'), 'Hola.'], capture_output=True, text=True)
    assert bad.returncode == 1 and 'cannot load the model' in bad.stderr and 'Traceback' not in bad.stderr, bad.stderr
