"""Rewrite bleu.json and hyp.*.txt of the shipped model (models/book_small) from its saved float16 weights, with the
scoring that `transformer-nb train --bleu` runs after an export (`score_model`, chapter 96).

    python tools/score_shipped.py
"""
import json

from transformer_nb.data.corpus import Tokenizer
from transformer_nb.model.transformer import TOKENIZER_NAME, load_pretrained, pretrained_path
from transformer_nb.training.recipe import TrainConfig
from transformer_nb.cli.train import score_model

folder = pretrained_path('book')
settings = json.loads((folder / 'training_config.json').read_text())
cfg = TrainConfig(**{k: v for k, v in settings.items() if k in TrainConfig.__dataclass_fields__})
scores = score_model(load_pretrained(folder), Tokenizer.load(folder / TOKENIZER_NAME), cfg, folder)
print(json.dumps({k: (v['bleu'], v['chrf']) for k, v in scores.items()}))
