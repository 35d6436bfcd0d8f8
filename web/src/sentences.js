// How the in-page translator cuts a text into what it translates one at a time: the
// rules of the package's `transformer_nb.text.sentences` (chapter 9c), written again here.
//
// * A sentence ends at . ! ? or … (with any closing quotes or brackets after them) that
//   a space and a capital letter or a digit follow, opening marks (¿ ¡ « “ ( [) allowed
//   between them: "¿Vienes? Sí." is two sentences, "¿Vienes? dijo ella." one, and the
//   marks of ¿…? and ¡…! stay with their sentence.
// * A full stop after an abbreviation (Sr., etc., núm.) or a single letter (an initial)
//   ends none.
// * A piece without a letter joins the next sentence (the last one, at the end).
// * A sentence too long for the model is cut at ; or : (else at a comma) nearest its
//   middle, again until each piece fits.
//
// tests/test_book_translate.py checks that this file and `split_sentences` and
// `split_clauses` cut the same texts the same way. Loaded by the worker (importScripts)
// and by a test page; it defines `tnbSentences` on the global object.
(() => {
  const ABBREVIATIONS = new Set((
    'sr sra srta sres dr dra dres ud uds vd vds lic ing prof profa etc núm no nº pág ' +
    'págs cap caps vol vols art arts av avda gral cía depto dpto ej aprox admón ee uu ' +
    'vs mr mrs st jr fig figs tel').split(' '));
  const W = '[\\p{L}\\p{N}_]';  // a word character, as Python's \w
  // end marks and closing quotes, before a space and the next sentence's first letter
  const END = new RegExp(`[.!?…]+["»”’)\\]]*(?=\\s+[¿¡"«“(\\[]*(${W}))`, 'gu');
  const LAST_WORD = new RegExp(`${W}+$`, 'u');
  const chars = s => Array.from(s).length;  // code points, as Python's len

  const endsSentence = (text, m) => {
    const first = m[1];  // the next sentence's first letter or digit
    if (!/^[\p{Lu}\p{Nd}]$/u.test(first)) return false;  // lower case: it goes on
    if (m[0].replace(/["»”’)\]]+$/u, '') !== '.') return true;  // ! ? … or several
    const before = LAST_WORD.exec(text.slice(0, m.index));
    const word = before ? before[0].toLowerCase() : '';
    return !ABBREVIATIONS.has(word) && !(chars(word) === 1 && /^\p{L}$/u.test(word));
  };

  // The sentences of a text, trimmed; [] for a blank one.
  const splitSentences = text => {
    const out = [];
    let start = 0;
    for (const m of text.matchAll(END)) {
      if (endsSentence(text, m)) {
        out.push(text.slice(start, m.index + m[0].length).trim());
        start = m.index + m[0].length;
      }
    }
    out.push(text.slice(start).trim());
    const joined = [];
    let carry = '';  // a piece without a letter joins the next one
    for (const piece of out) {
      const s = `${carry} ${piece}`.trim();
      if (/\p{L}/u.test(s)) { joined.push(s); carry = ''; } else carry = s;
    }
    if (carry) {  // the text ends with one: it joins the last sentence
      if (joined.length) joined[joined.length - 1] += ' ' + carry;
      else joined.push(carry);
    }
    return joined;
  };

  // `sentence`, or its clauses in order: cut at ; or : (else at a comma) nearest its
  // middle until `fits` says each piece is short enough.
  const splitClauses = (sentence, fits) => {
    if (fits(sentence)) return [sentence];
    for (const marks of [/[;:]\s+/gu, /,\s+/gu]) {
      // where each mark ends, counted in code points
      const cuts = [...sentence.matchAll(marks)].map(m => m.index + m[0].length);
      if (!cuts.length) continue;
      const half = chars(sentence) / 2, at = c => Math.abs(chars(sentence.slice(0, c)) - half);
      const mid = cuts.reduce((best, c) => at(c) < at(best) ? c : best);
      return [sentence.slice(0, mid).trim(), sentence.slice(mid).trim()]
        .flatMap(h => splitClauses(h, fits));
    }
    return [sentence];  // no mark left: the translator cuts it to the model's limit
  };

  globalThis.tnbSentences = {splitSentences, splitClauses, chars};
})();
