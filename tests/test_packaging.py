"""The package installs from a wheel into a fresh virtual environment and works without nbdev or the notebooks.

The environment holds nbdev (it runs the chapters, tests/test_chapters_wheel.py); every command here runs with
`no_nbdev`, where `import nbdev` fails as if it were not installed."""
import subprocess, textwrap

from conftest import run

SMOKE = textwrap.dedent('''
    import sys, torch
    import transformer_nb
    from transformer_nb.model.attention import attention, causal_mask
    assert "site-packages" in transformer_nb.__file__, transformer_nb.__file__
    try:
        import nbdev
    except ImportError:
        pass  # as where nbdev is not installed: what follows must not need it
    else:
        raise AssertionError("nbdev is importable: the test would not show it is unneeded")
    q = torch.randn(2, 4, 5, 8)
    out, w = attention(q, q, q, is_causal=True, need_weights=True)
    assert out.shape == (2, 4, 5, 8) and torch.allclose(w.sum(-1), torch.ones(2, 4, 5))
    print("ok", transformer_nb.__version__)
''')


def test_wheel_installs_and_imports_in_fresh_venv(wheel_venv, no_nbdev, tmp_path):
    py = str(wheel_venv / 'python')
    out = run([py, '-c', SMOKE], cwd=tmp_path, env=no_nbdev)
    assert out.startswith('ok')
    # The console script: train a tiny model from the shipped corpus, export it, translate with it, from the fresh install.
    cli = str(wheel_venv / 'transformer-nb')
    assert 'translate' in run([cli, '--help'], cwd=tmp_path, env=no_nbdev)
    run([cli, 'train', '--preset', 'tiny', '--out-dir', str(tmp_path / 'run'), '--export', str(tmp_path / 'model')], cwd=tmp_path, env=no_nbdev)
    assert {'config.json', 'model.safetensors', 'tokenizer.model'} <= {p.name for p in (tmp_path / 'model').iterdir()}
    out = run([cli, 'translate', '--checkpoint', str(tmp_path / 'model'), 'En el principio.', 'Y dijo Dios.'], cwd=tmp_path, env=no_nbdev)
    assert len(out.splitlines()) == 2, out
    # no --checkpoint: the book's model, shipped in the wheel
    out = run([cli, 'translate', 'Y dijo Dios: Sea la luz.'], cwd=tmp_path, env=no_nbdev)
    assert 'light' in out.lower(), out
    bad = subprocess.run([cli, 'translate', '--checkpoint', str(tmp_path / 'nowhere'), 'Hola.'], capture_output=True, text=True, env=no_nbdev)
    assert bad.returncode == 2 and '--checkpoint' in bad.stderr and 'Traceback' not in bad.stderr, bad.stderr
