"""`gother serve`'s settings have one home, ServerConfig: an option not given leaves the
config's default, one given reaches the config, and --help says the config's default."""

from __future__ import annotations

import argparse
import dataclasses

import pytest

from gother_tui.cli import build_parser
from gother_tui.cli.host import HOST_FIELDS, host_settings
from gother_tui.cli.parser import DefaultsHelpFormatter
from server.edge.config import ServerConfig
from tests.kits.prockit import run_cli

DEFAULTS = ServerConfig()


def serve_actions() -> dict[str, argparse.Action]:
    """The serve subcommand's options by the field they set."""
    parser = build_parser()
    serve = parser._subparsers._group_actions[0].choices["serve"]  # type: ignore[union-attr]
    return {a.dest: a for a in serve._actions if a.option_strings}


def test_every_host_field_is_a_serve_option_and_a_config_field():
    fields = {f.name for f in dataclasses.fields(ServerConfig)}
    assert set(HOST_FIELDS) <= fields
    assert set(HOST_FIELDS) <= set(serve_actions())


def test_options_not_given_keep_the_configs_defaults():
    args = build_parser().parse_args(["serve"])
    assert host_settings(args) == {}  # nothing given: ServerConfig's defaults stand


@pytest.mark.parametrize("field", HOST_FIELDS)
def test_an_option_given_reaches_the_config(field):
    flag = serve_actions()[field].option_strings[0]
    default = getattr(DEFAULTS, field)
    choices = {"spectators": "all", "cover": "hard"}  # each another than the default
    value = choices[field] if field in choices else str(int(default or 1) + 1)
    settings = host_settings(build_parser().parse_args(["serve", flag, value]))
    config = ServerConfig(**settings)
    assert set(settings) == {field}
    assert str(getattr(config, field)) in (value, f"{value}.0")
    assert getattr(config, field) != default


@pytest.mark.parametrize("field", HOST_FIELDS)
def test_help_says_the_configs_default(field):
    said = DefaultsHelpFormatter("gother")._get_help_string(serve_actions()[field])
    default = getattr(DEFAULTS, field)
    if default is None:  # the cores but one: the help says so in words
        assert "(default: the cores but one)" in said
    else:
        assert said.endswith(f"(default: {default})")


async def test_public_with_a_sqlite_database_is_refused_and_nothing_is_made(tmp_path):
    db = tmp_path / "g.db"
    code, _, err = await run_cli("serve", "--db", str(db), "--public", "ws://h:1", "--port", "0")
    assert code == 2
    assert "--public ws://h:1: it goes with a PostgreSQL --db" in err
    assert not db.exists()  # refused before the server opened anything
