"""`gother export`: a finished (or running) game as a self-contained msgpack record.

The record holds everything needed to replay the game with the engine: the deck, the
variants, the seed and every move. It reveals the seed and so every hidden card: export is
for the host, from the host's database.
"""

from __future__ import annotations

from pathlib import Path

import msgspec

from protocol.record import RECORD_VERSION, GameRecord, RecordTable
from protocol.view import SeatInfo, TableInfo, View
from server.game import (
    REFEREE,
    Deck,
    Game,
    Played,
    Start,
    Viewer,
    dealer_for,
    parse_deck,
    view,
)
from server.store.database import StoreUnavailable
from server.store.sqlite import SqliteStore
from server.store.tables import GameArchive, TableRecord


class ExportError(LookupError):
    pass


def game_record(
    archive: GameArchive, table_id: str, game_no: int | None = None, seat: int | None = None
) -> GameRecord:
    """The record of one game of a table, live or archived (its current game by default);
    with `seat`, also `seen`: that seat's own view after the deal and after every move, for a
    replay that shows the game as that seat saw it (a client never runs the engine)."""
    return game_records(archive, table_id, game_no, (seat,))[seat]


def game_records(
    archive: GameArchive,
    table_id: str,
    game_no: int | None = None,
    seats: tuple[int | None, ...] = (None,),
    every_seat: bool = False,
) -> dict[int | None, GameRecord]:
    """The records of one game for each of `seats` (None: the record without `seen`), and
    with `every_seat` the plain one and each seat's of the table too, made from one replay:
    the referee's views are the same in every one."""
    if not archive.has_table(table_id):
        raise ExportError(f"no table {table_id!r} in this database")
    try:
        record = archive.table(table_id)
        game_no = record.game_no if game_no is None else game_no
        seed, moves = archive.game(table_id, game_no)
        start = archive.start(table_id, game_no)
    except (ValueError, TypeError, KeyError) as exc:
        raise ExportError(f"table {table_id!r} cannot be read: {exc}") from None
    if seed is None:
        raise ExportError(f"table {table_id!r} has no game {game_no}")
    if every_seat:
        seats = tuple(dict.fromkeys((*seats, None, *range(record.seats))))
    for seat in seats:
        if seat is not None and not 0 <= seat < record.seats:
            raise ExportError(f"table {table_id!r} has only {record.seats} seats")
    deck = parse_deck(record.deck_toml, record.deck_name)
    players = record.players()
    viewers = (REFEREE, *(seat for seat in seats if seat is not None))
    views = replay_views(record, game_no, deck, seed, moves, players, viewers, start)
    ended = archive.ended(table_id, game_no)
    return {
        seat: GameRecord(
            record=RECORD_VERSION,
            table=RecordTable(record.id, record.name, record.deck_name),
            variants=record.variants,
            players=players,
            cards=deck.catalogue(),
            seed=seed,
            game=game_no,
            moves=tuple(moves),
            chat=tuple((line.sender, line.text) for line in record.chat),
            ended=ended,
            views=views[REFEREE],
            start=start,
            seat=seat,
            seen=None if seat is None else views[seat],
        )
        for seat in seats
    }


def replay_views(
    record: TableRecord,
    game_no: int,
    deck: Deck,
    seed: int,
    moves: list[Played],
    players: tuple[str, ...],
    viewers: tuple[Viewer, ...] = (REFEREE,),
    start: Start | None = None,
) -> dict[Viewer, tuple[View, ...]]:
    """Each viewer's view after the deal and after every move (the referee's sees every
    card): a replay viewer steps through these without knowing any rule (the client never
    runs the engine). A seat's are the views it was sent live, but for the lobby facts."""
    dealer = dealer_for(game_no, record.seats)
    game = Game.new(deck, record.seats, seed, record.variants, dealer, start)
    table = TableInfo(
        variants=record.variants,
        id=record.id,
        name=record.name,
        deck=record.deck_name,
        seats=record.seats,
        game=game_no,
        spectators=0,
        password=record.password_hash is not None,
    )
    seats = tuple(
        SeatInfo(i, name, bot=False, connected=True, covered=False, rematch=False)
        for i, name in enumerate(players)
    )
    views: dict[Viewer, list[View]] = {viewer: [] for viewer in viewers}

    def look() -> None:
        for viewer, seen in views.items():
            seen.append(view(game, viewer, table=table, seats=seats))

    look()
    for seat, move in moves:
        game.apply(seat, move)
        look()
    return {viewer: tuple(seen) for viewer, seen in views.items()}


def export_game(
    db: str, table_id: str, path: str | Path, game_no: int | None = None, seat: int | None = None
) -> int:
    """Write the record (with `seat`'s own views, if given); returns the number of moves
    written."""
    if not Path(db).is_file():
        raise ExportError(f"no database at {db}")
    try:
        store = SqliteStore(db, readonly=True)
        try:
            record = game_record(store.tables, table_id, game_no, seat)
        finally:
            store.close()
    except StoreUnavailable as exc:
        raise ExportError(f"not a readable game database: {exc}") from None
    try:
        Path(path).write_bytes(msgspec.msgpack.encode(record))
    except OSError as exc:
        raise ExportError(f"cannot write {path}: {exc.strerror or exc}") from None
    return len(record.moves)
