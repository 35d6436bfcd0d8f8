"""The translator in the page (chapter 19), driven as a reader drives it: the built book served from 127.0.0.1,
every other host blocked, headless Chromium typing verses into #source and pressing #translate.

* Greedy decoding with the float32 graphs gives, for each of 20 test verses, exactly what
  `transformer-nb translate --num-beams 1 --no-truecase --keep-digits` prints (both cut a verse into sentences),
  and 8 beams its best hypothesis (without its reranking); the int8 copy's agreement is measured by
  `benchmarks/web_translate.py`, not asserted.
* The page's sentence rules (vendor/sentences.js) cut texts as `split_sentences` and `split_clauses` do.
* The cross-attention chart of the translation is drawn and answers a hover; the beams' candidates are listed,
  best first; bad input (nothing typed, random characters, too long a text, a sentence longer than the model
  reads) gets a message, never an error.
* The page states what its first translation downloads, and that is what it downloads.
* With a text of 2,000 characters being translated, the page handles a click of its own, and Stop ends the run,
  keeping the sentences translated; the longest pause of the page's main thread is printed, not asserted.
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


def test_sentences_split_as_the_package_does(browser):
    "vendor/sentences.js and `split_sentences`, `split_clauses` cut verses, runs of them and odd texts alike."
    from transformer_nb.data.corpus import load_bible
    from transformer_nb.text.sentences import split_clauses, split_sentences
    src = load_bible('test', src_lang='es').src
    texts = src[:1000] + [' '.join(src[i:i + 12]) for i in range(0, 600, 12)] + [W.long_text()]
    texts += ['¿Vienes? Sí.', '¿Vienes? dijo ella.', '¡Ay! ¿Qué? No.', 'El Sr. López llegó. J. R. vino.',
              'Vino «Juan». Y dijo: «¡Fuera!» Luego se fue.', '... ¿Y? 123. Hola', '', '  ', '. . .',
              'Hola. 3. Adiós. ?', 'a\u200b. B\tc. \U0001F600 D', 'Uno; dos: tres, cuatro, cinco.']
    rnd = random.Random(0)
    marks = 'áé¿¡ñ#%&*()[]{}<>\\/"\'\t 0123456789abcXYZ.!?…;:,«»“”’ \u200b\U0001F600ABC'
    texts += [''.join(rnd.choice(marks) for _ in range(rnd.randint(1, 200))) for _ in range(1000)]
    page = browser.new_page()
    page.add_script_tag(path=str(W.HTML / 'vendor' / 'sentences.js'))
    got = page.evaluate("""texts => texts.map(t => {
      const {splitSentences, splitClauses, chars} = tnbSentences, s = splitSentences(t);
      return [s, s.flatMap(x => splitClauses(x, c => chars(c) <= 40))];
    })""", texts)
    page.close()
    want = [[s, [c for x in s for c in split_clauses(x, lambda c: len(c) <= 40)]]
            for s in map(split_sentences, texts)]
    wrong = [(t, g, w) for t, g, w in zip(texts, got, want) if g != w]
    assert not wrong, f'{len(wrong)} of {len(texts)} cut otherwise, e.g. {wrong[0]}'
    assert sum(len(s) > 1 for s, _ in want) > 100  # texts of several sentences among them


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
    "8 beams: candidates best first, the chart drawn and hovered; empty, random and overlong input answered in words."
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
    # one sentence longer than the model reads, with no clause to cut: translated from its
    # first pieces, saying so; its chart, too large to draw, is not drawn, saying so
    T = json.loads((W.HTML / 'models' / 'book' / 'config.json').read_text())['max_len']
    r = t.translate('Y la palabra de Dios ' * (T // 4))
    assert r['state'] == 'done' and r['text'] and f'only its first {T - 1} pieces' in r['status'], r
    assert 'No chart' in r['status'] and p.get_attribute('#tnb-translate-chart', 'data-rendered') is None
    assert not t.outside and not t.errors, (t.outside[:3], t.errors[:3])
    t.close()


def test_the_chapter_states_what_was_measured():
    """data/web_translate.json, which the chapter prints, holds a measurement of this page: float32 agrees fully;
    what the page stated it would download is part of what it loaded; a long text was translated whole."""
    web = json.loads((ROOT / 'data' / 'web_translate.json').read_text())
    assert web['verses'] == W.VERSES and web['float32']['equal'] == web['verses']
    for p in ('int8', 'float32'):
        assert web[p]['bytes'] > web[p]['gzip_bytes'] > 0 and web[p]['first_s'] > 0
        assert 0 < web[p]['stated_bytes'] < web[p]['bytes']
    long = web['long']
    assert 1_900 < long['chars'] <= W.LONG and long['sentences'] > 1 and long['longest_tick_ms'] >= 20
    assert re.search(r'\d cores', web['cpu'])


def test_the_download_is_stated_before_it_starts(browser, server, verses):
    """Before the first translation the page states what it will download: the files `tools/web_files.py`
    lists for ONNX Runtime, the tokenizer, the chosen graphs and the chart; the translation loads those files,
    and then the page says nothing more is needed, and what the other graphs would add."""
    groups = json.loads((W.HTML / 'vendor' / 'translate-files.json').read_text())['groups']
    t = W.Translator(browser, server, 'int8')
    p = t.page
    p.wait_for_function("document.getElementById('download').dataset.bytes !== undefined")
    first = {path: size for g in ('runtime', 'int8', 'chart') for path, size in groups[g].items()}
    stated = int(p.get_attribute('#download', 'data-bytes'))
    assert stated == sum(first.values())
    assert f'{stated / 1e6:.1f} MB' in p.inner_text('#download')
    before = set(t.files)
    r = t.translate(verses[0])
    p.wait_for_function("document.getElementById('tnb-translate-chart').dataset.rendered === 'true'")
    loaded = {u.split('/', 3)[3] for u in t.files.keys() - before}
    assert r['state'] == 'done' and loaded == set(first), loaded ^ set(first)
    assert p.get_attribute('#download', 'data-bytes') == '0'
    p.select_option('#precision', 'float32')
    assert int(p.get_attribute('#download', 'data-bytes')) == sum(groups['float32'].values())
    assert not t.outside and not t.errors, (t.outside[:3], t.errors[:3])
    t.close()


PROBE_JS = """() => {
  const b = document.createElement('button'), box = document.querySelector('.tnb-translate');
  b.id = 'tnb-probe';
  b.textContent = 'probe';
  b.style.cssText = 'position: fixed; top: 0; left: 0; z-index: 10000';
  b.onclick = () => { window.tnbProbe = {...box.dataset}; };
  document.body.appendChild(b);
}"""


def test_a_long_text_leaves_the_page_free_and_stops(browser, server, verses):
    """A text of 2,000 characters, 8 beams: the page cuts it into the package's sentences and shows them as they
    are done; meanwhile it handles a click of its own; Stop ends the run with the sentences done kept, and the
    next run translates. The longest interval between two ticks of a timer on the page is printed."""
    from transformer_nb.text.sentences import split_sentences
    text = W.long_text()
    assert 1_900 < len(text) <= 2_000
    t = W.Translator(browser, server, 'int8')
    p = t.page
    t.start_timer()
    p.evaluate(PROBE_JS)
    t.begin(text, beams=8)
    box = "document.querySelector('.tnb-translate').dataset"
    p.wait_for_function(f"Number({box}.done) >= 1", timeout=120_000)
    p.click('#tnb-probe')  # a click of the page's own, while the model translates
    probe = p.evaluate('window.tnbProbe')
    assert probe['state'] == 'busy' and 1 <= int(probe['done']) < int(probe['count']), probe
    assert int(probe['count']) == len(split_sentences(text))
    shown = p.inner_text('#translation')
    assert shown and p.inner_text('#status').startswith('Translating sentence ')
    p.click('#stop')
    r = t.result()
    done, count = r['sentences']
    assert r['state'] == 'stopped' and r['status'].startswith(f'Stopped after {done} of {count} sentences')
    assert 1 <= done < count and r['text'].startswith(shown)
    # the worker has ended the run: the first sentence's chart drawn, no sentence added
    p.wait_for_function("document.getElementById('tnb-translate-chart').dataset.rendered === 'true'")
    assert p.inner_text('#translation') == r['text'] and p.is_disabled('#stop')
    ticks = t.timer()
    print(f"\n{len(text):,} characters, 8 beams, int8, stopped after {done} of {count} sentences: the longest "
          f"interval between two ticks of a {W.TIMER_MS} ms timer on the page was {ticks['translating']:.0f} ms "
          f"while the model loaded and translated, {ticks['else']:.0f} ms otherwise (the chart drawn)")
    again = t.translate(verses[2])
    assert again['state'] == 'done' and again['sentences'] == [1, 1] and again['text']
    p.fill('#source', '')  # an emptied box clears the result
    assert p.inner_text('#translation') == '' and p.locator('#candidates tr').count() == 0
    assert p.get_attribute('#tnb-translate-chart', 'data-rendered') is None
    most = int(p.get_attribute('.tnb-translate', 'data-max-chars'))
    r = t.translate('Sí. ' * (most // 4 + 1))
    assert r['state'] == 'done' and f'at most {most:,}' in r['status'] and r['text'] == ''
    assert not t.outside and not t.errors, (t.outside[:3], t.errors[:3])
    t.close()
