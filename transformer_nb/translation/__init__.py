"""Translating and scoring text: the `Translator` (`translator`) and BLEU, chrF and the
error analysis (`evaluate`).

Layer 5 of 6 (utils < model, data < text < training, generation < deploy < translation <
cli): it imports its own modules and lower layers only.
"""
