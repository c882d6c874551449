"""Telling a table's people: every `state`, `chat` and `closed` frame is made and sent here
(the replies to a request, such as `joined`, are the handler's; a broadcast's copy to the
connection whose request caused it carries that request's `rid`).

After a change each connected seat and each spectator gets a `state` with the table's new
`seq`: the lobby facts (names, presence, clocks) are computed once for the change, each
seat's view is built once, and all spectators share one. Like a spectator in the websockets
tutorial, a spectator is just one more member of the broadcast set. The frames are encoded
here, once each, each whole: msgspec writes a view in a few µs, less than it took to encode
the parts the views of a change share once and splice them in (issue 34 §5).
"""

from __future__ import annotations

import msgspec

from protocol import encode, server_messages
from server.game import SPECTATOR, Viewer, story
from server.store.tables import ChatLine
from server.tables.table import CHAT_REPLAY_BYTES, Peer, Table

STORY_PART = 500  # events a `story` frame holds: ~15 KB, well under MAX_FRAME


def publish(table: Table, mover: Peer | None = None, rid: int | None = None) -> None:
    """Send everyone at `table` its newest state. `mover` is the connection whose request
    made the change: its `state` is the reply to that request and carries its `rid`."""
    facts = table.lobby_facts()
    for seat, holder in enumerate(table.seats):
        if holder is not None and holder.peer is not None:
            answer = rid if holder.peer is mover else None
            view = table.wire_view(seat, facts)
            holder.peer.send(encode(server_messages.State(seq=table.seq, view=view, rid=answer)))
    if table.spectators:
        view = table.wire_view(SPECTATOR, facts)
        frame = encode(server_messages.State(seq=table.seq, view=view))
        for peer in table.spectators:
            peer.send(frame)


def show(table: Table, peer: Peer) -> None:
    """The table as it is now, to a new spectator."""
    peer.send(server_messages.State(seq=table.seq, view=table.wire_view(SPECTATOR)))


def tell_story(table: Table, peer: Peer, viewer: Viewer) -> None:
    """The game's whole log so far, as `viewer` sees it, to a newcomer or a returning seat,
    in parts, before its first `state`: bounded by the round cap (H1) and the outbox."""
    game = table.game
    if game is None:
        return
    for start in range(0, len(game.events), STORY_PART):
        log = story(game, viewer, start, start + STORY_PART)
        peer.send(server_messages.Story(table=table.id, game=table.game_no, start=start, log=log))


def replay_chat(table: Table, peer: Peer) -> None:
    """The newest chat lines kept at the table, up to CHAT_REPLAY_BYTES of text, to a
    newcomer: what a join or a watch costs the server is bounded in bytes."""
    lines: list[ChatLine] = []
    size = 0
    for line in reversed(table.chat):
        size += len(line.sender.encode()) + len(line.text.encode())
        if size > CHAT_REPLAY_BYTES:
            break
        lines.append(line)
    for line in reversed(lines):
        peer.send(_chat(table, line))


def close_table(
    table: Table, reason: str, closer: Peer | None = None, rid: int | None = None
) -> list[Peer]:
    """Tell everyone at a table that is gone; returns them (they are at no table now).
    `closer`'s copy is the reply to its request `rid` (the deciding `end` vote)."""
    listeners = table.listeners()
    message = server_messages.Closed(table=table.id, reason=reason)
    for peer in listeners:
        peer.send(_answering(message, rid) if peer is closer else message)
    table.spectators.clear()
    for holder in table.seats:
        if holder is not None:
            holder.peer = None
    return listeners


def chat(table: Table, speaker: Peer, line: ChatLine, rid: int | None = None) -> None:
    """A chat line just said, to everyone at the table; the speaker's copy is the reply
    to its request `rid`."""
    message = _chat(table, line)
    for listener in table.listeners():
        listener.send(_answering(message, rid) if listener is speaker else message)


def _chat(table: Table, line: ChatLine) -> server_messages.Chat:
    return server_messages.Chat(
        sender=line.sender, text=line.text, table=table.id, watching=line.watching
    )


def _answering(
    message: server_messages.Chat | server_messages.Closed, rid: int | None
) -> server_messages.Chat | server_messages.Closed:
    return message if rid is None else msgspec.structs.replace(message, rid=rid)
