"""The shipped corpus is what the builder makes from the Debian SWORD modules (skipped where they are not installed)."""
import gzip, importlib.util, subprocess, sys
from pathlib import Path

import pytest

from transformer_nb.data.build import build_bible_corpus
from transformer_nb.data.corpus import CORPUS_FILE, corpus_path, read_pairs

SWORD = Path('/usr/share/sword')
MODULES = {'engWEB2015eb': 'sword-text-web', 'spaRV1909eb': 'sword-text-sparv'}
confs = {p.name.lower() for p in (SWORD / 'mods.d').glob('*.conf')}
missing = [pkg for mod, pkg in MODULES.items() if f'{mod.lower()}.conf' not in confs]
pytestmark = [
    pytest.mark.skipif(importlib.util.find_spec('pysword') is None,
                       reason='the corpus builder needs pysword: pip install "transformer-nb[corpus]"'),
    pytest.mark.skipif(bool(missing), reason=f'Debian packages not installed: {", ".join(missing)} '
                       '(apt-get install sword-text-web sword-text-sparv)'),
]


def rows(path):
    with gzip.open(path, 'rt', encoding='utf-8') as f: return [line.rstrip('\n').split('\t') for line in f]


@pytest.fixture(scope='module')
def built(tmp_path_factory):
    out = tmp_path_factory.mktemp('corpus') / CORPUS_FILE
    pairs = build_bible_corpus(out, SWORD, verbose=False)
    return out, pairs


def test_builder_reproduces_shipped_corpus(built):
    out, pairs = built
    shipped = rows(corpus_path())
    assert len(pairs) == len(shipped) == 30402
    assert rows(out) == shipped  # same ids, same order, same text
    assert out.read_bytes() == corpus_path().read_bytes()  # deterministic gzip: the same bytes


def test_builder_records_every_dropped_verse(built):
    _, pairs = built
    assert len(pairs) + len(pairs.skipped) == 31102  # the 66-book canon of the Spanish module
    reasons = {s.split(': ', 1)[1] for s in pairs.skipped}
    assert reasons <= {'chapter with a hole', 'chapter after a hole', 'chapter with length outliers', 'length ratio', 'empty side'}
    dropped = {s.split(': ', 1)[0] for s in pairs.skipped}
    assert {'Jonah.2.1', 'Num.13.1', '1Kgs.22.44', 'Job.41.1', 'Hos.12.1'} <= dropped  # known numbering shifts


def test_cleaned_text_has_no_markup_or_glossary(built):
    _, pairs = built
    assert not any('<' in s or '>' in s for s in pairs.src + pairs.tgt)
    i = pairs.ids.index('Rev.22.21')
    assert pairs.src[i] == 'The grace of the Lord Jesus Christ be with all the saints. Amen.'
    assert pairs.src[pairs.ids.index('Song.1.2')].startswith('Let him kiss me')  # no speaker label
    assert pairs.tgt[pairs.ids.index('Gen.1.1')].startswith('En el principio')  # chapter-opening capitals undone


def test_command_line(tmp_path):
    out = tmp_path / 'corpus.tsv.gz'
    r = subprocess.run([sys.executable, '-m', 'transformer_nb.data.build', 'build', '--out', str(out)],
                       capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode == 0, r.stderr[-2000:]
    assert '30,402 pairs kept' in r.stdout
    assert read_pairs(out, src_col=1, tgt_col=2, id_col=0).ids == read_pairs(corpus_path(), src_col=1, tgt_col=2, id_col=0).ids
