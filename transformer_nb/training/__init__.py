"""Training the model: the paper's learning-rate schedule (`schedule`) and label-
smoothed loss (`loss`), the short pairs added to the corpus (`short_pairs`), the
recipe of the book (`recipe`), the `Trainer` (`trainer`), its checkpoints
(`checkpoint`) and its log (`runlog`).

Layer 3 of 6 (utils < model, data < text < training, generation < deploy < translation <
cli): it imports its own modules and lower layers only.
"""
