"""Who sat in a seat, as a lasting key the ratings and standings hang on: a `PlayerId`.

Issue 18 (every player is a person, a lasting and verified identity) has not landed. Until
it does, a player is the name the lobby showed for the seat (`name:Ann`), and a bot is its
difficulty (`bot:easy`, `bot:normal`, `bot:hard`; a kind with no difficulty keeps its kind,
`bot:random`). The prefixes keep the two apart: a person called "bot:easy" is `name:bot:easy`,
never the reference bot. This module is the one home of that choice: issue 18 replaces
`player_id` (and `shown`) and nothing else needs to change.
"""

from __future__ import annotations

from typing import NewType

from protocol.constants import DIFFICULTIES

PlayerId = NewType("PlayerId", str)

BOT = "bot:"
NAME = "name:"
_DIFFICULTY_OF = {kind: difficulty for difficulty, kind in DIFFICULTIES.items()}


def player_id(name: str, bot_kind: str | None) -> PlayerId:
    """The identity of a seat's player from what the archive holds of the seat today."""
    if bot_kind is None:
        return PlayerId(NAME + name)
    return PlayerId(BOT + _DIFFICULTY_OF.get(bot_kind, bot_kind))


def is_bot(player: PlayerId) -> bool:
    return player.startswith(BOT)


def shown(player: PlayerId) -> str:
    """The identity as a person reads it: the name, or the bot's difficulty with "bot"."""
    if is_bot(player):
        return f"{player.removeprefix(BOT)} bot"
    return player.removeprefix(NAME)
