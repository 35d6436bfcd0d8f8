// The model of the book's "Translate in your browser" page, in a Web Worker, so that the
// page stays responsive while it translates: the exported graphs (encoder.onnx,
// decoder_step.onnx) run by ONNX Runtime Web, the model's own tokenizer.model run by
// SentencePiece compiled to WebAssembly, and the search of the book's chapters 13 and 14
// around the decoding step. Everything is loaded from the book itself (vendor/ and
// models/book/, next to this file's folder); vendor/translate.js, the page's script,
// sends the text and shows what comes back.
//
// A text is cut into sentences (vendor/sentences.js, the package's rules), each
// translated in turn; after each the translation so far is sent. Between two decoding
// steps the worker reads its messages, so a stop ends the run within one step.
//
// Messages in:  {type: 'translate', run, text, beams, precision, chartCells}, {type: 'stop', run}
// Messages out: {type: 'loading' | 'loaded', run}, {type: 'plan', run, count, cut},
//   {type: 'sentence', run, index, count, text, pieces, candidates (of the first)},
//   {type: 'attention', run, cells, keys, queries, steps (none past chartCells)},
//   {type: 'end', run, stopped},
//   {type: 'error', run, message}
const ROOT = new URL('../', self.location.href).href;
const MODEL = ROOT + 'models/book/';
const NEG = -Infinity;
let config, spp;
const sessions = {};  // precision -> {enc, step}
const stops = new Set();  // runs asked to stop

class Stopped extends Error {}

const fetched = async (url, kind) => {
  const r = await fetch(url);
  if (!r.ok) throw new Error(`could not load ${url} (${r.status})`);
  return r[kind]();
};

// The libraries, the configuration and the tokenizer: once.
let ready = null;
const setup = () => ready = ready || (async () => {
  importScripts(ROOT + 'vendor/ort/ort.wasm.min.js', ROOT + 'vendor/sentencepiece.js',
                ROOT + 'vendor/sentences.js');
  ort.env.wasm.wasmPaths = ROOT + 'vendor/ort/';
  ort.env.wasm.numThreads = 1;  // threads need a cross-origin isolated page
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

// Let the worker read its messages (a stop), then go on, or end the run if stopped.
const pause = () => new Promise(ok => {
  const channel = new MessageChannel();
  channel.port1.onmessage = ok;
  channel.port2.postMessage(null);
});
const checkpoint = async run => {
  await pause();
  if (stops.has(run)) throw new Stopped();
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

// GNMT's length normalisation ((5 + |y|) / 6)^alpha, |y| with </s>.
const lengthNorm = n => Math.pow((5 + n) / 6, config.generation.gnmt_alpha);

// Greedy decoding (chapter 13): the best next token, until </s> or the limit.
const greedy = async (run, s, {memory, bias}, limit) => {
  let past = emptyCache(1), token = config.bos_token_id, score = 0;
  const prefix = [token], out = [];
  for (let t = 0; t < limit; t++) {
    await checkpoint(run);
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

// Beam search (chapter 14): K rows from the start, the best 2K extensions, those that
// end among the best K join the pool of K finished hypotheses, the best K others go
// on; done when no running beam can beat the worst of a full pool, or at the limit.
const beam = async (run, s, enc, K, limit) => {
  const all = Array(K).fill(0);
  let memory = rows(enc.memory, all), bias = rows(enc.bias, all), past = emptyCache(K);
  let beams = all.map((_, i) => ({tokens: [], score: i ? NEG : 0}));
  let pool = [];
  const V = config.vocab_size, eos = config.eos_token_id;
  for (let t = 0; t < limit; t++) {
    await checkpoint(run);
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

const withoutEos = tokens => tokens.filter(i => i !== config.eos_token_id);

// What the model reads of a text: its sentences, one too long cut into clauses, as
// the package's translator does; each as pieces + </s>, cut to max_len (the indices
// of those cut, as the package warns of them).
const sources = text => {
  const T = config.max_len, {splitSentences, splitClauses, chars} = tnbSentences;
  const fits = s => 2 * chars(s) < T || spp.encodeIds(s).length + 1 <= T;
  const segments = splitSentences(text).flatMap(s => splitClauses(s, fits));
  const ids = segments.map(s => [...spp.encodeIds(s), config.eos_token_id]);
  const cut = ids.flatMap((x, i) => x.length > T ? [i] : []);
  for (const i of cut) ids[i] = [...ids[i].slice(0, T - 1), config.eos_token_id];
  return {ids, cut};
};

const translate = async ({run, text, beams: K, precision, chartCells}) => {
  const say = (type, more) => postMessage({type, run, ...more});
  if (!sessions[precision]) say('loading');  // the first time only
  await setup();
  const s = await open(precision);
  say('loaded');
  const {ids, cut} = sources(text);
  say('plan', {count: ids.length, cut, maxLen: config.max_len});
  const done = [];  // the output pieces of the sentences translated, in order
  let first = null;  // the first sentence: its source, encoding and best hypothesis
  try {
    for (const [index, src] of ids.entries()) {
      const limit = Math.min(src.length + 50, config.max_len);
      const enc = await encode(s, src);
      const hyps = K === 1 ? await greedy(run, s, enc, limit) : await beam(run, s, enc, K, limit);
      done.push(...withoutEos(hyps[0].tokens));
      let candidates;
      if (index === 0) {
        first = {src, enc, tokens: hyps[0].tokens};
        candidates = hyps.map(h => ({s: h.s, text: spp.decodeIds(withoutEos(h.tokens))}));
      }
      say('sentence', {index, count: ids.length, text: spp.decodeIds(done),
                       pieces: done.length, candidates});
    }
  } catch (e) {
    if (!(e instanceof Stopped)) throw e;
  }
  if (first) {  // the chart: the cross-attention of the first sentence's translation
    const cells = first.src.length * first.tokens.length;
    if (cells > chartCells) say('attention', {cells});  // too large for the page to draw
    else {
      const att = await attention(s, first.enc, first.tokens);
      say('attention', {cells, keys: first.src.map(i => config.pieces[i]),
                        queries: att.inputs.map(i => config.pieces[i]),
                        layers: config.layers, heads: config.heads, steps: att.steps});
    }
  }
  say('end', {stopped: stops.has(run)});
};

let queue = Promise.resolve();  // runs one after the other
onmessage = ({data}) => {
  if (data.type === 'stop') stops.add(data.run);
  else if (data.type === 'translate')
    queue = queue.then(() => translate(data)).catch(e => {
      postMessage({type: 'error', run: data.run, message: e.message});
    });
};
