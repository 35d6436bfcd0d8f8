"""Write the number rules of the shipped model (models/book_small/text_rules.json) from chapter 9c's `BOOK_RULES`:
how the book's model reads a line's numbers (the `--numbers` reading, the spelling, the stand-ins chapter 15 ranked,
the lines it learned as typed), saved with it as `save_pretrained(..., text_rules=...)` saves a model's.

    python tools/text_rules.py            # write the file
    python tools/text_rules.py --check    # exit 1 if the file is not what BOOK_RULES says
"""
import sys

from transformer_nb.model.transformer import pretrained_path, read_text_rules, save_text_rules
from transformer_nb.text.sentences import BOOK_RULES, text_rules

folder = pretrained_path('book')
if '--check' in sys.argv[1:]:
    same = read_text_rules(folder) == BOOK_RULES
    print(f"{folder}: text rules {'as' if same else 'differ from'} BOOK_RULES")
    sys.exit(0 if same else 1)
text_rules(BOOK_RULES)  # checked before it is written
save_text_rules(folder, BOOK_RULES)
print(f'wrote {folder / "text_rules.json"}')
