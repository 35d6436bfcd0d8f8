"""Training throughput: this package's Transformer against `torch.nn.Transformer` of the same size, side by side.

    python benchmarks/train_throughput.py [--preset small] [--max-tokens 4096] [--batches 8] [--rounds 5] [--threads 2]

Both models get the same embeddings (one matrix tied three ways, scaled by sqrt(d_model)), the same sinusoidal
positions, dropout and output projection; only the encoder-decoder stack between them differs (ours, or
`nn.Transformer` with batch_first=True, post-norm). Both train on the same batches of the Bible corpus (Spanish to
English, length-bucketed under the same token budget) with the same step as `transformer_nb.training.trainer.Trainer`: label-smoothed
loss averaged over target tokens, backward, gradient clipping, fused Adam with the Noam schedule. The two are timed in
alternation, round after round (the order swapped every round), and the medians over rounds are compared. The last line is
JSON: {"train_vs_torch": ours / torch target tokens per second, ...}.
"""
import argparse, json, statistics, time, warnings

import torch
from torch import nn

from transformer_nb.data.batching import PairDataset, TokenBucketSampler, collate
from transformer_nb.data.corpus import Tokenizer
from transformer_nb.model.transformer import TorchTransformer, Transformer, TransformerConfig
from transformer_nb.training.schedule import make_optimizer
from transformer_nb.training.recipe import TrainConfig, load_split
from transformer_nb.training.trainer import batch_loss  # the trainer's forward and loss of one batch


def make_step(model, cfg: TransformerConfig, factor=2.0, warmup=2000, smoothing=0.1, clip=1.0):
    "The trainer's update for one batch: token-averaged label-smoothed loss, backward, clipping, Adam and Noam."
    opt, sched = make_optimizer(model, cfg.d_model, warmup, factor)  # fused Adam
    def step(src, tgt):
        n = int((tgt != cfg.pad_token_id).sum())
        loss, _, _ = batch_loss(model, src, tgt, smoothing, cfg.pad_token_id, cfg.bos_token_id)
        (loss / n).backward()
        nn.utils.clip_grad_norm_(model.parameters(), clip)
        opt.step(); sched.step(); opt.zero_grad(set_to_none=True)
        return n
    return step


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--preset', default='small', help='TransformerConfig preset (default: small)')
    ap.add_argument('--tokenizer', help='SentencePiece model; default: train one (8,000 pieces) on 20,000 training sentences')
    ap.add_argument('--max-tokens', type=int, default=4096, help='batch budget per side, as in the trainer')
    ap.add_argument('--batches', type=int, default=8, help='batches per model per round')
    ap.add_argument('--rounds', type=int, default=5)
    ap.add_argument('--threads', type=int, default=2)
    ap.add_argument('--profile', action='store_true', help='also print the top operators of each model (torch.profiler)')
    args = ap.parse_args()
    torch.set_num_threads(args.threads); torch.manual_seed(0)
    warnings.filterwarnings('ignore', message='.*enable_nested_tensor.*')

    train = load_split(TrainConfig(max_steps=1), 'train')  # Spanish -> English
    tok = Tokenizer.load(args.tokenizer) if args.tokenizer else Tokenizer.train(train.src + train.tgt, 8000, max_sentences=20000)
    ds = PairDataset.from_pairs(train, tok)
    idx = TokenBucketSampler(ds.src_lens, ds.tgt_lens, args.max_tokens, seed=0).batches(0)[:args.batches + 1]
    batches = [collate([ds[i] for i in b], tok.pad_token_id) for b in idx]
    warm, batches = batches[0], batches[1:]
    cfg = TransformerConfig.preset(args.preset, src_vocab_size=tok.vocab_size)
    models = {'ours': Transformer(cfg), 'torch': TorchTransformer(cfg)}
    params = {k: sum(p.numel() for p in m.parameters()) for k, m in models.items()}
    steps = {k: make_step(m.train(), cfg) for k, m in models.items()}
    for k in steps: steps[k](*warm)  # first-call costs (allocations, kernel selection) outside the timing

    rates = {k: [] for k in models}
    for r in range(args.rounds):
        for k in (('ours', 'torch') if r % 2 == 0 else ('torch', 'ours')):
            t, n = time.perf_counter(), 0
            for src, tgt in batches: n += steps[k](src, tgt)
            rates[k].append(n / (time.perf_counter() - t))
        print(f"round {r + 1}: " + ', '.join(f'{k} {rates[k][-1]:,.0f}' for k in models) + ' target tokens/s', flush=True)
    med = {k: statistics.median(v) for k, v in rates.items()}
    tokens = sum(int((t != tok.pad_token_id).sum()) for _, t in batches)
    print(f"{args.preset} model ({params['ours']:,} parameters; torch: {params['torch']:,}), {len(batches)} batches "
          f"of <= {args.max_tokens} padded tokens per side ({tokens:,} target tokens), {args.threads} threads, {args.rounds} rounds")
    for k in models: print(f'  {k:6} median {med[k]:8,.0f} target tokens/s   (rounds: {", ".join(f"{x:,.0f}" for x in rates[k])})')
    ratio = med['ours'] / med['torch']
    print(f'  ours / torch: {ratio:.3f}x')

    if args.profile:
        from torch.profiler import profile, ProfilerActivity
        for k in models:
            with profile(activities=[ProfilerActivity.CPU]) as prof:
                for src, tgt in batches[:3]: steps[k](src, tgt)
            print(f'\n--- {k}: top operators by self CPU time ---')
            print(prof.key_averages().table(sort_by='self_cpu_time_total', row_limit=15))

    print(json.dumps({'train_vs_torch': round(ratio, 3), 'ours_tokens_per_s': round(med['ours'], 1),
                      'torch_tokens_per_s': round(med['torch'], 1), 'preset': args.preset, 'max_tokens': args.max_tokens,
                      'batches': len(batches), 'rounds': args.rounds, 'threads': args.threads,
                      'parameters': params['ours'], 'torch_parameters': params['torch']}))


if __name__ == '__main__':
    main()
