"""A table's turn clock: each seat's bank and the decision the game waits on, as one value.

The game waits on one decision at a time. It began at `since`; a pause stops it from
running (`paused_at`); a player may be warned that a bot covers them soon (`warned`), and
once their clock or patience ran out a bot finishes that turn for them (`timed_out`). At a
table with a clock (`ClockRule`) each seat has a bank: the seconds it had left as the
current decision began, which runs while the game waits on that seat and earns the rule's
increment with each of its moves. A `TurnClock` is frozen: each change is a new value
the table keeps, and each question a pure function of the value, the table's rule and the
time `now` (the table's `Settings.clock`). Who is away, and for how long, is the table's
(presence), not the clock's.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from protocol.view import ClockRule


@dataclass(frozen=True, slots=True)
class TurnClock:
    banks: tuple[float, ...]  # clock seconds each seat had left as the current decision began
    since: float = 0.0  # when the current decision began
    paused_at: float | None = None  # when every voter paused the game
    warned: int | None = None  # the seat told that a bot covers it soon (this decision)
    timed_out: int | None = None  # the seat whose clock or patience ran out: a bot finishes

    @classmethod
    def dealt(cls, rule: ClockRule | None, seats: int, now: float) -> TurnClock:
        """A new game's: every bank full, the first decision begun now."""
        return cls((rule.initial if rule else 0.0,) * seats, since=now)

    def thinking(self, now: float) -> float:
        """Seconds the game has waited on its current decision (a pause does not count)."""
        return (self.paused_at if self.paused_at is not None else now) - self.since

    def bank_left(self, seat: int, acting: int | None, now: float) -> float:
        """Seconds left on `seat`'s clock: its bank runs while the game waits on it (`acting`)."""
        spent = self.thinking(now) if acting == seat else 0.0
        return max(0.0, self.banks[seat] - spent)

    def patience(self, seat: int, rule: ClockRule | None, idle: float) -> tuple[float, bool]:
        """How long a present player may think, and whether it is their clock's bank (not
        the table's patience, `idle`) that runs out first."""
        bank = self.banks[seat]
        if rule is not None and bank <= idle:
            return bank, True
        return idle, False

    def cover_warning(
        self, acting: int | None, rule: ClockRule | None, idle: float, now: float
    ) -> tuple[int, float] | None:
        """(seat, seconds left) once the acting player was warned that a bot covers them soon."""
        seat = self.warned
        if seat is None or acting != seat or self.paused_at is not None or self.timed_out == seat:
            return None
        patience, _ = self.patience(seat, rule, idle)
        return seat, round(max(0.0, self.since + patience - now), 1)

    def bank_after(
        self, seat: int, acting: int | None, rule: ClockRule | None, now: float
    ) -> float | None:
        """`seat`'s bank after its move (None: no clock to keep)."""
        if rule is None:
            return None
        return self.bank_left(seat, acting, now) + rule.increment

    def moved(self, seat: int, bank: float | None, now: float) -> TurnClock:
        """`seat` moved, with `bank` left (None: no clock kept): the next decision begins."""
        banks = self.banks if bank is None else _with(self.banks, seat, bank)
        return replace(self, banks=banks, since=now, warned=None)

    def begun(self, now: float) -> TurnClock:
        """The current decision begins again now (the game was restored, or the table
        reopened: nobody could act meanwhile)."""
        return replace(self, since=now)

    def paused(self, acting: int, charged: bool, now: float) -> TurnClock:
        """Paused now: the time the acting seat thought so far is taken off its bank first
        (when `charged`: a person's seat at a table with a clock)."""
        banks = self.banks
        if charged:
            banks = _with(banks, acting, self.bank_left(acting, acting, now))
        return replace(self, banks=banks, since=now, paused_at=now)

    def gone_on(self, now: float) -> TurnClock:
        """The pause ended: the clock and the cover start where they were."""
        return replace(self, since=now, paused_at=None, warned=None)

    def warn(self, seat: int) -> TurnClock:
        return replace(self, warned=seat)

    def time_out(self, seat: int | None) -> TurnClock:
        """`seat`'s clock or patience ran out (None: that turn is done)."""
        return replace(self, timed_out=seat)


def _with(banks: tuple[float, ...], seat: int, bank: float) -> tuple[float, ...]:
    return (*banks[:seat], bank, *banks[seat + 1 :])
