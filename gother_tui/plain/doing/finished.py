"""Finished games: a game's review, its replay a turn at a time, and playing on from a
turn of it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from gother_tui.core import review_words
from gother_tui.core.client import Reply
from gother_tui.core.record import GameRecord, RecordError, ask_record
from gother_tui.plain import replay
from gother_tui.plain.doing.where import at_table
from gother_tui.plain.moves import Problem
from protocol import requests as rq
from protocol import server_messages as sm

if TYPE_CHECKING:
    from gother_tui.plain.client import PlainClient


class Finished:
    def __init__(self, client: PlainClient) -> None:
        self.client = client
        self.replaying: tuple[GameRecord, int] | None = None  # the replay told, its turn

    def say(self, *lines: str) -> None:
        self.client.say(*lines)

    async def do_review(self, args: str) -> None:
        view = at_table(self.client)
        if not view.over:
            raise Problem("review judges a game once it is over.")
        seats = len(view.players)
        if args and not (args.isdigit() and 1 <= int(args) <= seats):
            raise Problem(f"review SEAT: SEAT is a number from 1 to {seats}.")
        seat = int(args) - 1 if args else view.seat
        if seat is None:
            raise Problem(f"review SEAT: you are watching, so say whose (1 to {seats}).")
        self.say("Reviewing: the search goes over every decision, some seconds.")
        reply = await self.client.ask(
            rq.Review(table=view.table.id, game=view.table.game, seat=seat)
        )
        if isinstance(reply, sm.Review):
            name = view.players[seat].name or f"Seat {seat + 1}"
            self.say(*review_words.lines(reply, name))

    async def do_replay(self, args: str) -> None:
        if args.lower() == "next":
            if self.replaying is None:
                raise Problem("No replay to go on with: replay first.")
            record, turn = self.replaying
            if turn >= len(record.turn_starts()):
                raise Problem("That was the last turn of the game.")
        else:
            place = replay.place_of(args, self.client.view)
            record, turn = await self.fetch_record(place), place.turn - 1
        try:
            lines = replay.turn_lines(record, turn + 1, self.client.glyphs)
        except RecordError as exc:  # a turn past the last
            raise Problem(f"{str(exc)[:1].upper()}{str(exc)[1:]}.") from None
        self.replaying = (record, turn + 1)
        self.say(*lines)

    async def do_play(self, args: str) -> None:
        """`play on [TURN]` (or `play-on TURN`): play on from the replay last told."""
        words_ = args.split()
        if words_ and words_[0].lower() == "on":
            words_.pop(0)
        if self.replaying is None:
            raise Problem("play on follows a replay: replay a game, then play on [TURN].")
        record, told = self.replaying
        if record.seat is None:
            raise Problem("play on plays a seat: replay the game as one (replay ... seat N).")
        if len(words_) > 1 or (words_ and not (words_[0].isdigit() and int(words_[0]) >= 1)):
            raise Problem("play on [TURN]: TURN is a number from 1.")
        turn = int(words_[0]) if words_ else told
        on = rq.PlayOn(table=record.table.id, game=record.game, seat=record.seat, turn=turn)
        reply = await self.client.ask(on)
        if isinstance(reply, sm.Joined):
            self.replaying = None
            self.say(
                f"Playing on from turn {turn} of {record.name}, as seat {record.seat + 1} knew "
                "it, against bots; the cards it did not see are dealt afresh."
            )

    async def fetch_record(self, place: replay.Place) -> GameRecord:
        """The record of `place`'s game with its seat's views, part by part, over this
        client's own connection (Problem: the server refused, or did not answer)."""

        async def ask(request: rq.Record) -> Reply | None:
            return await self.client.ask(request, quiet=True)

        try:
            return await ask_record(ask, place.table, place.game, place.seat)
        except RecordError as exc:
            raise Problem(f"{str(exc)[:1].upper()}{str(exc)[1:]}.") from None
