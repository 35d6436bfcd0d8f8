"""The corpus and the book's model travel in the wheel; `corpus_path` and `pretrained_path('book')` find them
after `pip install` alone (no checkout)."""
import os, subprocess, sys, textwrap, zipfile
from pathlib import Path

import pytest
import torch

from transformer_nb.data import CORPUS_FILE
from transformer_nb.model import PRETRAINED

ROOT = Path(__file__).resolve().parents[1]


def run(cmd, **kw):
    r = subprocess.run(cmd, capture_output=True, text=True, **kw)
    assert r.returncode == 0, f'{cmd} failed:\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}'
    return r.stdout


@pytest.mark.skipif(os.environ.get('TRANSFORMER_NB_SKIP_WHEEL') == '1', reason='TRANSFORMER_NB_SKIP_WHEEL=1')
def test_wheel_ships_corpus_and_model_and_installed_package_finds_them(tmp_path):
    run([sys.executable, '-m', 'pip', 'wheel', '--no-deps', '-q', '-w', str(tmp_path / 'dist'), str(ROOT)])
    wheel, = (tmp_path / 'dist').glob('transformer_nb-*.whl')
    names = zipfile.ZipFile(wheel).namelist()
    assert any(n.endswith(f'.data/data/share/transformer_nb/data/{CORPUS_FILE}') for n in names), names
    for f in ('config.json', 'model.pt', 'tokenizer.model'):
        assert any(n.endswith(f"/share/transformer_nb/{PRETRAINED['book']}/{f}") for n in names), f
    # corpus (2.6 MB) + the book's model (14 MB compressed): well under PyPI's 100 MB file limit
    assert wheel.stat().st_size < 24 * 2**20, f'wheel is {wheel.stat().st_size / 2**20:.1f} MiB'
    # A fresh environment that borrows this one's packages (torch, numpy) through a .pth line, which adds the folder
    # to sys.path without running its .pth files, so an editable install of the checkout stays invisible there.
    run([sys.executable, '-m', 'venv', '--without-pip', str(tmp_path / 'venv')])
    py = str(tmp_path / 'venv' / 'bin' / 'python')
    site = Path(run([py, '-c', 'import sysconfig; print(sysconfig.get_path("purelib"))']).strip())
    (site / 'zz_borrowed.pth').write_text(str(Path(torch.__file__).parents[1]) + '\n')
    run([sys.executable, '-m', 'pip', '--python', py, 'install', '-q', '--no-deps', str(wheel)])
    check = textwrap.dedent(f'''
        import sys, transformer_nb
        from transformer_nb.data import corpus_path, load_bible, BASELINE_BOOKS
        from transformer_nb.model import pretrained_path, Transformer
        assert transformer_nb.__file__.startswith(sys.prefix), transformer_nb.__file__
        p = corpus_path()
        assert p.is_relative_to(sys.prefix) and p.parent.name == 'data', p
        assert len(load_bible()) == 30402 and len(load_bible('test', books=BASELINE_BOOKS)) == 505
        m = pretrained_path('book')
        assert m.is_relative_to(sys.prefix) and (m / 'model.pt').exists(), m
        assert sum(p.numel() for p in Transformer.from_pretrained('book').parameters()) > 10**6
        print('ok', p.relative_to(sys.prefix))
    ''')
    out = run([py, '-c', check], cwd=tmp_path)
    assert out.startswith('ok share/transformer_nb/'), out
