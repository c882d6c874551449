"""The view is a typed value: `View.from_wire` parses a whole `state.view` or names the field
at fault, never filling in a default; fields a newer server adds are ignored."""

from __future__ import annotations

import copy

import msgpack
import pytest

from protocol import ProtocolError, encode
from protocol.constants import HAND_SIZE
from protocol.view import Drew, LegalDraw, Player, Variants, View


def wire_of(value) -> dict:
    return msgpack.unpackb(encode(value))


def test_a_view_parses_back_to_itself(lobby_view):
    assert View.from_wire(wire_of(lobby_view)) == lobby_view


def test_the_lobby_view_is_the_same_type_with_empty_piles(lobby_view):
    assert lobby_view.phase == "lobby" and lobby_view.turn is None and lobby_view.round == 0
    assert all(isinstance(p, Player) for p in lobby_view.players)
    assert all(p.fate == () and p.hand_limit == HAND_SIZE for p in lobby_view.players)
    assert lobby_view.round_cap == lobby_view.variants.round_cap


def broken(lobby_view, change):
    wire = wire_of(lobby_view)
    change(wire)
    return wire


@pytest.mark.parametrize(
    ("change", "where"),
    [
        (lambda w: w.pop("phase"), "view: Object missing required field `phase`"),
        (lambda w: w.update(phase="dancing"), "view.phase: Invalid enum value 'dancing'"),
        (lambda w: w["players"][1].pop("fate"), "view.players[1]: Object missing"),
        (lambda w: w["players"][0].update(fate=[1, "x"]), "view.players[0].fate[1]"),
        (lambda w: w["players"][2]["scores"].pop("money"), "view.players[2].scores"),
        (lambda w: w.update(legal={"kind": "juggle"}), "view.legal.kind: Invalid value 'juggle'"),
        (lambda w: w.update(log=[{"kind": "turn", "seat": 0}]), "view.log[0]"),
        (lambda w: w["table"]["variants"].update(round_cap=0), "view.table.variants"),
        (lambda w: w.update(round="3"), "view.round: Expected `int`, got `str`"),
    ],
)
def test_a_malformed_view_names_the_field(lobby_view, change, where):
    with pytest.raises(ProtocolError) as caught:
        View.from_wire(broken(lobby_view, change))
    assert caught.value.code == "bad_message"
    assert caught.value.message.startswith(where), caught.value.message


def test_fields_a_newer_server_adds_are_ignored(lobby_view):
    wire = wire_of(lobby_view)
    grown = copy.deepcopy(wire)
    grown["weather"] = "fog"
    grown["players"][0]["mood"] = "brooding"
    assert View.from_wire(grown) == lobby_view


def test_optional_fields_are_left_out_when_empty():
    assert encode(Drew(1, "deck")) == encode({"kind": "draw", "seat": 1, "source": "deck"})
    assert wire_of(Drew(1, "deck", 7))["card"] == 7


def test_legal_and_events_are_tagged_by_kind():
    assert LegalDraw(True, (), False, 2).kind == "draw"
    assert wire_of(LegalDraw(True, (), False, 2))["kind"] == "draw"


def test_variants_keep_every_key_on_the_wire():
    assert Variants().to_wire() == {
        "fate_discard": "any",
        "overflow": "draw_step",
        "round_cap": 100,
        "two_or_six": False,
    }
    with pytest.raises(ProtocolError, match=r"variants\.overflow"):
        Variants.from_wire({"overflow": "sometimes"})
