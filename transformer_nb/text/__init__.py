"""Reading a line of text: the number words of both languages, the rules that cut a
Spanish line into sentences, recase it and guess its language, and the checks for a
phrase said twice or a number changed.

Layer 2 of 6 (utils < model, data < text < training, generation < deploy < translation <
cli): it imports its own modules and lower layers only.
"""
