"""The README's first commands work as written, in a fresh folder: the shipped model translates and is scored, and
a model of one's own is trained, exported, scored and used; its training runs again in the same folder. Each
command's time is printed (`pytest -s`), not asserted: the README says they take under a minute in all on two CPU
cores."""
import re, shlex, subprocess, sys, time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def first_commands() -> list:
    "The commands of the README's first code block that runs `transformer-nb` (comments dropped)."
    blocks = re.findall(r'```bash\n(.*?)```', (ROOT / 'README.md').read_text(encoding='utf-8'), re.S)
    block = next(b for b in blocks if 'transformer-nb translate' in b)
    return [shlex.split(line, comments=True) for line in block.splitlines() if line.strip()]


def test_the_first_commands_run_as_written(tmp_path):
    cli = Path(sys.executable).parent / 'transformer-nb'
    commands = first_commands()
    assert [c[:2] for c in commands] == [['transformer-nb', 'translate'], ['transformer-nb', 'evaluate'],
                                         ['transformer-nb', 'train'], ['transformer-nb', 'evaluate'],
                                         ['transformer-nb', 'translate']]
    outputs = []
    for argv in commands:
        start = time.perf_counter()
        r = subprocess.run([str(cli), *argv[1:]], cwd=tmp_path, capture_output=True, text=True, timeout=600)
        print(f'{time.perf_counter() - start:6.1f} s  {shlex.join(argv)}')
        assert r.returncode == 0, f'{shlex.join(argv)}: {r.stderr[-2000:]}'
        outputs.append(r.stdout)
    assert outputs[0].strip() == 'Blessed are the peacemakers.'
    assert '"n": 100' in outputs[1] and 'BLEU' in outputs[1]
    assert (tmp_path / 'runs/tiny/model/config.json').is_file() and 'saved runs/tiny/model' in outputs[2]
    assert '"checkpoint": "runs/tiny/model"' in outputs[3]
    assert len(outputs[4].splitlines()) == 1  # one line out for one sentence in
    # run again in the same folder, as a reader does: the training replaces the tiny model
    r = subprocess.run([str(cli), *commands[2][1:]], cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0 and 'saved runs/tiny/model' in r.stdout, r.stderr[-2000:]
