"""Ratings and standings of a host's players, derived from its archive of finished games:
who a seat's player is (`identity`), how a game ended (`outcome`), the openskill rating
(`skill`), each player's record and the standings table (`standings`), and reading all of
it back from the store (`archive`)."""
