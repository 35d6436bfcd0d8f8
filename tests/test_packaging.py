"""The package installs from a wheel into a fresh virtual environment and works without nbdev or the notebooks."""
import subprocess, textwrap

from conftest import run

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


def test_wheel_installs_and_imports_in_fresh_venv(wheel_venv, tmp_path):
    py = str(wheel_venv / 'python')
    out = run([py, '-c', SMOKE], cwd=tmp_path)
    assert out.startswith('ok')
    # The console script: train a tiny model from the shipped corpus, export it, translate with it, from the fresh install.
    cli = str(wheel_venv / 'transformer-nb')
    assert 'translate' in run([cli, '--help'], cwd=tmp_path)
    run([cli, 'train', '--preset', 'tiny', '--out-dir', str(tmp_path / 'run'), '--export', str(tmp_path / 'model')], cwd=tmp_path)
    assert {'config.json', 'model.safetensors', 'tokenizer.model'} <= {p.name for p in (tmp_path / 'model').iterdir()}
    out = run([cli, 'translate', '--checkpoint', str(tmp_path / 'model'), 'En el principio.', 'Y dijo Dios.'], cwd=tmp_path)
    assert len(out.splitlines()) == 2, out
    # no --checkpoint: the book's model, shipped in the wheel
    out = run([cli, 'translate', 'Y dijo Dios: Sea la luz.'], cwd=tmp_path)
    assert 'light' in out.lower(), out
    bad = subprocess.run([cli, 'translate', '--checkpoint', str(tmp_path / 'nowhere'), 'Hola.'], capture_output=True, text=True)
    assert bad.returncode == 2 and '--checkpoint' in bad.stderr and 'Traceback' not in bad.stderr, bad.stderr
