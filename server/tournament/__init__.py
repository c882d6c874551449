"""Tournaments: the seating of a round (`pairing`), the standings (`standings`), and the
director that runs a tournament night on the server's tables (`director`)."""
