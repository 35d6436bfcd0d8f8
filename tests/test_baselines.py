"""The baselines of chapter 17 come from code: benchmarks/baselines.py reproduces data/baselines.json."""
import json, shutil, subprocess, sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / 'benchmarks' / 'baselines.py'
STORED = json.loads((ROOT / 'data' / 'baselines.json').read_text())


def measure(which, out):
    r = subprocess.run([sys.executable, str(SCRIPT), which, '--out', str(out)],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-2000:]
    return json.loads(out.read_text())[which]


def test_copy_baseline_reproduces(tmp_path):
    got = measure('copy', tmp_path / 'b.json')
    for k in ('bleu', 'chrf', 'n', 'seven_books', 'bleu_signature'): assert got[k] == STORED['copy'][k], k


@pytest.mark.skipif(shutil.which('apertium') is None, reason='apt-get install apertium-eng-spa')
def test_apertium_baseline_reproduces(tmp_path):
    got = measure('apertium', tmp_path / 'b.json')
    assert got['n'] == 1275 and '*' not in ''.join(got['examples'].values())
    for k in ('bleu', 'chrf', 'seven_books'): assert got[k] == STORED['apertium'][k], k


def test_limit_needs_out():
    r = subprocess.run([sys.executable, str(SCRIPT), 'copy', '--limit', '5'], capture_output=True, text=True)
    assert r.returncode == 2 and '--limit writes a partial result: give --out FILE' in r.stderr
