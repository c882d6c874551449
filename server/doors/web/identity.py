"""Who a browser is at the web door: a random cookie, kept by the browser alone.

The door stores only the cookie's hash: it names the browser's own client state folder
(its seat tokens), as a key's fingerprint does at the SSH door, and, when the door has a
password, it is what the door remembers of a browser that gave it. (Guessing the
password is slowed per address by server/edge/attempts.py, as at the other doors.)
"""

from __future__ import annotations

import hmac
import re
from collections import OrderedDict
from pathlib import Path

from server.tokens import hash_secret, new_token

COOKIE = "gother"
COOKIE_SHAPE = re.compile(r"[A-Za-z0-9_-]{32}")  # what new_token() makes
AUTHORISED_KEPT = 4096  # browsers remembered as having given the password (oldest go first)


def cookie_of(value: str | None) -> str | None:
    """The cookie if it has the shape of one the door gives out, else None."""
    return value if value is not None and COOKIE_SHAPE.fullmatch(value) else None


def new_cookie() -> str:
    return new_token()


class Identities:
    """The browsers this door knows: their folders, and which of them gave the password."""

    def __init__(self, folder: Path, password: str | None) -> None:
        self.folder = folder  # data_dir/web-players
        self.password = password
        self._authorised: OrderedDict[str, None] = OrderedDict()  # cookie hashes

    def state_dir(self, cookie: str) -> Path:
        """This browser's client state folder (its seat tokens, its log), made 0700."""
        path = self.folder / hash_secret(cookie)[:32]
        path.mkdir(mode=0o700, parents=True, exist_ok=True)
        return path

    def carry(self, old: str, new: str) -> None:
        """A browser logged in again under a new cookie: its old cookie's state folder (its
        seats), if it has one, is the new cookie's, and the old cookie is nothing now."""
        before = self.folder / hash_secret(old)[:32]
        if before.is_dir():
            before.rename(self.folder / hash_secret(new)[:32])
        self._authorised.pop(hash_secret(old), None)

    def admitted(self, cookie: str | None) -> bool:
        """May this browser have a session? With no password, any browser may."""
        if self.password is None:
            return cookie is not None
        return cookie is not None and hash_secret(cookie) in self._authorised

    def log_in(self, cookie: str, password: str) -> bool:
        """Remember `cookie` as admitted if `password` is the door's."""
        if self.password is None:
            return True
        if not hmac.compare_digest(password.encode(), self.password.encode()):
            return False
        digest = hash_secret(cookie)
        self._authorised[digest] = None
        self._authorised.move_to_end(digest)
        while len(self._authorised) > AUTHORISED_KEPT:
            self._authorised.popitem(last=False)  # that browser types the password again
        return True
