"""One name per idea across the commands: every command's parser is read, and a flag that means two things, an idea
spelled two ways, or a value named two ways fails here. The shared flags come from one table (`utils.SHARED_FLAGS`)
and the decoding flags from another (`generation_config.FLAGS`)."""
import argparse

import pytest

from transformer_nb.cli import evaluate as evaluate_cli, train as train_cli, translate as translate_cli
from transformer_nb.data import build as corpus
from transformer_nb.deploy import export
from transformer_nb.cli.main import COMMANDS, usage
from transformer_nb.generation.config import FLAGS
from transformer_nb.generation.config import SHARED_FLAGS

PARSERS = {
    'translate': translate_cli.build_parser(),
    'evaluate': evaluate_cli._parser(),
    'train': train_cli.build_parser(),
    'export': export.build_parser(),
    'data': corpus._parser(),
}
KINDS = {'N', 'X', 'FILE', 'DIR', 'MINUTES', 'JSON', 'DEVICE', 'BOOK'}
SAME_IDEA = {'beam_widths': 'num_beams'}  # evaluate's --num-beams takes several widths, to compare
# --compile is torch.compile for the command's work: the training step (train), the decoding step (translate,
# evaluate: there the older spelling of --optimize compiled)
ALSO = {'--compile': {'compile', 'optimize'}}


def options(p: argparse.ArgumentParser) -> list:
    "The parser's optional flags (not -h), formatted once so that metavars are set."
    p.format_help()
    return [a for a in p._actions if a.option_strings and a.dest != 'help']


def test_every_command_is_read():
    assert set(PARSERS) == set(COMMANDS)


def test_a_flag_means_one_thing():
    meaning = {}
    for cmd, p in PARSERS.items():
        for a in options(p):
            for flag in a.option_strings:
                meaning.setdefault(flag, set()).add(SAME_IDEA.get(a.dest, a.dest))
    twice = {f: d for f, d in meaning.items() if len(d) > 1 and d != ALSO.get(f)}
    assert not twice, f'flags with two meanings: {twice}'


def test_an_idea_has_one_name():
    "The same idea (the parsed name) has the same flags, aliases included, and the same metavar in every command."
    seen = {}
    for cmd, p in PARSERS.items():
        for a in options(p):
            if a.const is not None and a.nargs == 0:
                continue  # --int8, --keep-digits: spellings of one value of an idea (--optimize, --numbers)
            seen.setdefault(a.dest, {})[cmd] = (tuple(a.option_strings), a.metavar)
    differ = {d: by for d, by in seen.items() if len(set(by.values())) > 1}
    assert not differ, f'one idea, several names: {differ}'


def test_shared_ideas_come_from_the_table():
    for cmd, p in PARSERS.items():
        for a in options(p):
            idea = next((k for k, (f, _) in SHARED_FLAGS.items() if f[0] == a.option_strings[0]), None)
            if idea is not None:
                flags = SHARED_FLAGS[idea][0]  # and a --no- form where the flag is a switch
                negated = tuple('--no-' + f[2:] for f in flags) if len(a.option_strings) > len(flags) else ()
                assert tuple(a.option_strings) == flags + negated, (cmd, idea)
                assert a.dest == SHARED_FLAGS[idea][1].get('dest', idea), (cmd, idea)


def test_values_are_named_by_their_kind():
    for cmd, p in PARSERS.items():
        for a in options(p):
            if a.nargs == 0 or a.choices is not None:
                continue
            assert a.metavar in KINDS, f'{cmd} {a.option_strings[0]} {a.metavar}'
            kind = getattr(a.type, 'metavar', None)  # int_in, float_in
            assert kind is None or a.metavar == kind or a.metavar in ('MINUTES',), (cmd, a.option_strings, a.metavar)


def test_translate_and_evaluate_take_the_same_decoding_and_text_flags():
    common = set(FLAGS) | {'split', 'truecase', 'numbers', 'device', 'optimize', 'batch_size', 'checkpoint'}
    for cmd in ('translate', 'evaluate'):
        dests = {a.dest for a in options(PARSERS[cmd])}
        missing = common - dests - ({'num_beams'} if cmd == 'evaluate' else set())
        assert not missing, (cmd, missing)
    widths = next(a for a in options(PARSERS['evaluate']) if a.dest == 'beam_widths')
    beams = next(a for a in options(PARSERS['translate']) if a.dest == 'num_beams')
    assert widths.option_strings == beams.option_strings == ['--num-beams', '--beams']


@pytest.mark.parametrize('cmd', ['translate', 'evaluate', 'train'])
def test_a_command_that_runs_a_model_takes_a_device(cmd):
    assert 'device' in {a.dest for a in options(PARSERS[cmd])}


def test_the_top_level_help_names_every_export():
    text = " ".join(usage().split())
    to = next(a for a in options(PARSERS['export']) if a.dest == 'to')
    names = {'hf': 'Hugging Face', 'ct2': 'CTranslate2', 'onnx': 'ONNX'}
    assert set(to.choices) == set(names)
    assert all(n in text for n in names.values()), text
