"""The multiplayer rating: openskill's Plackett-Luce model over every finished game.

Each game is one ranking of its seats (`Outcome.places`; a shared win is a tie). Three things
are ours, not openskill's:
- the easy, normal and hard bots are anchors: they take part at a fixed rating and are never
  updated, so a club's numbers mean "about as good as the normal bot", not only "better than
  Ann";
- a seat a cover bot played in part moves its player's rating by the share of the turns the
  player played (openskill's `weights=` weighs a team's members against each other, which
  cannot say "this seat was only half theirs"): the mu and sigma changes are scaled here;
- a rating is provisional until its player has PROVISIONAL_GAMES rated games;
- it is shown on one scale, chess's (`shown`, `spread`): 1500 a new player's and the normal
  bot's, 30 points a unit of mu, so a 200-point gap puts the higher player above the lower
  about two games in three (Plackett-Luce's odds exp(gap / c), c about 9 at three to five
  seats); the standings rank by it, so the numbers read down the table in order.

Ratings are derived data: rebuilt from the archive's outcomes at start, then updated as games
end, in the order of `Outcome.key`, so both ways give the same numbers.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from openskill.models import PlackettLuce

from protocol.constants import RATING_START, RATING_STEP
from server.tables.outcome import Outcome
from server.tables.players import PlayerId

MODEL = PlackettLuce()  # openskill's defaults: a new player is mu 25, sigma 25/3
PROVISIONAL_GAMES = 10
ANCHOR_SIGMA = 1.0  # a reference is known well: it moves its opponents, not itself
# The reference bots' fixed mu. Plackett-Luce puts a mu gap d at odds exp(d / c), c about
# 9 at a table of four: normal beats three easy 38.8 % of games (docs/balance.md, 1,000
# games: 1.9 times easy's odds, d about 6) and hard three normal 47.5-62.5 % (40 and 24
# games: 2.7-5 times normal's, d 9-14), so hard sits 12 above normal, not 5.
ANCHORS = {
    PlayerId("bot:easy"): 20.0,
    PlayerId("bot:normal"): 25.0,
    PlayerId("bot:hard"): 37.0,
}


@dataclass(frozen=True, slots=True)
class Rating:
    mu: float
    sigma: float
    games: int = 0  # games credited to its player (SeatResult.credited), as in their record
    anchor: bool = False

    @property
    def provisional(self) -> bool:
        return not self.anchor and self.games < PROVISIONAL_GAMES

    @property
    def shown(self) -> int:
        """The rating on the scale people read (a new player's is RATING_START)."""
        return round(RATING_START + RATING_STEP * (self.mu - MODEL.mu))

    @property
    def spread(self) -> int:
        """How far off `shown` may still be, either way: two sigmas on the same scale."""
        return round(2 * RATING_STEP * self.sigma)


NEW = Rating(MODEL.mu, MODEL.sigma)


class Ratings:
    """Every identity's rating; an identity never seen has the new player's rating."""

    def __init__(self) -> None:
        self.ratings: dict[PlayerId, Rating] = {}

    @classmethod
    def rebuild(cls, outcomes: Iterable[Outcome]) -> Ratings:
        ratings = cls()
        for outcome in sorted(outcomes, key=lambda o: o.key):
            ratings.update(outcome)
        return ratings

    def __getitem__(self, player: PlayerId) -> Rating:
        if player in ANCHORS:
            return Rating(ANCHORS[player], ANCHOR_SIGMA, anchor=True)
        return self.ratings.get(player, NEW)

    def update(self, outcome: Outcome, places: tuple[int, ...] | None = None) -> None:
        """Rate one game (whose `places` a caller may have worked out already): every
        seat's change is computed from the ratings before it."""
        before = [self[seat.player] for seat in outcome.seats]
        teams = [[MODEL.rating(r.mu, r.sigma)] for r in before]
        after = MODEL.rate(teams, ranks=list(places or outcome.places()))
        for seat, old, [new] in zip(outcome.seats, before, after, strict=True):
            if old.anchor or seat.share <= 0:
                continue
            current = self[seat.player]  # the same player twice at a table: both count
            self.ratings[seat.player] = Rating(
                current.mu + seat.share * (new.mu - old.mu),
                current.sigma + seat.share * (new.sigma - old.sigma),
                current.games + seat.credited,
            )
