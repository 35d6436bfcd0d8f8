"""The built book as a reader's browser gets it: served over HTTP from 127.0.0.1, every request to another host
blocked and counted, in headless Chromium driven by Playwright (a real mouse, real inputs).

* Every page of `_toc.yml` loads with no request leaving 127.0.0.1 and no console error, and each of its
  interactive charts (`transformer_nb.book.charts`) is drawn.
* Hovering a heat-map cell shows a tooltip whose query, key and weight are the ones the chapter computed: those the
  notebook stored in the chart's specification, recomputed here where the chapter's example is cheap.
* A radio button changes the panel drawn; the schedule's slider redraws the curve, which equals `noam_lr`.

Needs `_build/html` (`make html`), Chromium (`make test` installs Debian's) and the `playwright` package (the `dev`
extra): Playwright drives the system's Chromium, it downloads no browser of its own.
"""
import json, re, shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
HTML = ROOT / '_build' / 'html'
BROWSER = next((shutil.which(b) for b in ('chromium', 'chromium-browser', 'google-chrome') if shutil.which(b)), None)
TOC_FILES = re.findall(r'(?:root|file):\s*(nbs/\S+)', (ROOT / '_toc.yml').read_text())
playwright = pytest.importorskip('playwright.sync_api', reason='pip install playwright (the dev extra)')
pytestmark = [pytest.mark.skipif(not HTML.exists(), reason='book not built: run `make html` first'),
              pytest.mark.skipif(BROWSER is None, reason='no Chromium: `apt-get install chromium`')]
ZWSP = '\u200b'

@pytest.mark.parametrize('nb', TOC_FILES)
def test_page_is_offline_and_quiet(visits, nb):
    "No request leaves 127.0.0.1, the console logs no error, every chart is drawn."
    v = visits(nb)
    assert not v.outside, f'{nb}: {len(v.outside)} requests to other hosts, e.g. {v.outside[:3]}'
    assert not v.errors, f'{nb}: console errors: {v.errors[:3]}'
    for chart in v.charts:
        drawn = v.page.locator(f'#{chart} svg, #{chart} canvas').count()
        assert drawn == 1, f'{nb}: chart {chart} drew no SVG or canvas'


def stored_charts(nb: str) -> dict:
    "{chart id: its specification} of the charts a notebook stores, in order."
    cells = json.loads((ROOT / f'{nb}.ipynb').read_text())['cells']
    html = ''.join(''.join(o.get('data', {}).get('text/html', '')) for c in cells for o in c.get('outputs', []))
    return {cid: json.loads(spec.replace('<\\/', '</')) for cid, spec in re.findall(
        r'<div id="(tnb-chart-[0-9a-f]+)".*?<script type="application/json" id="\1-spec">(.*?)</script>', html, re.S)}


def charts_of(nb: str) -> list:
    "The ids of the charts a notebook stores, in order."
    return list(stored_charts(nb))


def spec_cells(spec: dict, choice: tuple) -> dict:
    "{(row, column): (query, key, weight)} of the panel `choice` of a heat map's specification."
    panels = spec['transform'][1]['from']['data']['values']
    p = next(p for p in panels if p['id'] == '|'.join(map(str, choice)))
    return {divmod(i, p['nk']): (p['q'][i // p['nk']], p['k'][i % p['nk']], p['w'][i])
            for i in range(p['nk'] * p['nq'])}


def check_hover(v, chart: str, choice: tuple, n: int = 3) -> list:
    """Hover the `n` heaviest drawn cells; each tooltip must name the cell's query, key and weight as stored in
    the specification. Returns [(row, column, weight shown)] of the hovered cells."""
    want = spec_cells(v.spec(chart), choice)
    drawn = sorted(v.items(chart, 'rect'), key=lambda c: -c['datum']['weight'])[:n]
    assert drawn, f'chart {chart} drew no cells'
    tips = []
    for c in drawn:
        d, tip = c['datum'], v.tooltip(c['x'], c['y'])
        q, k, w = want[(d['row'], d['column'])]
        assert (d['query'], d['key'], d['weight']) == (q, k, w)
        fields = list(tip.values())
        assert fields[0] == q.rstrip(ZWSP) and fields[1] == k.rstrip(ZWSP), (tip, q, k)
        assert abs(float(fields[2]) - w) < 1e-9, (tip, w)
        tips.append((d['row'], d['column'], float(fields[2])))
    return tips


def choose(v, chart: str, value: str):
    "Click the radio button of `value` in a chart's inputs."
    v.page.locator(f'#{chart} input[type=radio][value="{value}"]').first.check()
    v.page.evaluate('id => document.getElementById(id).view.runAsync().then(() => null)', chart)


def test_heatmap_tooltips_and_radio_buttons(visits):
    "The charts appendix's toy heat map: hovering names the cell; another layer draws another panel."
    v = visits('nbs/99b_charts')
    chart = charts_of('nbs/99b_charts')[0]
    check_hover(v, chart, ('self', 1))
    choose(v, chart, '2'), choose(v, chart, 'cross')
    check_hover(v, chart, ('cross', 2))


def test_chapter1_tooltips_are_the_weights_it_computes(visits):
    """Chapter 1's example recomputed here: under each mask, the hovered cells show the weights `attention`
    gives, to the three places the tooltip prints."""
    import torch
    from transformer_nb.model.attention import attention
    tokens = 'the cat sat on the mat with the cat <pad> <pad>'.split()
    vocab = {t: i for i, t in enumerate(dict.fromkeys(tokens))}
    emb = torch.randn(len(vocab), 16, generator=torch.Generator().manual_seed(3)) * 1.5
    x = emb[torch.tensor([vocab[t] for t in tokens])]
    real = torch.tensor([t != '<pad>' for t in tokens])
    masks = {'no mask': (None, False), 'causal': (None, True), 'padding': (real[None, :], False)}
    v = visits('nbs/01_attention')
    chart = charts_of('nbs/01_attention')[0]
    for name, (m, causal) in reversed(masks.items()):
        choose(v, chart, name)
        w = attention(x, x, x, m, is_causal=causal, need_weights=True)[1]
        for row, col, shown in check_hover(v, chart, (name,), n=4):
            assert abs(shown - w[row, col].item()) <= 5e-4 + 1e-9, (name, row, col, shown)


def test_chapter2_heads_and_mask(visits):
    "Chapter 2's hand-set heads: every head and mask the inputs offer draws its own panel, tooltips agreeing."
    v = visits('nbs/02_multihead')
    chart = charts_of('nbs/02_multihead')[0]
    params = v.spec(chart)['params']
    for mask in params[0]['bind']['options'][::-1]:
        for head in params[1]['bind']['options'][::-1]:
            choose(v, chart, mask), choose(v, chart, head)
            check_hover(v, chart, (mask, head), n=2)


def test_schedule_slider_redraws_noam_lr(visits):
    "Moving the warm-up slider redraws the reader's curve, equal to `noam_lr` at every drawn step."
    from transformer_nb.training.schedule import noam_lr
    nb = 'nbs/10_noam' if 'noam_chart(' in (ROOT / 'nbs/10_noam.ipynb').read_text() else 'nbs/99b_charts'
    v = visits(nb)
    chart = next(c for c in charts_of(nb) if 'warmup' in json.dumps(v.spec(c)['params']))
    v.page.locator(f'#{chart} input[type=range]').fill('8000')
    v.page.locator(f'#{chart} select').select_option('256')
    v.page.wait_for_timeout(200)
    lines = [i['datum'] for i in v.items(chart, 'line')]
    yours = [d for d in lines if d['schedule'] == 'yours']
    assert len(yours) > 500
    for d in yours[::50]:
        assert d['lrate'] == pytest.approx(noam_lr(int(d['step']), 256, 8000), rel=1e-12)
    dots = [i['datum'] for i in v.items(chart, 'symbol') if i['datum']['schedule'] == 'yours']
    assert dots and dots[0]['step'] == 8000 and dots[0]['lrate'] == pytest.approx(noam_lr(8000, 256, 8000))


def heatmaps_of(nb: str) -> list:
    "The heat-map charts a notebook stores (their specification looks panels up), by id."
    return [cid for cid, spec in stored_charts(nb).items() if any('lookup' in t for t in spec.get('transform', []))]


HEATMAPS = [(nb, cid) for nb in TOC_FILES for cid in heatmaps_of(nb)]


@pytest.mark.parametrize('nb,chart', HEATMAPS)
def test_every_heatmap_answers_a_hover(visits, nb, chart):
    "Every heat map of the book, on the panel its inputs show: the heaviest cells' tooltips are the stored ones."
    v = visits(nb)  # another test may have changed the inputs: read them from the chart
    n = sum(1 for p in v.spec(chart)['params'] if 'bind' in p)
    choice = v.page.evaluate("([id, n]) => [...Array(n).keys()].map(i => "
                             "document.getElementById(id).view.signal('s' + i))", [chart, n])
    check_hover(v, chart, tuple(choice), n=2)


def test_cross_attention_explorer_picks_a_verse(visits):
    "Chapter 17a's explorer: another verse, layer and head from its inputs draw that panel, tooltips agreeing."
    nb = 'nbs/17a_attention_heads'
    v = visits(nb)
    chart = next(c for c in heatmaps_of(nb) if 'verse' in json.dumps(v.spec(c)['params']))
    verses = v.spec(chart)['params'][0]['bind']['options']
    assert len(verses) >= 5
    v.page.locator(f'#{chart} select').select_option(verses[-1])
    choose(v, chart, '3'), choose(v, chart, '4')  # layer 3, head 4 (radio buttons: the first has no 4)
    tips = check_hover(v, chart, (verses[-1], 3, 4), n=3)
    assert len(tips) == 3


def num(text: str) -> float:
    "A number as a tooltip writes it: thousands separated by commas, a typographic minus sign."
    return float(text.replace(',', '').replace('\u2212', '-'))


def chart_with(v, nb: str, text: str) -> str:
    "The first chart of a notebook whose specification contains `text`."
    return next(c for c, spec in stored_charts(nb).items() if text in json.dumps(spec))


def test_positional_chart_is_sinusoidal_encoding(visits):
    """Chapter 4's table, computed in the page: for two widths, hovered cells show `sinusoidal_encoding`'s value,
    and the curve under the table is the hovered dimension over every position."""
    from transformer_nb.model.positional import sinusoidal_encoding
    nb = 'nbs/04_positional'
    v = visits(nb)
    chart = chart_with(v, nb, '"vconcat"')
    n = next(p['value'] for p in v.spec(chart)['params'] if p['name'] == 'positions')
    for d in ('32', '128'):
        choose(v, chart, d)
        pe = sinusoidal_encoding(n, int(d))
        cells = v.items(chart, 'rect')
        assert len(cells) == n * int(d)
        for c in cells[len(cells) // 3::len(cells) // 4][:3]:
            tip = v.tooltip(c['x'], c['y'])
            pos, dim = int(tip['position']), int(tip['dimension'])
            assert (pos, dim) == (c['datum']['position'], c['datum']['dimension'])
            assert abs(num(tip['PE']) - pe[pos, dim].item()) <= 5e-4 + 1e-9, (d, tip)
            curve = [i['datum'] for i in v.items(chart, 'symbol')]
            assert len(curve) == n and {p['dimension'] for p in curve} == {dim}
            for p in curve:
                assert p['value'] == pytest.approx(pe[p['position'], dim].item(), abs=1e-6)


def test_speed_bars_name_their_values(visits):
    """Chapter 18's bars: each hovered bar names its row, system and the verses per second that
    `data/decode_speed.json` gives; a system not measured is written n/a, not drawn as an empty place."""
    bench = json.loads((ROOT / 'data' / 'decode_speed.json').read_text())
    who = {'ours': 'ours', 'Hugging Face': 'hf', 'CTranslate2': 'ct2'}
    kind = {'greedy': 'greedy', 'beam 4': 'beam4', 'greedy, int8': 'int8 greedy', 'greedy, bf16': 'bf16 greedy',
            'beam 4, bf16': 'bf16 beam4', 'greedy, compiled step': 'compiled greedy'}
    nb = 'nbs/18_production'
    v = visits(nb)
    chart = chart_with(v, nb, '"yOffset"')
    bars = v.items(chart, 'rect')
    assert len(bars) == len(who) * len(kind)
    for b in bars:
        d = b['datum']
        sec = bench['seconds'].get(f"{who[d['series']]} {kind[d['group']]}")
        assert d['text'] == ('n/a' if sec is None else f"{bench['verses'] / sec:,.1f}"), d
    for b in [b for b in bars if b['datum']['value'] > 0][:3]:
        tip = v.tooltip(b['x'], b['y'])
        assert (tip['row'], tip['series']) == (b['datum']['group'], b['datum']['series'])
    texts = [i['datum']['text'] for i in v.items(chart, 'text')]
    assert texts.count('n/a') == sum(b['datum']['text'] == 'n/a' for b in bars) > 0


def test_beam_trees_trace_the_best_hypothesis(visits):
    """Chapter 14's trees: hovering a box names its piece and parent; the red path ends in the finished
    hypothesis that the chapter prints first, with its normalised score."""
    nb = 'nbs/14_beam_search'
    v = visits(nb)
    cells = json.loads((ROOT / f'{nb}.ipynb').read_text())['cells']
    printed = ''.join(''.join(o.get('text', '')) for c in cells for o in c.get('outputs', []))
    best_real = re.search(r'^beam +(-?[0-9.]+) (.*)$', printed, re.M)
    trees = [c for c, spec in stored_charts(nb).items() if 'so_far' in json.dumps(spec)]
    assert len(trees) == 2
    for chart in trees:
        boxes = [b for b in v.items(chart, 'rect') if 'piece' in b['datum']]
        path = sorted((b for b in boxes if b['datum']['best']), key=lambda b: b['datum']['step'])
        assert [b['datum']['step'] for b in path] == list(range(len(path)))
        for b in path[1:], path[-1:]:
            for box in b[:2]:
                tip = v.tooltip(box['x'], box['y'])
                assert tip['piece'] == box['datum']['piece'] and tip['parent'] == box['datum']['parent']
        end = path[-1]['datum']
        assert end['fate'] == 'finished' and end['so_far'].endswith('</s>')
    from transformer_nb.data.corpus import Tokenizer
    from transformer_nb.model.transformer import pretrained_path
    sp = Tokenizer.load(pretrained_path('book')).sp
    end = max((b['datum'] for b in v.items(trees[1], 'rect') if b['datum'].get('best')), key=lambda d: d['step'])
    pieces = end['so_far'].split(' ')
    assert sp.decode_pieces([p for p in pieces if p != '</s>']) == best_real[2]
    assert f"{end['s']:.3f}" == f'{float(best_real[1]):.3f}'


CURVES = [(nb, cid) for nb in TOC_FILES for cid, spec in stored_charts(nb).items()
          if isinstance(spec.get('mark'), dict) and spec['mark'].get('point')]


@pytest.mark.parametrize('nb,chart', CURVES)
def test_every_curve_chart_answers_a_hover(visits, nb, chart):
    "Every chart of curves: hovered points name their curve, x and y as the chart holds them."
    v = visits(nb)
    points = v.items(chart, 'symbol')
    assert points, f'{nb}: chart {chart} drew no points'
    for p in points[len(points) // 4::len(points) // 3 or 1][:3]:
        tip = v.tooltip(p['x'], p['y'])
        assert tip['curve'] == p['datum']['curve'], (tip, p['datum'])
        shown = num(list(tip.values())[2])
        assert shown == pytest.approx(p['datum']['y'], rel=1e-3), (tip, p['datum'])


def test_training_curves_are_the_run_log(visits):
    "The trainer chapter's (12a) loss chart draws the exported run's log: its points are the CSV's rows."
    import csv
    rows = list(csv.DictReader(open(ROOT / 'models' / 'book_small' / 'training_log.csv')))
    want = {('train' if r['split'] == 'train' else 'validation', float(r['step'])): float(r['loss'])
            for r in rows if r['split'] in ('train', 'valid')}
    nb = 'nbs/12a_trainer'
    v = visits(nb)
    chart = chart_with(v, nb, 'loss (label-smoothed)')
    got = {(d['curve'], d['x']): d['y'] for d in (i['datum'] for i in v.items(chart, 'symbol'))
           if d['curve'] != 'floor'}
    assert got.keys() == want.keys()
    assert all(got[k] == pytest.approx(want[k]) for k in want)
