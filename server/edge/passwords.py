"""Passwords at the edge: the server's, the tournaments' and each table's, with the wrong
guesses counted per address and per secret (server/edge/attempts.py). The hashes themselves
are the tables' (server/tables/passwords.py)."""

from __future__ import annotations

import math
from collections.abc import Callable

from protocol import ProtocolError
from server.edge.attempts import Attempts
from server.edge.connection import Connection
from server.tables.passwords import check_password
from server.tables.table import Table

# the secrets whose guesses are counted apart, beside each table's
SERVER, TOURNAMENTS = "server", "tournaments"


class Passwords:
    """Whether a connection gave the right password, and how long an address that guessed
    wrong too often must wait."""

    def __init__(self, guesses: Attempts) -> None:
        self.guesses = guesses  # wrong passwords, per address and per secret

    def check(self, conn: Connection, secret: str, right: Callable[[], bool], wrong: str) -> None:
        """Go on if `right()` (the password for `secret`), else refuse with `wrong`. An
        address that guessed wrong too often must wait first (its try is refused unread), and
        a connection that gave too many wrong passwords is closed once told why (in dispatch)."""
        address, guesses = conn.address or "?", self.guesses
        wait = guesses.wait(address, secret)
        if wait == 0 and right():
            guesses.succeeded(address, secret)
            return
        conn.wrong_passwords += 1
        if wait > 0:
            raise ProtocolError(
                "too_many_attempts",
                f"too many wrong passwords from your address: try again in {math.ceil(wait)} s",
            )
        guesses.failed(address, secret)
        wait = guesses.wait(address, secret)  # a player told to wait does not spend a try in vain
        if wait:
            wrong += f": try again in {math.ceil(wait)} s"
        raise ProtocolError("wrong_password", wrong)

    def table(self, conn: Connection, table: Table, given: str | None) -> None:
        """A live table's password, if it has one."""
        if table.password_hash is not None:
            opens = table.password_opens
            self.check(conn, table_secret(table.id), lambda: opens(given), wrong_for_table(given))

    def kept_table(
        self, conn: Connection, table_id: str, password_hash: str, given: str | None
    ) -> None:
        """A table's password as the store keeps it (a table that may be archived)."""
        self.check(
            conn,
            table_secret(table_id),
            lambda: check_password(given or "", password_hash)[0],
            wrong_for_table(given),
        )


def table_secret(table_id: str) -> str:
    """A table's password, as the guesses count it: each table's its own."""
    return f"table {table_id}"


def wrong_for_table(given: str | None) -> str:
    return "wrong password for this table" if given else "this table needs a password"
