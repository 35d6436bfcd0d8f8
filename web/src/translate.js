// The page side of the book's "Translate in your browser" translator: the text box, the
// buttons, the status and the results. The model runs in a Web Worker
// (vendor/translate_worker.js), which cuts the text into sentences and sends each
// translation as it is done; this script only sends it the text, shows what comes back
// and draws the chart, so the page answers the reader while the model works.
// Everything is loaded from the book itself: vendor/ and models/book/ next to the pages;
// vendor/translate-files.json (make web) holds the size of every file the translator
// loads, from which the page states what the first translation downloads.
(() => {
  // the book's root as an absolute address
  const root = new URL(document.documentElement.dataset.content_root, document.baseURI).href;
  const $ = id => document.getElementById(id);
  const box = document.querySelector('.tnb-translate');
  const maxChars = Number(box.dataset.maxChars);
  // the most cells (source pieces x translation pieces) the chart draws: the SVG heat map
  // holds the page's thread while it draws (2,700 cells: 0.9 s on two cores)
  const CHART_CELLS = 2500;
  let worker = null, files = null;
  const loaded = new Set();  // groups of files already loaded: runtime, chart, int8, ...
  let current = null;  // the run on screen: {run, start, count, done, ...}
  let runs = 0;

  const script = url => new Promise((ok, fail) => {
    const s = document.createElement('script');
    s.src = url;
    s.onload = ok;
    s.onerror = () => fail(new Error('could not load ' + url));
    document.head.appendChild(s);
  });

  const say = (text, state) => { $('status').textContent = text; box.dataset.state = state; };
  // one of the two buttons at a time; the keyboard's focus follows to the one enabled
  const busy = on => {
    const [from, to] = on ? ['translate', 'stop'] : ['stop', 'translate'];
    const focused = document.activeElement === $(from);
    $(to).disabled = false;
    $(from).disabled = true;
    if (focused) $(to).focus();
  };
  const seconds = ms => (ms / 1000).toFixed(2) + ' s';
  const plural = (n, word) => `${n} ${word}${n === 1 ? '' : 's'}`;

  // What pressing the button would download now: the groups of files not loaded yet.
  const NAMES = {runtime: 'ONNX Runtime and the tokenizer', int8: 'the int8 model',
                 float32: 'the float32 model', chart: 'the chart library'};
  const bytes = group => Object.values(files.groups[group]).reduce((a, b) => a + b, 0);
  const download = () => {
    if (!files) return;
    const need = ['runtime', $('precision').value, 'chart']
      .filter(g => !loaded.has(g) && !(g === 'chart' && window.vegaEmbed));
    const total = need.reduce((a, g) => a + bytes(g), 0);
    const most = `At most ${maxChars.toLocaleString('en')} characters at a time.`;
    $('download').dataset.bytes = String(total);
    $('download').textContent = total
      ? `The ${loaded.size ? 'next' : 'first'} translation downloads ` +
        `${(total / 1e6).toFixed(1)} MB, once: ` +
        `${need.map(g => NAMES[g]).join(', ')}. ${most}`
      : `Everything is loaded: translating downloads nothing more. ${most}`;
  };

  const clear = () => {
    $('translation').textContent = '';
    $('candidates').replaceChildren();
    const el = $('tnb-translate-chart');
    el.replaceChildren();
    delete el.dataset.rendered;
    el.view = undefined;
    for (const key of ['ms', 'done', 'count']) delete box.dataset[key];
  };

  // The chart: the book's heat map (transformer_nb.book.charts), its panels filled here.
  const distinct = labels => {
    const seen = {};
    return labels.map(s => { seen[s] = (seen[s] ?? -1) + 1; return s + '\u200b'.repeat(seen[s]); });
  };
  const draw = async (r, att) => {
    if (!window.vegaEmbed)
      for (const lib of ['vega', 'vega-lite', 'vega-embed'])
        await script(root + 'vendor/' + lib + '.min.js');
    loaded.add('chart');
    if (current !== r) return;  // another run has begun meanwhile
    const spec = JSON.parse($('tnb-translate-spec').textContent);
    const keys = distinct(att.keys), queries = distinct(att.queries);
    const S = keys.length, H = att.heads, records = [];
    for (let l = 0; l < att.layers; l++) for (let h = 0; h < H; h++) {
      const w = [], top = [];
      for (const step of att.steps) {
        const row = Array.from(step.subarray((l * H + h) * S, (l * H + h + 1) * S), v => Math.round(v * 1000) / 1000);
        w.push(...row);
        top.push([...row.keys()].sort((a, b) => row[b] - row[a]).slice(0, 3)
          .map(j => `${keys[j].replace(/\u200b/g, '')} ${row[j].toFixed(2)}`).join(', '));
      }
      records.push({id: `${l + 1}|${h + 1}`, w, k: keys, q: queries, nk: S, nq: queries.length, top});
    }
    spec.transform[1].from.data.values = records;
    spec.data.sequence.stop = S * queries.length;
    const el = $('tnb-translate-chart');
    const result = await vegaEmbed(el, spec, {renderer: 'svg', actions: false});
    el.view = result.view;
    el.dataset.rendered = 'true';
  };

  const candidates = (hyps, several) => {
    const table = $('candidates');
    table.replaceChildren();
    if (several) table.createCaption().textContent = 'The search’s hypotheses for the first sentence';
    const head = table.createTHead().insertRow();
    for (const name of ['', 's', 'translation']) {
      const th = document.createElement('th');
      th.scope = 'col';
      th.textContent = name || 'rank';
      head.appendChild(th);
    }
    const body = table.createTBody();
    hyps.forEach((h, i) => {
      const tr = body.insertRow();
      tr.insertCell().textContent = String(i + 1);
      tr.insertCell().textContent = h.s.toFixed(3);
      tr.insertCell().textContent = h.text;
    });
  };

  const how = r => `${r.beams === 1 ? 'greedy' : r.beams + ' beams'}, ${r.precision} weights, ` +
    plural(r.pieces, 'piece');
  const cutNote = r => !r.cut.length ? '' : r.cut.length === 1
    ? ` Sentence ${r.cut[0] + 1} was longer than the model reads (${r.maxLen} pieces) ` +
      `and had no ; : or comma to cut it at: only its first ${r.maxLen - 1} pieces were ` +
      'translated.'
    : ` ${r.cut.length} sentences were longer than the model reads (${r.maxLen} pieces) ` +
      `and had no ; : or comma to cut them at: only the first ${r.maxLen - 1} pieces of ` +
      'each were translated.';
  const chartNote = r => !r.attention || r.attention.steps ? ''
    : ` No chart: the first sentence's cross-attention has ` +
      `${r.attention.cells.toLocaleString('en')} cells (source by translation pieces), ` +
      `and the page draws at most ${CHART_CELLS.toLocaleString('en')}.`;

  // What the worker sends, for the run on screen; a stopped run's later sentences are
  // dropped, its chart is still drawn.
  const heard = ({data: m}) => {
    const r = current;
    if (!r || m.run !== r.run) return;
    if (m.type === 'error') {
      busy(false);
      current = null;
      return say('The translator could not run: ' + m.message, 'error');
    }
    if (m.type === 'attention') { r.attention = m; return; }
    if (m.type === 'end') return finish(r);
    if (m.type === 'loaded') {  // stopped or not, these files are loaded
      r.loadMs = performance.now() - r.start;
      ['runtime', r.precision].forEach(g => loaded.add(g));
      return download();
    }
    if (r.stopped) return;
    if (m.type === 'loading') say('Loading the model and the tokenizer…', 'busy');
    else if (m.type === 'plan') {
      Object.assign(r, {count: m.count, cut: m.cut, maxLen: m.maxLen});
      box.dataset.count = String(m.count);
      box.dataset.done = '0';
      say(`Translating sentence 1 of ${m.count}…`, 'busy');
    } else if (m.type === 'sentence') {
      r.done = m.index + 1;
      r.pieces = m.pieces;
      // the sentence's words appended (a screen reader reads what is added)
      const shown = $('translation'), before = shown.textContent;
      if (m.text.startsWith(before)) shown.append(m.text.slice(before.length));
      else shown.textContent = m.text;
      box.dataset.done = String(r.done);
      if (m.candidates) candidates(m.candidates, r.count > 1);
      if (r.done < r.count) say(`Translating sentence ${r.done + 1} of ${r.count}…`, 'busy');
      else r.ms = performance.now() - r.start;  // every sentence on screen
    }
  };

  const finish = async r => {
    if (r.attention && r.attention.steps) await draw(r, r.attention);
    download();
    if (r.stopped) return;
    current = null;
    busy(false);
    box.dataset.ms = r.ms.toFixed(0);
    const loading = r.loadMs > 1000 ? `, ${seconds(r.loadMs)} of it loading the model` : '';
    say(`Translated ${plural(r.count, 'sentence')} in ${seconds(r.ms)}${loading} ` +
        `(${how(r)}).${cutNote(r)}${chartNote(r)}`, 'done');
  };

  const stop = () => {
    const r = current;
    if (!r || r.stopped) return;
    r.stopped = true;
    worker.postMessage({type: 'stop', run: r.run});
    busy(false);
    const ms = performance.now() - r.start;
    box.dataset.ms = ms.toFixed(0);
    say(r.count
      ? `Stopped after ${r.done} of ${plural(r.count, 'sentence')} (${seconds(ms)}): ` +
        (r.done ? 'the translation above is theirs.' : 'nothing was translated.')
      : `Stopped before translating (${seconds(ms)}).`, 'stopped');
  };

  const translate = () => {
    const text = $('source').value.trim();
    if (current) stop();
    clear();
    if (!text) return say('Type a Spanish sentence first.', 'done');
    const length = Array.from(text).length;
    if (length > maxChars)
      return say(`This text has ${length.toLocaleString('en')} characters; the page ` +
                 `translates at most ${maxChars.toLocaleString('en')} at a time: ` +
                 'translate it in parts.', 'done');
    if (!worker) {
      worker = new Worker(root + 'vendor/translate_worker.js');
      worker.onmessage = heard;
      worker.onerror = e => {
        e.preventDefault();
        busy(false);
        current = null;
        say('The translator could not run: ' + (e.message || 'its worker failed'), 'error');
      };
    }
    const beams = Number($('decoding').value), precision = $('precision').value;
    current = {run: ++runs, start: performance.now(), beams, precision, count: 0, done: 0,
               pieces: 0, cut: []};
    busy(true);
    say('Starting…', 'busy');
    worker.postMessage({type: 'translate', run: current.run, text, beams, precision,
                        chartCells: CHART_CELLS});
  };

  $('translate').addEventListener('click', translate);
  $('stop').addEventListener('click', stop);
  $('precision').addEventListener('change', download);
  // an emptied box: no result left on screen (and no run)
  $('source').addEventListener('input', () => {
    if ($('source').value.trim()) return;
    if (current) stop();
    clear();
    say('Type a Spanish sentence to translate.', 'ready');
  });
  fetch(root + 'vendor/translate-files.json')
    .then(r => r.ok ? r.json() : null).then(f => { files = f; download(); })
    .catch(() => {});
  say('Ready: the model loads when you press the button.', 'ready');
})();
