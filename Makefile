# One entry point for building the book and running every check.
#   make test   install the package with its dev (and optional) extras, then run every check CI runs
#   make book   install, export the notebooks to the package, build the book into _build/html
PYTHON ?= python3
PIP := $(PYTHON) -m pip

.PHONY: test test-fast book install export check-export check-clean nbtest pytest html web system-deps execute wheel-chapters

test: install check-export check-clean html system-deps pytest
	@echo "all checks passed"

# The inner loop: the package in sync and clean, and every tier but those that need the built book (browser), a fresh
# environment (install) or long runs (slow); `pytest -m TIER` runs one tier (tests/conftest.py, TIERS).
test-fast: check-export check-clean
	$(PYTHON) -m pytest tests -m "not (browser or install or slow)" --durations=10

book: install export html

install:
	$(PIP) install -e ".[dev,corpus,hf,bench,export]"

export:
	nbdev-export

# The package in transformer_nb/ is generated from nbs/: exporting again must change nothing.
check-export:
	nbdev-export
	@git diff --quiet -- transformer_nb && test -z "$$(git status --porcelain -- transformer_nb)" \
	  || { git status --short -- transformer_nb; echo "transformer_nb/ is out of sync with nbs/: run nbdev-export and commit"; exit 1; }

# Notebooks are committed clean: cleaning again must change nothing.
check-clean:
	nbdev-clean
	@git diff --quiet -- nbs || { git diff --stat -- nbs; echo "notebooks are not clean: run nbdev-clean and commit"; exit 1; }

# The notebooks' tests from the checkout (make test runs them once, from the built wheel, in
# tests/test_chapters_wheel.py).
nbtest:
	nbdev-test --do-print --timing

# Two streams, one per core, each one pytest process (so a session's fixtures are built once) whose PyTorch computes
# on one thread: two PyTorch processes of two threads each on two cores slow each other many times over (pytest-xdist,
# which gives each worker the whole machine and builds every fixture again, took 1,502 s where one process took about
# 1,000). STREAM holds the tiers run beside the rest: the built book in Chromium and the deployments; the rest (the
# install tier, whose chapters run two notebooks at a time, among them) prints as it goes, then STREAM's log.
STREAM := browser or deploy
pytest:
	@mkdir -p _build
	OMP_NUM_THREADS=1 $(PYTHON) -m pytest tests -m "$(STREAM)" --durations=15 > _build/pytest-stream.log 2>&1 & \
	  stream=$$!; \
	  OMP_NUM_THREADS=1 $(PYTHON) -m pytest tests -m "not ($(STREAM))" --durations=15; rest=$$?; \
	  wait $$stream; other=$$?; \
	  echo "== pytest -m \"$(STREAM)\" (beside the rest) =="; cat _build/pytest-stream.log; \
	  test $$rest -eq 0 && test $$other -eq 0

html: web
	jupyter-book build . -W --keep-going

# The book's web code, pinned in web/package.json and web/package-lock.json, from the npm registry (npm from Debian
# where it is missing), into web/site/, which the build copies into _build/html: the chart library the pages load
# from vendor/, each file with its licence; ONNX Runtime Web (vendor/ort/), SentencePiece compiled to WebAssembly
# (bundled by esbuild into vendor/sentencepiece.js), and for the translator in the page its own script
# (web/src/translate.js), the worker that runs the model (web/src/translate_worker.js), the sentence rules
# (web/src/sentences.js) and the sizes of the files they load (tools/web_files.py); and the book's model exported
# to ONNX (models/book/), again only when the model or the export changed. axe-core stays in web/node_modules:
# tests/test_book_a11y.py injects it into the built pages.
VENDOR := vega vega-lite vega-embed
ORT := ort.wasm.min.js ort-wasm-simd-threaded.wasm ort-wasm-simd-threaded.mjs
web: web/site/models/book/config.json
	@command -v npm >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq npm >/dev/null; }
	npm ci --prefix web --no-audit --no-fund --loglevel=error
	mkdir -p web/site/vendor/ort
	for p in $(VENDOR); do cp web/node_modules/$$p/build/$$p.min.js web/node_modules/$$p/LICENSE web/site/vendor/ \
	  && mv web/site/vendor/LICENSE web/site/vendor/$$p.LICENSE; done
	cp $(ORT:%=web/node_modules/onnxruntime-web/dist/%) web/site/vendor/ort/
	cp web/node_modules/onnxruntime-web/package.json web/site/vendor/ort/package.json  # its version and licence (MIT)
	web/node_modules/.bin/esbuild web/src/sentencepiece.js --bundle --minify --format=iife \
	  --global-name=sentencepiece --platform=browser --alias:fs=./web/src/empty.js \
	  --alias:module=./web/src/empty.js --log-level=warning --outfile=web/site/vendor/sentencepiece.js
	cp web/node_modules/@sctg/sentencepiece-js/LICENSE web/site/vendor/sentencepiece.LICENSE
	cp web/src/translate.js web/src/translate_worker.js web/src/sentences.js web/site/vendor/
	$(PYTHON) tools/web_files.py web/site

web/site/models/book/config.json: models/book_small/model.safetensors models/book_small/tokenizer.model \
                                  transformer_nb/deploy/onnx.py
	$(PYTHON) -m transformer_nb.deploy.export web/site/models/book --to onnx --overwrite

# Debian packages some tests need, installed when missing (CI runs as root): Chromium for tests/test_book_browser.py,
# the SWORD Bible modules for tests/test_corpus_builder.py (it rebuilds the shipped corpus from them), Apertium for
# tests/test_baselines.py (the rule-based baseline of chapter 17).
system-deps:
	@command -v chromium >/dev/null || command -v google-chrome >/dev/null || NEED="chromium"; \
	 dpkg -s sword-text-web >/dev/null 2>&1 || NEED="$$NEED sword-text-web"; \
	 dpkg -s sword-text-sparv >/dev/null 2>&1 || NEED="$$NEED sword-text-sparv"; \
	 dpkg -s apertium-eng-spa >/dev/null 2>&1 || NEED="$$NEED apertium-eng-spa"; \
	 if [ -n "$$NEED" ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$NEED >/dev/null; fi

# Re-run notebooks (all cells, slow ones included) so their stored outputs come from a real run.
#   make execute NBS="nbs/01_attention.ipynb"            (SKIP=train keeps a training run's stored outputs)
execute:
	$(PYTHON) tools/execute_notebooks.py $(NBS) $(if $(SKIP),--skip $(SKIP))

# Every chapter from the built wheel alone, in a fresh environment outside the checkout, every cell but the gpu ones,
# each in a Jupyter kernel as on Colab (pytest tests runs them with nbdev-test, skipping slow and train cells too).
wheel-chapters:
	TRANSFORMER_NB_CHAPTER_SKIP=gpu $(PYTHON) -m pytest -s tests/test_chapters_wheel.py
