"""Baselines for the book's model, scored on the same test books with the same metric.

    python benchmarks/baselines.py copy apertium            # seconds
    python benchmarks/baselines.py torch --budget 30        # 30 minutes of training, then greedy decoding
    python benchmarks/baselines.py torch --budget 0.5 --limit 40 --out /tmp/b.json   # a smoke run
    python benchmarks/baselines.py book                     # as many updates as `torch` made (about 35 minutes)
    python benchmarks/baselines.py book --steps 3 --limit 10 --out /tmp/b.json      # a smoke run
    python benchmarks/baselines.py book --from-model DIR    # a model already trained with book_30min

* `copy`: the Spanish source copied as the "translation" — the floor every system must clear
  (names, numbers and punctuation already match).
* `apertium`: Debian's rule-based Apertium (`apt-get install apertium-eng-spa`), `apertium -u spa-eng`
  (`-u`: unknown words are not marked with `*`).
* `book`: the book's own trainer and model with the 30-minute recipe (`--preset book_30min`: no dropout, verses
  only), trained for exactly as many updates as the `torch` row made in its 30 minutes (read from the results
  file); greedy decoding of the averaged model (the recipe averages the last five snapshots; the `torch` loop
  keeps its last weights, so `last_weights` scores ours without the average as well). It also records the
  translations of a few short inputs (the failure that chapter 9b's short pairs fix). `--from-model DIR`
  scores a model that `transformer-nb train --preset book_30min --export DIR` already trained (its updates
  and budget are read from DIR/training_config.json) instead of training one.
* `torch`: `torch.nn.Transformer` of the book model's size (the `small` preset), with the book's
  tokenizer, corpus, batches, label-smoothed loss, Adam and Noam schedule, trained for the same
  wall-clock budget as the book's model (`--budget` minutes) by a plain loop (no checkpoint
  averaging), then greedy decoding without a cache (nn.Transformer has none).

Each result (BLEU and chrF from sacreBLEU, with signatures, on all test books and on the seven short
books) is merged into `data/baselines.json`, which chapter 17 reads (it is installed with the package).
"""
import argparse, json, platform, shutil, subprocess, sys, time, warnings
from pathlib import Path

import torch
from torch import nn

from transformer_nb.data.batching import PairDataset, TokenBucketSampler, collate
from transformer_nb.data.corpus import BASELINE_BOOKS, Tokenizer, book_of, load_bible
from transformer_nb.translation.evaluate import corpus_scores
from transformer_nb.model.transformer import TorchTransformer, TransformerConfig, pretrained_path
from transformer_nb.training.recipe import TRAIN_PRESETS
from transformer_nb.training.schedule import make_optimizer
from transformer_nb.training.trainer import batch_loss  # the trainer's forward and loss of one batch

OUT = Path(__file__).resolve().parents[1] / 'data' / 'baselines.json'
# plain greedy decoding, as the torch row decodes: no search rule against repetitions, whatever the
# translator's defaults are
# greedy plain search on whole verses (no sentence splitting), as the rows were measured
GREEDY = dict(num_beams=1, no_repeat_ngram_size=0, repetition_penalty=1.0, split=False)


def scores(hyps: list, test) -> dict:
    "BLEU and chrF on all test books and on the seven short books."
    seven = [i for i, k in enumerate(test.ids) if book_of(k) in BASELINE_BOOKS]
    full, sub = corpus_scores(hyps, test.tgt), corpus_scores([hyps[i] for i in seven],
                                                             [test.tgt[i] for i in seven])
    return {'bleu': round(full['bleu'], 2), 'chrf': round(full['chrf'], 2), 'n': full['n'],
            'seven_books': {'bleu': round(sub['bleu'], 2), 'chrf': round(sub['chrf'], 2), 'n': sub['n']},
            'bleu_signature': full['bleu_signature'], 'chrf_signature': full['chrf_signature'],
            'examples': {test.ids[i]: hyps[i] for i in range(3)}}


def copy_baseline(test, args) -> dict:
    return {'system': 'the Spanish source, copied', **scores(list(test.src), test)}


def apertium_baseline(test, args) -> dict:
    if shutil.which('apertium') is None:
        raise SystemExit('apertium is not installed: apt-get install apertium-eng-spa (Debian/Ubuntu)')
    version = subprocess.run(['dpkg-query', '-W', '-f=${Version}', 'apertium-eng-spa'],
                             capture_output=True, text=True).stdout.strip() or 'unknown'
    t = time.perf_counter()
    r = subprocess.run(['apertium', '-u', 'spa-eng'], input='\n'.join(test.src) + '\n',
                       capture_output=True, text=True)
    if r.returncode: raise SystemExit(f'apertium failed: {r.stderr.strip()[:300]}')
    hyps = r.stdout.split('\n')[:len(test)]
    if len(hyps) != len(test): raise SystemExit(f'apertium returned {len(hyps)} lines for {len(test)}')
    return {'system': f'Apertium apertium-eng-spa {version}, apertium -u spa-eng',
            'seconds': round(time.perf_counter() - t, 1), **scores(hyps, test)}


@torch.inference_mode()
def greedy(model: TorchTransformer, src: torch.Tensor, max_new: int) -> list:
    "Greedy decoding without a cache: the whole prefix through nn.Transformer at every step."
    c = model.config
    pad = src == c.pad_token_id  # (B, S)
    memory = model.transformer.encoder(model.positions(model.embedding(src)),
                                       src_key_padding_mask=pad)  # (B, S, d_model)
    out = torch.full((src.size(0), 1), c.bos_token_id)  # (B, 1)
    done = torch.zeros(src.size(0), dtype=torch.bool)
    for _ in range(max_new):
        T = out.size(1)
        causal = torch.ones(T, T, dtype=torch.bool).triu(1)
        h = model.transformer.decoder(model.positions(model.embedding(out)), memory, tgt_mask=causal,
                                      memory_key_padding_mask=pad, tgt_is_causal=True)
        nxt = model.generator(h[:, -1]).argmax(-1)  # (B,)
        nxt[done] = c.pad_token_id
        out = torch.cat([out, nxt[:, None]], 1)
        done |= nxt == c.eos_token_id
        if done.all(): break
    return [[t for t in row[1:] if t not in (c.pad_token_id, c.eos_token_id)] for row in out.tolist()]


def torch_baseline(test, args) -> dict:
    torch.manual_seed(0); torch.set_num_threads(args.threads)
    warnings.filterwarnings('ignore', message='.*nested.*')  # nn.Transformer's fast path notices
    tok = Tokenizer.load(pretrained_path('book'))  # the book model's tokenizer
    train = load_bible('train', src_lang='es')
    ds = PairDataset.from_pairs(train, tok, max_len=256)
    cfg = TransformerConfig.preset('small', src_vocab_size=tok.vocab_size, dropout=0.0)
    model = TorchTransformer(cfg).train()
    opt, sched = make_optimizer(model, cfg.d_model, warmup=2000, factor=2.0)  # the book preset's
    sampler = TokenBucketSampler(ds.src_lens, ds.tgt_lens, 2048, seed=0)
    t0, step, epoch = time.perf_counter(), 0, 0
    while time.perf_counter() - t0 < args.budget * 60:
        for b in sampler.batches(epoch):
            src, tgt = collate([ds[i] for i in b], tok.pad_token_id)
            n = int((tgt != tok.pad_token_id).sum())
            loss, _, _ = batch_loss(model, src, tgt, 0.1, tok.pad_token_id, tok.bos_token_id)
            (loss / n).backward()
            nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step(); sched.step(); opt.zero_grad(set_to_none=True); step += 1
            if step % 200 == 0: print(f'step {step}: loss {loss.item() / n:.3f}', flush=True)
            if time.perf_counter() - t0 >= args.budget * 60: break
        epoch += 1
    train_s = time.perf_counter() - t0
    model.eval(); t = time.perf_counter(); hyps = []
    enc = [tok.encode(s) for s in test.src]
    order = sorted(range(len(enc)), key=lambda i: len(enc[i]))  # similar lengths batch together
    by_id = {}
    for k in range(0, len(order), 32):
        rows = order[k:k + 32]
        src = collate([(torch.tensor(enc[i]), torch.tensor([0])) for i in rows], tok.pad_token_id)[0]
        for i, ids in zip(rows, greedy(model, src, min(src.size(1) + 50, cfg.max_len))):
            by_id[i] = tok.decode(ids)
    hyps = [by_id[i] for i in range(len(enc))]
    return {'system': f'torch.nn.Transformer, small preset ({sum(p.numel() for p in model.parameters()):,} '
                      f'parameters), {args.budget:g} CPU-minutes, greedy',
            'train_seconds': round(train_s), 'steps': step, 'decode_seconds': round(time.perf_counter() - t),
            'threads': args.threads, 'torch': torch.__version__, 'cpu': platform.processor() or platform.machine(),
            **scores(hyps, test)}


SHORT_INPUTS = ('Hola', 'Hola.', 'Gracias.', 'Buenos días.', 'veintitrés', 'Dios.', 'El rey.',
                'Jehová es mi pastor.')


def book_row(tr, test, system: str, train_seconds: float, steps: int, threads: int) -> dict:
    "A `book` row: translator `tr` on the test verses (greedy) and the short inputs, with its provenance."
    t = time.perf_counter(); hyps = tr.translate(list(test.src)); decode_s = time.perf_counter() - t
    return {'system': system, 'train_seconds': round(train_seconds), 'steps': steps,
            'decode_seconds': round(decode_s), 'threads': threads, 'torch': torch.__version__,
            'cpu': platform.processor() or platform.machine(),
            'short_inputs': dict(zip(SHORT_INPUTS, tr.translate(list(SHORT_INPUTS)))),
            **scores(hyps, test)}


def book_baseline(test, args) -> dict:
    "The book's trainer, `book_30min` recipe, as many updates as the torch baseline; greedy."
    from transformer_nb.training.recipe import TrainConfig
    from transformer_nb.training.trainer import Trainer
    from transformer_nb.translation.translator import Translator
    if args.from_model: return book_from_model(test, args)
    steps = args.steps or json.loads(args.out.read_text())['torch']['steps']
    cfg = TrainConfig.preset('book_30min', max_steps=steps, time_budget=None, threads=args.threads,
                             out_dir=str(args.run_dir), progress=False)
    trainer = Trainer(cfg, overwrite=True)
    t0 = time.perf_counter(); summary = trainer.fit(); train_s = time.perf_counter() - t0
    row = book_row(Translator(trainer.final_model(), trainer.tok, **GREEDY), test,
                   f"this book's trainer and model, small preset ({trainer.n_params:,} parameters), "
                   f"preset book_30min for {summary['step']:,} updates, averaged, greedy",
                   train_s, summary['step'], args.threads)
    # the torch loop keeps its last weights: score ours without the average too, to size that difference
    last = Translator(trainer.final_model('last'), trainer.tok, **GREEDY)
    row['last_weights'] = {k: v for k, v in scores(last.translate(list(test.src)), test).items()
                           if k in ('bleu', 'chrf', 'seven_books')}
    return row


def book_from_model(test, args) -> dict:
    "The `book` row from a model trained with the `book_30min` recipe and exported to `args.from_model`."
    from transformer_nb.translation.translator import Translator
    d = Path(args.from_model)
    run = json.loads((d / 'training_config.json').read_text())
    preset = {k: v for k, v in TRAIN_PRESETS['book_30min'].items() if k != 'out_dir'}
    differ = {k: (run.get(k), v) for k, v in preset.items() if run.get(k) != v}
    if differ: sys.exit(f"{d} was not trained with --preset book_30min: {differ} (run, preset)")
    tr = Translator.from_pretrained(d, **GREEDY)
    return book_row(tr, test,
                    f"this book's trainer and model, small preset ({tr.model.num_parameters():,} parameters), "
                    f"preset book_30min: {run['time_budget']:g} CPU-minutes ({run['steps']:,} updates), "
                    "averaged, greedy",
                    60 * run['time_budget'], run['steps'], torch.get_num_threads())


BASELINES = {'copy': copy_baseline, 'apertium': apertium_baseline, 'torch': torch_baseline,
             'book': book_baseline}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('which', nargs='+', choices=sorted(BASELINES), help='baselines to measure')
    ap.add_argument('--budget', type=float, default=30.0, help='torch: training minutes (default 30)')
    ap.add_argument('--threads', type=int, default=2, help='torch, book: CPU threads (default 2)')
    ap.add_argument('--steps', type=int, help="book: updates (default: the torch row's, from --out)")
    ap.add_argument('--run-dir', type=Path, default=Path('runs/baseline_book'),
                    help='book: the training run folder (default runs/baseline_book)')
    ap.add_argument('--from-model', type=Path,
                    help='book: score this model, trained with --preset book_30min, instead of training')
    ap.add_argument('--out', type=Path, default=OUT, help=f'results file (default {OUT})')
    ap.add_argument('--limit', type=int, help='only the first N test verses (a smoke run; needs --out)')
    args = ap.parse_args(argv)
    if args.limit and args.out == OUT: ap.error('--limit writes a partial result: give --out FILE')
    test = load_bible('test', src_lang='es')
    if args.limit: test = test.subset(range(args.limit))
    results = json.loads(args.out.read_text()) if args.out.exists() else {}
    for name in args.which:
        results[name] = r = BASELINES[name](test, args)
        print(f"{name}: BLEU {r['bleu']:.2f} chrF {r['chrf']:.2f} (seven books "
              f"{r['seven_books']['bleu']:.2f} / {r['seven_books']['chrf']:.2f})", flush=True)
        args.out.write_text(json.dumps(results, indent=1, ensure_ascii=False) + '\n')
    return 0


if __name__ == '__main__':
    sys.exit(main())
