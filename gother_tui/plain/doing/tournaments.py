"""Tournaments: the one followed or the open ones, registering, watching, starting,
dropping out, making one."""

from __future__ import annotations

from typing import TYPE_CHECKING

from gother_tui.core import tournament_words
from gother_tui.core.client import Reply
from gother_tui.plain.moves import Problem
from gother_tui.plain.tournament_new import tournament_new
from protocol import requests as rq
from protocol import server_messages as sm

if TYPE_CHECKING:
    from gother_tui.plain.client import PlainClient


class Tournaments:
    def __init__(self, client: PlainClient) -> None:
        self.client = client

    def say(self, *lines: str) -> None:
        self.client.say(*lines)

    async def do_tournament(self, args: str) -> None:
        word, _, rest = args.partition(" ")
        followed = self.client.tournament
        if not word:
            if followed is not None:
                self.say(*tournament_words.lines(followed))
                return
            listed = await self.client.ask(rq.List())
            if isinstance(listed, sm.Tables) and not listed.tournaments:
                self.say(
                    "You follow no tournament, and none is open on this server: "
                    "tournament new makes one."
                )
            elif isinstance(listed, sm.Tables):
                self.say("You follow no tournament. Open on this server:")
                self.say(*tournament_words.open_lines(listed.tournaments))
                self.say("tournament ID registers in one, tournament watch ID follows one.")
            return
        if word in ("start", "drop"):
            if followed is None:
                raise Problem(f"tournament {word}: first register in a tournament (tournament ID).")
            kind = rq.TournamentStart if word == "start" else rq.TournamentDrop
            reply = await self.client.ask(kind(tournament=followed.id))
        elif word == "watch":
            if not rest:
                raise Problem("tournament watch ID: ID is the tournament's.")
            reply = await self.client.ask(rq.TournamentWatch(tournament=rest))
        elif word == "new":
            reply = await self._new_tournament(rest)
        else:
            reply = await self.client.ask(rq.TournamentJoin(tournament=word))
        if isinstance(reply, sm.Tournament):
            self.say(*tournament_words.lines(reply))

    async def _new_tournament(self, args: str) -> Reply | None:
        try:
            request = tournament_new(args)
        except ValueError as exc:
            raise Problem(str(exc)) from None
        return await self.client.ask(request)
