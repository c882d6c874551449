"""Reviews (`review`): a seat's decisions in a finished game, judged by the one judge of the
hints (server/bots/review.py) from that seat's views, in the worker processes of the searches.

A review is thought in parts of PART decisions, one after the other, each a job about as
long as two hints: the hints and the bots' moves of the tables being played queue between
them. Then the few moments that may be told get their longer look, a job each
(`ReviewCheck`). A job the pool cannot take answers `busy`, and so does a review past
AT_ONCE being thought server-wide. A finished game never changes, so its reviews are kept
(the newest KEPT) and answered from there; askers of a review being thought wait for the
same one. The hints the seat was given in that game (kept with it: `GameArchive.hints`) go with
the review's jobs: a moment that followed its hint is never told as a mistake.
"""

from __future__ import annotations

import asyncio
import functools
from collections import OrderedDict
from typing import Any

import msgspec

from protocol import MAX_FRAME, ProtocolError, encode, server_messages
from server.bots.jobs import ReviewCheck, ReviewPart
from server.bots.review import Check, FinishedGame, Moment, candidates, sentence, summary, told
from server.game import Move, dealer_for, parse_deck
from server.searches import Busy, Searches, SearchFailed
from server.store.outcomes import OutcomeStore
from server.store.tables import GameArchive
from server.tables.table import Peer

PART = 2  # decisions a job: about as long as two hints
AT_ONCE = 2  # reviews thought at once, server-wide
KEPT = 256  # reviews kept, the newest (a few KiB each)
# Seconds a review's jobs may wait behind the searches ahead (the tables' hints and bots'
# moves go between them): a review is refused only by a full queue, or by others thought;
# on a loaded host a hint ahead of it takes seconds of the clock for its fixed budget.
GOING_ON = 30.0

Key = tuple[str, int, int]  # (table, game, seat)


class Reviews:
    def __init__(self, archive: GameArchive, outcomes: OutcomeStore, searches: Searches) -> None:
        self.archive = archive
        self.outcomes = outcomes
        self.searches = searches
        self.kept: OrderedDict[Key, server_messages.Review] = OrderedDict()
        self.thinking: dict[Key, asyncio.Task[server_messages.Review]] = {}
        self.asking: dict[Peer, asyncio.Task[None]] = {}  # one review a connection at a time

    def ask(self, table_id: str, game_no: int, seat: int, peer: Peer, rid: int | None) -> None:
        """Answer `peer` with the `review`, now if it is kept, else when it is thought."""
        key = (table_id, game_no, seat)
        if key in self.kept:
            self.kept.move_to_end(key)
            peer.send(self._with_rid(self.kept[key], rid))
            return
        if peer in self.asking:
            raise ProtocolError("rate_limited", "a review is on its way: wait for it")
        thought = self.thinking.get(key)
        if thought is None:
            if len(self.thinking) >= AT_ONCE:
                raise ProtocolError("busy", "other reviews are being thought: ask again soon")
            played = finished_game(self.archive, self.outcomes, table_id, game_no, seat)
            hints = self.archive.hints(table_id, game_no, seat)
            first = self._submit(ReviewPart(played, seat, 0, PART, hints), GOING_ON)
            thought = asyncio.get_running_loop().create_task(self._think(key, played, hints, first))
            self.thinking[key] = thought
            thought.add_done_callback(lambda _: self.thinking.pop(key, None))
        answer = asyncio.get_running_loop().create_task(self._answer(thought, peer, rid))
        self.asking[peer] = answer
        answer.add_done_callback(lambda _: self.asking.pop(peer, None))

    def close(self) -> None:
        for task in [*self.asking.values(), *self.thinking.values()]:
            task.cancel()

    # -- inside ---------------------------------------------------------------------------

    def _submit(
        self, job: ReviewPart | ReviewCheck, wait: float | None = None
    ) -> asyncio.Future[Any]:
        try:
            return self.searches.submit(job, wait=wait)
        except Busy as exc:
            raise ProtocolError("busy", f"the searches are full ({exc}): ask again soon") from None

    async def _think(
        self,
        key: Key,
        played: FinishedGame,
        hints: dict[int, Move],
        first: asyncio.Future[tuple[int, list[Moment]]],
    ) -> server_messages.Review:
        table_id, game_no, seat = key
        try:
            total, moments = await first
            while len(moments) < total:
                start = len(moments)
                part = ReviewPart(played, seat, start, start + PART, hints)
                moments.extend((await self._submit(part, GOING_ON))[1])
            checks: list[Check] = [
                await self._submit(ReviewCheck(played, seat, moment), GOING_ON)
                for moment in candidates(moments)
            ]
        except Busy as exc:  # a part overtaken by the tables' searches until too late
            raise ProtocolError("busy", f"the searches are too far behind ({exc})") from None
        except SearchFailed as exc:
            raise ProtocolError("search_failed", f"the review failed ({exc}): ask again") from None
        by_step = {m.step: m for m in moments}
        review = server_messages.Review(
            table=table_id,
            game=game_no,
            seat=seat,
            moments=tuple(
                server_messages.ReviewMoment(
                    step=m.step,
                    round=m.round,
                    played=m.played,
                    advised=m.advised,
                    cost=round(m.cost, 2),
                    why=m.why,
                    win=None if m.win is None else round(m.win, 3),
                    given_up=round(m.given_up, 1),
                    noise=round(m.noise, 1),
                    hint=m.hint,
                    followed_hint=m.followed_hint,
                )
                for m in moments
            ),
            costliest=tuple(
                server_messages.CostlyMoment(
                    step=c.step,
                    sentence=sentence(by_step[c.step], c, seat, played.deck, played.players),
                    given_up=round(c.given_up, 1),
                    noise=round(c.noise, 1),
                    play_outs=c.play_outs,
                )
                for c in told(checks)
            ),
            summary=summary(moments),
        )
        if len(encode(review)) > MAX_FRAME:  # some 300 decisions of one seat: a rare game
            raise ProtocolError("no_record", "this game is too long for its review to fit a frame")
        self.kept[key] = review
        while len(self.kept) > KEPT:
            self.kept.popitem(last=False)
        return review

    async def _answer(
        self, thought: asyncio.Task[server_messages.Review], peer: Peer, rid: int | None
    ) -> None:
        try:
            review = await asyncio.shield(thought)  # one asker gone: the others still wait
        except ProtocolError as exc:
            peer.send(server_messages.Error(code=exc.code, message=exc.message, rid=rid))
            return
        peer.send(self._with_rid(review, rid))

    @staticmethod
    def _with_rid(review: server_messages.Review, rid: int | None) -> server_messages.Review:
        return msgspec.structs.replace(review, rid=rid)


def finished_game(
    archive: GameArchive, outcomes: OutcomeStore, table_id: str, game_no: int, seat: int
) -> FinishedGame:
    """The finished game to replay (for a review of `seat`, or to play on as it); refused
    at once if there is none, or no such seat. A finished game never changes: the newest
    read are kept, so a flood of reviews or plays on of the same games reads the store once
    (what is not over yet is looked up afresh, its outcome first)."""
    seats = _seats(archive, table_id)
    if seat >= seats:
        raise ProtocolError("no_such_seat", f"table {table_id} has seats 0-{seats - 1}")
    if not (outcomes.has_outcome(table_id, game_no) or archive.ended(table_id, game_no)):
        raise ProtocolError("no_record", f"game {game_no} of table {table_id} is not over")
    return _finished(archive, table_id, game_no)


@functools.lru_cache(maxsize=256)
def _seats(archive: GameArchive, table_id: str) -> int:
    """A table's seats, which never change (a refusal is never kept)."""
    if not archive.has_table(table_id):
        raise ProtocolError("no_such_table", f"there is no table {table_id!r}")
    return archive.table(table_id).seats


@functools.lru_cache(maxsize=64)
def _finished(archive: GameArchive, table_id: str, game_no: int) -> FinishedGame:
    record = archive.table(table_id)
    try:
        seed, moves = archive.game(table_id, game_no)
        start = archive.start(table_id, game_no)
    except ValueError as exc:  # a stored move or start is missing or unreadable
        raise ProtocolError("no_record", str(exc)) from None
    if seed is None:
        raise ProtocolError("no_record", f"game {game_no} of table {table_id} is not over")
    return FinishedGame(
        deck=parse_deck(record.deck_toml, record.deck_name),
        variants=record.variants,
        players=record.players(),
        seed=seed,
        dealer=dealer_for(game_no, record.seats),
        moves=tuple(moves),
        start=start,
        covered=frozenset(
            step for step, (_, cover) in enumerate(archive.movers(table_id, game_no)) if cover
        ),
    )
