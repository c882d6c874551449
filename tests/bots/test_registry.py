"""Bots by name (server/bots/registry.py): every name a player may choose, a difficulty or
a kind, stands for one kind; a name is made a kind once, where it comes in; one default,
the protocol's, for a table's bots, the cover bot and a network bot alike."""

from __future__ import annotations

import random
from typing import get_args

import pytest

from protocol import requests as rq
from protocol.constants import BOT_KINDS, BOT_NAMES, DEFAULT_BOT, DIFFICULTIES
from server.bots.netbot import NetBot
from server.bots.registry import DEFAULT_KIND, KINDS, BotKind, kind_of, make_bot, word
from server.edge.config import ServerConfig
from server.game import default_deck
from server.store.sqlite import SqliteStore
from server.tables.lobby import Lobby
from server.tables.table import Settings


def test_the_kinds_are_the_protocols_and_every_name_stands_for_one():
    assert get_args(BotKind) == tuple(KINDS) == BOT_KINDS
    assert {kind_of(name) for name in BOT_NAMES} == set(BOT_KINDS)
    for difficulty, kind in DIFFICULTIES.items():
        assert kind_of(difficulty) == kind_of(kind) == kind
        assert word(kind) == difficulty
    assert word("random") == "random"  # a kind with no difficulty is called by its kind


def test_a_name_that_stands_for_no_bot_is_refused_with_every_name_there_is():
    with pytest.raises(ValueError, match="unknown bot 'clairvoyant'; choose from easy, normal"):
        kind_of("clairvoyant")


def test_a_kind_makes_its_bot():
    for kind in BOT_KINDS:
        assert make_bot(kind, default_deck(), random.Random(0)).kind == kind


def test_one_default_the_protocols_for_every_bot_not_chosen():
    assert DEFAULT_BOT == "normal" and DEFAULT_KIND == kind_of(DEFAULT_BOT) == "heuristic"
    assert ServerConfig().cover == DEFAULT_BOT  # the bot covering an absent player
    assert Settings().cover_kind == DEFAULT_KIND
    assert NetBot("ws://127.0.0.1:1", "t").bot == DEFAULT_BOT  # `gother bot`
    store = SqliteStore()
    lobby = Lobby(store.tables, store.outcomes, Settings(), changed=lambda table: None)
    table = lobby.create(rq.Create(name="Crypt", seats=3, bots=2))  # no `bot` on the wire
    assert table.bot_kind == DEFAULT_KIND and table.summary().bot == DEFAULT_BOT
    assert [s.bot_kind for s in table.seats if s is not None] == [DEFAULT_KIND] * 2
