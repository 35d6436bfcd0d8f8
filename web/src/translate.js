// The translator of the book's "Translate in your browser" page: the exported graphs
// (encoder.onnx, decoder_step.onnx) run by ONNX Runtime Web, the model's own
// tokenizer.model run by SentencePiece compiled to WebAssembly, and the search of the
// book's chapters 13 and 14 around the decoding step. Everything is loaded from the
// book itself: vendor/ and models/book/ next to the pages.
(() => {
  // the book's root as an absolute address (ONNX Runtime resolves relative ones from its script)
  const root = new URL(document.documentElement.dataset.content_root, document.baseURI).href;
  const $ = id => document.getElementById(id);
  const box = document.querySelector('.tnb-translate');
  const MODEL = root + 'models/book/';
  const NEG = -Infinity;
  let config, spp;
  const sessions = {};  // precision -> {enc, step}

  const script = url => new Promise((ok, fail) => {
    const s = document.createElement('script');
    s.src = url;
    s.onload = ok;
    s.onerror = () => fail(new Error('could not load ' + url));
    document.head.appendChild(s);
  });
  const fetched = async (url, kind) => {
    const r = await fetch(url);
    if (!r.ok) throw new Error(`could not load ${url} (${r.status})`);
    return r[kind]();
  };

  // The libraries, the configuration and the tokenizer: once a page.
  let ready = null;
  const setup = () => ready = ready || (async () => {
    await script(root + 'vendor/ort/ort.wasm.min.js');
    ort.env.wasm.wasmPaths = root + 'vendor/ort/';
    ort.env.wasm.numThreads = 1;  // threads need a cross-origin isolated page
    await script(root + 'vendor/sentencepiece.js');
    config = await fetched(MODEL + 'config.json', 'json');
    const bytes = new Uint8Array(await fetched(MODEL + 'tokenizer.model', 'arrayBuffer'));
    let b64 = '';
    for (let i = 0; i < bytes.length; i += 0x8000)
      b64 += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
    spp = new sentencepiece.SentencePieceProcessor();
    await spp.loadFromB64StringModel(btoa(b64));
  })();

  const open = async precision => {
    if (!sessions[precision]) {
      const options = {executionProviders: ['wasm'], graphOptimizationLevel: 'all'};
      const [enc, step] = config.files[precision].map(f => MODEL + f);
      sessions[precision] = {
        enc: await ort.InferenceSession.create(enc, options),
        step: await ort.InferenceSession.create(step, options),
      };
    }
    return sessions[precision];
  };

  const int64 = (values, dims) =>
    new ort.Tensor('int64', BigInt64Array.from(values, BigInt), dims);

  // Rows `index` of a batch-first tensor: whole blocks of memory copied.
  const rows = (tensor, index) => {
    const [B, ...rest] = tensor.dims, size = tensor.data.length / B;
    const out = new Float32Array(index.length * size);
    index.forEach((r, i) => out.set(tensor.data.subarray(r * size, (r + 1) * size), i * size));
    return new ort.Tensor('float32', out, [index.length, ...rest]);
  };

  // The rules of every step (chapter 13's logits processors, the book's defaults):
  // <pad> and <s> never produced, no n-gram of pieces twice.
  const rules = (scores, prefix) => {
    scores[config.pad_token_id] = NEG;
    scores[config.bos_token_id] = NEG;
    const n = config.generation.no_repeat_ngram_size, L = prefix.length;
    if (!n || L < n) return scores;
    for (let i = 0; i + n <= L; i++) {
      let same = true;
      for (let j = 0; j < n - 1 && same; j++) same = prefix[i + j] === prefix[L - n + 1 + j];
      if (same) scores[prefix[i + n - 1]] = NEG;
    }
    return scores;
  };

  const logSoftmax = x => {
    let max = NEG, sum = 0;
    for (const v of x) if (v > max) max = v;
    for (const v of x) sum += Math.exp(v - max);
    const z = max + Math.log(sum);
    return x.map(v => v - z);
  };

  const encode = async (s, src) => {
    const r = await s.enc.run({src: int64(src, [1, src.length])});
    return {memory: r.memory_kv, bias: r.bias};
  };

  const emptyCache = B => new ort.Tensor(
    'float32', new Float32Array(0), [B, config.layers, 2, config.heads, 0, config.d_k]);

  // Greedy decoding (chapter 13): the best next token, until </s> or the limit.
  const greedy = async (s, {memory, bias}, limit) => {
    let past = emptyCache(1), token = config.bos_token_id, score = 0;
    const prefix = [token], out = [];
    for (let t = 0; t < limit; t++) {
      const r = await s.step.run({tokens: int64([token], [1]), past, memory_kv: memory, bias});
      const scores = rules(Float32Array.from(r.logits.data), prefix);
      token = 0;
      for (let v = 1; v < scores.length; v++) if (scores[v] > scores[token]) token = v;
      score += logSoftmax(scores)[token];
      out.push(token);
      prefix.push(token);
      past = r.present;
      if (token === config.eos_token_id) break;
    }
    return [{tokens: out, s: score / lengthNorm(out.length)}];
  };

  // GNMT's length normalisation ((5 + |y|) / 6)^alpha, |y| with </s>.
  const lengthNorm = n => Math.pow((5 + n) / 6, config.generation.gnmt_alpha);

  // Beam search (chapter 14): K rows from the start, the best 2K extensions, those that
  // end among the best K join the pool of K finished hypotheses, the best K others go
  // on; done when no running beam can beat the worst of a full pool, or at the limit.
  const beam = async (s, enc, K, limit) => {
    const all = Array(K).fill(0);
    let memory = rows(enc.memory, all), bias = rows(enc.bias, all), past = emptyCache(K);
    let beams = all.map((_, i) => ({tokens: [], score: i ? NEG : 0}));
    let pool = [];
    const V = config.vocab_size, eos = config.eos_token_id;
    for (let t = 0; t < limit; t++) {
      const last = t + 1 >= limit;
      const tokens = beams.map(b => b.tokens.length ? b.tokens[b.tokens.length - 1] : config.bos_token_id);
      const r = await s.step.run({tokens: int64(tokens, [K]), past, memory_kv: memory, bias});
      const cands = [];
      beams.forEach((b, i) => {
        if (b.score === NEG) return;
        const logp = rules(logSoftmax(r.logits.data.subarray(i * V, (i + 1) * V)),
                           [config.bos_token_id, ...b.tokens]);
        logp.forEach((lp, v) => { if (lp > NEG) cands.push({i, v, score: b.score + lp}); });
      });
      cands.sort((a, b) => b.score - a.score);
      const top = cands.slice(0, 2 * K), next = [];
      top.forEach((c, rank) => {
        const tokens = [...beams[c.i].tokens, c.v];
        if (c.v === eos || last) {
          if (rank < K) pool.push({tokens, s: c.score / lengthNorm(t + 1)});
        } else if (next.length < K) next.push({tokens, score: c.score, parent: c.i});
      });
      pool = pool.sort((a, b) => b.s - a.s).slice(0, K);
      const best = next.length ? next[0].score / lengthNorm(t + 1) : NEG;
      if (last || !next.length || (pool.length === K && !(best > pool[K - 1].s))) break;
      while (next.length < K) next.push({tokens: [], score: NEG, parent: 0});
      past = rows(r.present, next.map(b => b.parent));
      beams = next;
    }
    return pool;
  };

  // Cross-attention of one translation: its tokens fed one at a time (teacher
  // forcing), each step's weights kept: per layer and head, (pieces, source pieces).
  const attention = async (s, {memory, bias}, tokens) => {
    let past = emptyCache(1);
    const inputs = [config.bos_token_id, ...tokens.slice(0, -1)], steps = [];
    for (const token of inputs) {
      const r = await s.step.run({tokens: int64([token], [1]), past, memory_kv: memory, bias});
      steps.push(r.cross.data.slice());
      past = r.present;
    }
    return {inputs, steps};
  };

  // The chart: the book's heat map (transformer_nb.charts), its panels filled here.
  const distinct = labels => {
    const seen = {};
    return labels.map(s => { seen[s] = (seen[s] ?? -1) + 1; return s + '\u200b'.repeat(seen[s]); });
  };
  const draw = async (src, att) => {
    if (!window.vegaEmbed)
      for (const lib of ['vega', 'vega-lite', 'vega-embed'])
        await script(root + 'vendor/' + lib + '.min.js');
    const spec = JSON.parse($('tnb-translate-spec').textContent);
    const keys = distinct(src.map(i => config.pieces[i]));
    const queries = distinct(att.inputs.map(i => config.pieces[i]));
    const S = src.length, H = config.heads, records = [];
    for (let l = 0; l < config.layers; l++) for (let h = 0; h < H; h++) {
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

  const say = (text, state) => { $('status').textContent = text; box.dataset.state = state; };

  const candidates = hyps => {
    const table = $('candidates');
    table.replaceChildren();
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

  const translate = async () => {
    const text = $('source').value.trim();
    if (!text) return say('Type a Spanish sentence first.', 'done');
    const K = Number($('decoding').value), precision = $('precision').value;
    say('Loading the model and the tokenizer…', 'busy');
    await setup();
    const s = await open(precision);
    const src = [...spp.encodeIds(text), config.eos_token_id];
    if (src.length > config.max_len)
      return say(`The model reads at most ${config.max_len} pieces; this text has ` +
                 `${src.length}: shorten it.`, 'done');
    say('Translating…', 'busy');
    const start = performance.now(), limit = Math.min(src.length + 50, config.max_len);
    const enc = await encode(s, src);  // once: the search and the chart read it
    const hyps = K === 1 ? await greedy(s, enc, limit) : await beam(s, enc, K, limit);
    const ms = performance.now() - start;
    const ids = hyps[0].tokens.filter(i => i !== config.eos_token_id);
    hyps.forEach(h => h.text = spp.decodeIds(h.tokens.filter(i => i !== config.eos_token_id)));
    $('translation').textContent = hyps[0].text;
    box.dataset.ms = ms.toFixed(0);
    candidates(hyps);
    await draw(src, await attention(s, enc, hyps[0].tokens));
    say(`Translated in ${(ms / 1000).toFixed(2)} s (${K === 1 ? 'greedy' : K + ' beams'}, ` +
        `${precision} weights, ${ids.length} pieces).`, 'done');
  };

  $('translate').addEventListener('click', () => translate().catch(e => {
    say('The translator could not run: ' + e.message, 'error');
    console.error(e);
  }));
  say('Ready: the model loads when you press the button.', 'ready');
})();
