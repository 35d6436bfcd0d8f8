"""The files the in-page translator (chapter 19) loads, with their sizes, for the page to
state what its first translation downloads before the reader presses the button.

    python tools/web_files.py web/site      # make web runs it; writes vendor/translate-files.json

Groups of paths (relative to the book's root) -> bytes: `runtime` (the worker, the
sentence rules, ONNX Runtime Web with its WebAssembly, SentencePiece, the model's
config.json and tokenizer.model), one group per precision of the exported graphs (the
files config.json lists) and `chart` (the chart library, which the page loads to draw
the cross-attention). tests/test_book_translate.py checks that the page's first
translation requests these files and states their total.
"""
import json, sys
from pathlib import Path

RUNTIME = ['vendor/translate_worker.js', 'vendor/sentences.js', 'vendor/ort/ort.wasm.min.js',
           'vendor/ort/ort-wasm-simd-threaded.mjs', 'vendor/ort/ort-wasm-simd-threaded.wasm',
           'vendor/sentencepiece.js', 'models/book/config.json', 'models/book/tokenizer.model']
CHART = ['vendor/vega.min.js', 'vendor/vega-lite.min.js', 'vendor/vega-embed.min.js']
OUT = 'vendor/translate-files.json'


def groups(site: Path) -> dict:
    "{group: {path: bytes}} of the files the translator loads from `site`."
    config = json.loads((site / 'models/book/config.json').read_text())
    paths = {'runtime': RUNTIME, 'chart': CHART}
    paths |= {p: [f'models/book/{f}' for f in fs] for p, fs in config['files'].items()}
    missing = [p for ps in paths.values() for p in ps if not (site / p).is_file()]
    if missing:
        sys.exit(f'{site}: missing {missing}: run make web')
    return {g: {p: (site / p).stat().st_size for p in ps} for g, ps in paths.items()}


def main():
    site = Path(sys.argv[1] if len(sys.argv) > 1 else 'web/site')
    out = {'groups': groups(site)}
    (site / OUT).write_text(json.dumps(out, indent=1) + '\n')
    for g, files in out['groups'].items():
        print(f'{g}: {sum(files.values()) / 1e6:.1f} MB in {len(files)} files')


if __name__ == '__main__':
    main()
