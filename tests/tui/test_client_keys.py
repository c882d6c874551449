"""The keys: a user's keymap file (binding ids to keys, through Textual's set_keymap) and
the help's key table, generated from the live bindings so it follows the keymap."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from textual.binding import Binding

from gother_tui.tui.app import GotherApp
from gother_tui.tui.keys import KeymapError, binding_ids, key_rows, load_keymap
from gother_tui.tui.replay_app import ReplayApp
from gother_tui.tui.screens.help import HelpScreen
from gother_tui.tui.screens.table import TableScreen
from protocol.constants import MAX_SEATS
from tests.tui.clientkit import at_table, notices, sent_moves, shown, until
from tests.tui.viewkit import draw_game, join_with, wire_view

KNOWN = {"draw.deck", "confirm", "app.quit"}


def test_no_keymap_file_is_no_keymap(tmp_path):
    assert load_keymap(tmp_path / "keymap.toml", KNOWN) == {}


def test_a_keymap_maps_binding_ids_to_keys_quoted_or_dotted(tmp_path):
    path = tmp_path / "keymap.toml"
    path.write_text('"draw.deck" = "D"\nconfirm = " enter , space "\n[app]\nquit = "ctrl+x"\n')
    assert load_keymap(path, KNOWN) == {
        "draw.deck": "D",
        "confirm": "enter,space",
        "app.quit": "ctrl+x",
    }


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ('"draw.dek" = "D"', "there is no key binding 'draw.dek'"),
        ("confirm = 3", 'confirm must be keys, like "d" or "ctrl+d,D"'),
        ('confirm = "a b"', "confirm must be keys"),
        ('confirm = ""', "confirm must be keys"),
        ("confirm = ", "is not valid TOML"),
    ],
)
def test_a_bad_keymap_says_what_is_wrong(tmp_path, text, why):
    path = tmp_path / "keymap.toml"
    path.write_text(text)
    with pytest.raises(KeymapError, match=re.escape(why)):
        load_keymap(path, KNOWN)


def key(binding: Binding) -> str:
    return binding.key


def test_help_rows_follow_the_keymap_and_share_a_line_per_tooltip():
    rows = dict((what, keys) for keys, what in key_rows(TableScreen.BINDINGS, {}, key))
    assert rows["move the cursor over the cards listed on the left"] == "up k left down j right"
    assert rows[next(w for w in rows if w.startswith("distribute: give"))] == "1-6"
    remapped = dict((w, k) for k, w in key_rows(TableScreen.BINDINGS, {"draw.deck": "t"}, key))
    assert remapped[next(w for w in rows if w.startswith("draw: take the top card"))] == "t"


async def test_a_keymap_file_changes_the_keys_and_the_help_says_so(make_app, fake, tmp_path):
    keymap = tmp_path / "keymap.toml"
    keymap.write_text('"draw.deck" = "t"\n')
    fake.handlers["join"] = join_with(wire_view(draw_game()))
    app = make_app(table="t1", keymap=keymap)
    async with app.run_test(size=(80, 24)) as pilot:
        await at_table(pilot)
        await pilot.press("d")  # no longer the draw pile's key
        await pilot.pause()
        assert not sent_moves(fake)
        await pilot.press("t")
        await until(pilot, lambda: sent_moves(fake), "the move")
        assert sent_moves(fake) == [{"kind": "draw", "source": "deck"}]
        await pilot.press("f1")
        text = await shown(pilot, HelpScreen, "take the top card")
        line = next(line for line in text.splitlines() if "take the top card" in line)
        assert line.strip("│ ").split()[0] == "t"


async def test_a_bad_keymap_file_is_a_notice_and_the_default_keys_stay(make_app, fake, tmp_path):
    keymap = tmp_path / "keymap.toml"
    keymap.write_text('"draw.dek" = "D"\n')
    fake.handlers["join"] = join_with(wire_view(draw_game()))
    app = make_app(table="t1", keymap=keymap)
    async with app.run_test(size=(80, 24)) as pilot:
        await at_table(pilot)
        assert any("there is no key binding 'draw.dek'" in n for n in notices(pilot))
        assert any("The default keys are used" in n for n in notices(pilot))
        await pilot.press("d")
        await until(pilot, lambda: sent_moves(fake), "the move")
        assert sent_moves(fake) == [{"kind": "draw", "source": "deck"}]


def test_the_readme_lists_every_binding_id_a_keymap_may_use():
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    paragraph = readme[readme.index("The ids:") : readme.index("A file with an unknown id")]
    listed = set(re.findall(r"`([a-z_.0-9]+)`", paragraph))
    listed |= {f"give.{n}" for n in range(2, MAX_SEATS)}  # "give.1 … give.6"
    ids = set()
    for app in (GotherApp, ReplayApp):
        ids |= set().union(*(binding_ids(b) for b in (app.BINDINGS, *app.KEYMAPPED)))
    assert listed == ids
