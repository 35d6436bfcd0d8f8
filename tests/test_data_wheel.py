"""The corpus and the book's model travel in the wheel; `corpus_path` and `pretrained_path('book')` find them
after `pip install` alone (no checkout)."""
import textwrap, zipfile

from conftest import run
from transformer_nb.data.corpus import CORPUS_FILE
from transformer_nb.model.transformer import PRETRAINED


def test_wheel_ships_corpus_and_model_and_installed_package_finds_them(wheel, wheel_venv, tmp_path):
    names = zipfile.ZipFile(wheel).namelist()
    assert any(n.endswith(f'.data/data/share/transformer_nb/data/{CORPUS_FILE}') for n in names), names
    for f in ('config.json', 'model.safetensors', 'tokenizer.model'):
        assert any(n.endswith(f"/share/transformer_nb/{PRETRAINED['book']}/{f}") for n in names), f
    # corpus (2.6 MB) + the book's model (14 MB compressed): well under PyPI's 100 MB file limit
    assert wheel.stat().st_size < 24 * 2**20, f'wheel is {wheel.stat().st_size / 2**20:.1f} MiB'
    py = str(wheel_venv / 'python')  # the wheel installed in a fresh environment
    check = textwrap.dedent('''
        import sys, transformer_nb
        from transformer_nb.data.corpus import corpus_path, load_bible, BASELINE_BOOKS
        from transformer_nb.model.transformer import pretrained_path, Transformer
        assert transformer_nb.__file__.startswith(sys.prefix), transformer_nb.__file__
        p = corpus_path()
        assert p.is_relative_to(sys.prefix) and p.parent.name == 'data', p
        assert len(load_bible()) == 30402 and len(load_bible('test', books=BASELINE_BOOKS)) == 505
        m = pretrained_path('book')
        assert m.is_relative_to(sys.prefix) and (m / 'model.safetensors').exists(), m
        assert sum(p.numel() for p in Transformer.from_pretrained('book').parameters()) > 10**6
        from transformer_nb.translation.translator import Translator
        assert Translator.from_pretrained('book').direction == 'es-en'  # for rerank='checks'
        print('ok', p.relative_to(sys.prefix))
    ''')
    out = run([py, '-c', check], cwd=tmp_path)
    assert out.startswith('ok share/transformer_nb/'), out
