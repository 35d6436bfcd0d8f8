"""The translator in the page (chapter 19), driven as a reader drives it: the built book served from 127.0.0.1,
every other host blocked, headless Chromium typing verses into #source and pressing #translate.

* Greedy decoding with the float32 graphs gives, for each of 20 test verses, exactly what
  `transformer-nb translate --num-beams 1 --no-split` prints, and 8 beams its best hypothesis (without its
  reranking); the int8 copy's agreement is measured by `benchmarks/web_translate.py`, not asserted.
* The cross-attention chart of the translation is drawn and answers a hover; the beams' candidates are listed,
  best first; bad input (nothing typed, random characters) gets a message, never an error.
* Nothing is requested from another host and nothing is logged as an error.

The page is driven through `benchmarks/web_translate.py`'s functions, which also measure it for the chapter.
Needs `_build/html` with the exported graphs (`make html` runs `make web`), Chromium and `playwright`.
"""
import importlib.util, json, random, re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location('web_translate', ROOT / 'benchmarks' / 'web_translate.py')
W = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(W)
playwright = pytest.importorskip('playwright.sync_api', reason='pip install playwright (the dev extra)')
pytestmark = [
    pytest.mark.skipif(not (W.HTML / W.PAGE).exists(), reason='book not built: run `make html` first'),
    pytest.mark.skipif(not (W.HTML / 'models' / 'book' / 'config.json').exists(),
                       reason='no exported graphs in the book: run `make web`'),
    pytest.mark.skipif(W.BROWSER is None, reason='no Chromium: `apt-get install chromium`'),
]


@pytest.fixture(scope='module')
def verses():
    return W.test_verses()


@pytest.fixture(scope='module')
def cli(verses):
    return W.cli_translations(verses)


@pytest.fixture(scope='module')
def float32(browser, server):
    "The page with the float32 graphs loaded, for the tests that compare it with the command line."
    t = W.Translator(browser, server, 'float32')
    yield t
    assert not t.outside, f'requests to other hosts: {t.outside[:3]}'
    assert not t.errors, f'console errors: {t.errors[:3]}'
    t.close()


def test_greedy_in_the_page_is_the_command_line(float32, verses, cli):
    "Float32 graphs, greedy: every verse as the command line translates it."
    got = [float32.translate(v)['text'] for v in verses]
    wrong = [(v, g, w) for v, g, w in zip(verses, got, cli) if g != w]
    assert not wrong, f'{len(wrong)} of {len(verses)} differ, e.g. {wrong[0]}'
    assert not float32.outside and not float32.errors


def test_beams_are_the_book_beam_search(float32, verses):
    "Float32 graphs, 8 beams: the best hypothesis of 3 verses is the command line's (without its reranking)."
    got = [float32.translate(v, beams=8)['text'] for v in verses[:3]]
    assert got == W.cli_translations(verses[:3], beams=8)


def test_beams_attention_and_bad_input(browser, server, verses):
    "8 beams: candidates best first, the chart drawn and hovered; empty and random input answered in words."
    t = W.Translator(browser, server, 'int8')
    p = t.page
    r = t.translate(verses[1], beams=8)
    assert r['state'] == 'done' and r['text']
    scores = [float(s) for s in p.locator('#candidates tbody td:nth-child(2)').all_inner_texts()]
    assert 1 <= len(scores) <= 8 and scores == sorted(scores, reverse=True)
    assert p.locator('#candidates tbody td:nth-child(3)').first.inner_text() == r['text']
    p.wait_for_function("document.getElementById('tnb-translate-chart').dataset.rendered === 'true'")
    spec_rows = p.evaluate("document.getElementById('tnb-translate-chart').view.data('data_0').length")
    assert spec_rows > 0
    cells = p.locator('#tnb-translate-chart g.mark-rect path')  # Vega draws a rect mark as paths
    assert cells.count() >= spec_rows  # and the legend's
    cells.nth(cells.count() // 2).hover()
    tip = p.wait_for_selector('#vg-tooltip-element.visible', timeout=5_000).inner_text()
    assert 'decoder input' in tip and 'source pieces' in tip
    assert t.translate('   ')['status'].startswith('Type a Spanish sentence')
    rnd = random.Random(0)
    noise = ''.join(rnd.choice('áé¿¡ñ#%&*()[]{}<>\\/"\'\t 0123456789abcXYZ\u200b\U0001F600') for _ in range(120))
    r = t.translate(noise)
    assert r['state'] == 'done', r
    assert not t.outside and not t.errors, (t.outside[:3], t.errors[:3])
    t.close()


def test_the_chapter_states_what_was_measured():
    "data/web_translate.json, which the chapter prints, holds a measurement of this page: float32 agrees fully."
    web = json.loads((ROOT / 'data' / 'web_translate.json').read_text())
    assert web['verses'] == W.VERSES and web['float32']['equal'] == web['verses']
    for p in ('int8', 'float32'):
        assert web[p]['bytes'] > web[p]['gzip_bytes'] > 0 and web[p]['first_s'] > 0
    assert re.search(r'\d cores', web['cpu'])
