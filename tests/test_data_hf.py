"""load_hf_pairs reads a local file of the Hugging Face translation shape through `datasets`, offline."""
import json

import pytest

datasets = pytest.importorskip('datasets', reason='the optional Hugging Face loader needs: pip install "transformer-nb[hf]"')
from transformer_nb.data.build import load_hf_pairs  # noqa: E402


@pytest.fixture(autouse=True)
def offline(monkeypatch):
    monkeypatch.setenv('HF_DATASETS_OFFLINE', '1'); monkeypatch.setenv('HF_HUB_OFFLINE', '1')


def write_jsonl(path, records):
    path.write_text(''.join(json.dumps(r, ensure_ascii=False) + '\n' for r in records), encoding='utf-8')
    return str(path)


def test_translation_records(tmp_path):
    f = write_jsonl(tmp_path / 'pairs.jsonl', [{'translation': {'en': 'Good morning.', 'es': 'Buenos días.'}},
                                               {'translation': {'en': 'Thank you.', 'es': 'Gracias.'}}])
    p = load_hf_pairs('json', data_files=f, cache_dir=str(tmp_path / 'cache'))
    assert (p.src, p.tgt, p.ids) == (['Good morning.', 'Thank you.'], ['Buenos días.', 'Gracias.'], ['0', '1'])
    r = load_hf_pairs('json', data_files=f, src_lang='es', tgt_lang='en', cache_dir=str(tmp_path / 'cache'))
    assert r[1] == ('Gracias.', 'Thank you.')


def test_flat_columns_and_bad_records(tmp_path):
    f = write_jsonl(tmp_path / 'flat.jsonl', [{'id': 'x1', 'en': 'Yes.', 'es': 'Sí.'}, {'id': 'x2', 'en': 'No.', 'es': ''}])
    with pytest.raises(ValueError, match=r"json\[train\], record 1: empty 'es' side"):
        load_hf_pairs('json', data_files=f, cache_dir=str(tmp_path / 'cache'))
    with pytest.warns(UserWarning, match='skipped 1 bad record'):
        p = load_hf_pairs('json', data_files=f, on_error='skip', cache_dir=str(tmp_path / 'cache'))
    assert (p.ids, p.src, p.skipped) == (['x1'], ['Yes.'], ["record 1: empty 'es' side"])
