"""The command line's help, as a newcomer reads it: every sentence true, every flag alike."""

import argparse
import re

import pytest

from topics.cli import build_parser, main


def _help(capsys, *argv) -> str:
    with pytest.raises(SystemExit) as stop:
        main([*argv, "--help"])
    assert stop.value.code == 0
    return " ".join(capsys.readouterr().out.split())  # argparse wraps lines: read it as one


def _subparsers() -> dict[str, argparse.ArgumentParser]:
    action = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


def test_assign_help_prints_a_plain_percent(capsys):
    text = _help(capsys, "assign")
    assert "95 % of the fitted papers" in text and "%%" not in text


def test_report_tables_help_names_every_file_it_writes(capsys):
    text = _help(capsys, "report")
    options = text[text.index("options:"):]
    tables = options[options.index("--tables DIR"):options.index("--seed N")]
    for name in ("documents", "topics", "areas", "comparison", "area_comparison", "prevalence", "stability", "bursts",
                 "emerging", "rising", "themes", "theme_papers"):
        assert f"{name}.csv" in tables, name


def test_evaluate_cache_help_speaks_of_what_evaluate_caches(capsys):
    text = _help(capsys, "evaluate")
    options = text[text.index("options:"):]
    cache = options[options.index("--cache-dir DIR"):options.index("--no-cache")]
    assert "report" not in cache and "analyses" not in cache and "embedding" in cache


@pytest.mark.parametrize("command", ["report", "evaluate", "assign", "update"])
def test_every_value_flag_shows_a_short_metavar(command):
    """As --seed N and --tables DIR: no flag shows its own name in capitals (MIN_CLUSTER_SIZE)."""
    for action in _subparsers()[command]._actions:
        if not action.option_strings or action.nargs == 0 or action.choices is not None:
            continue
        shown = action.metavar or action.dest.upper()
        assert "_" not in shown and len(shown) <= 8, f"{command} {action.option_strings[-1]} shows {shown}"
        assert re.fullmatch(r"[A-Z_]+", shown)


def test_the_cli_page_offers_the_registered_backends():
    """The reference synopsis in ``docs/cli.md`` writes the ``--backend`` choices out; they
    are the registry's (:data:`topics.embedding.backends.BACKENDS`), in its order."""
    from pathlib import Path

    from topics.embedding.backends import BACKENDS

    page = (Path(__file__).resolve().parent.parent / "docs" / "cli.md").read_text(encoding="utf-8")
    written = re.findall(r"--backend \{([^}]*)\}", page)
    assert written and all(choices.split(",") == list(BACKENDS) for choices in written)
