"""The moves a player makes, as typed values tagged by `kind` (docs/protocol.md, "Moves").

One type for every end: a client composes one and sends it in a `move` request, the engine
verifies and applies it for the seat that sent it, the store keeps it, a `hint` or a review
names one. Each field's type says what a received move must hold (msgspec `Meta`,
protocol/fields.py); `check` holds what spans fields. Whether a move is legal now is the
engine's business, never the protocol's.

Frozen msgspec Structs, not dataclasses: a search makes one per decision it tries, and a
frozen dataclass costs several times as much to build.
"""

from __future__ import annotations

from typing import Annotated, Literal

from msgspec import Meta

from protocol.checks import Absent, bad
from protocol.constants import MAX_SEATS
from protocol.fields import CardId, Seat
from protocol.view import Wire


class BaseMove(Wire, tag_field="kind", frozen=True, forbid_unknown_fields=True):
    """What every move is. Its `kind` (the tag) says which."""

    def check(self, where: str) -> None:
        """What spans fields (none but a draw's): raise ProtocolError naming the fault."""

    @property
    def kind(self) -> str:
        return str(self.__struct_config__.tag)


class DiscardFate(BaseMove, tag="discard_fate", frozen=True):
    """R10: one card of one's own Fate pile to the discard pile."""

    card: CardId


class Distribute(BaseMove, tag="distribute", frozen=True):
    """R11: the whole placement step at once, as (recipient seat, card) pairs."""

    give: Annotated[tuple[tuple[Seat, CardId], ...], Meta(min_length=1, max_length=MAX_SEATS)]


class Draw(BaseMove, tag="draw", frozen=True):
    """R12: one card, from the top of the draw pile (`deck`) or any card of the discard
    pile (`discard`, naming the card)."""

    source: Literal["deck", "discard"]
    card: Absent[CardId] = None  # only from the discard pile

    def check(self, where: str) -> None:
        if self.source == "deck" and self.card is not None:
            raise bad(where, "unknown field 'card'")  # the draw pile's top card is unseen
        if self.source == "discard" and self.card is None:
            raise bad(f"{where}.card", "missing")


class DiscardHand(BaseMove, tag="discard_hand", frozen=True):
    """R13: one card from an over-full hand to the discard pile."""

    card: CardId


Move = DiscardFate | Distribute | Draw | DiscardHand
