"""Lasting identities: a client's Ed25519 key, proved by signing the server's challenge
(`hello {key}` → `welcome {challenge}` → `prove {signature}`), and the names they own.

An identity is the hash of its key, so the store never needs the key itself. Seats hang on
it (a player who comes back is back in their seat, no token asked), and so does a name: on a
host a name belongs to the first identity that sat under it, until the host releases it or
its owner stays away NAME_KEPT_DAYS. Names are owned by their skeletons (protocol/text.py),
so a look-alike of an owned name is that name.
"""

from __future__ import annotations

import hashlib
import logging
import secrets
import time
from collections.abc import Callable

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from protocol.constants import CHALLENGE_BYTES, NAME_KEPT_DAYS, PROVE_CONTEXT
from protocol.errors import ProtocolError
from protocol.text import skeletons
from server.store.database import StoreError
from server.store.people import PeopleStore

log = logging.getLogger("gother.server")

KEPT = NAME_KEPT_DAYS * 86400.0  # seconds


def new_challenge() -> bytes:
    return secrets.token_bytes(CHALLENGE_BYTES)


def identity_of(key: bytes) -> str:
    return hashlib.sha256(key).hexdigest()[:32]  # 128 bits: no one finds another key's


def proves(key: bytes, challenge: bytes, signature: bytes) -> bool:
    """Whether `signature` is `key`'s over this challenge (with the protocol's context)."""
    try:
        Ed25519PublicKey.from_public_bytes(key).verify(signature, PROVE_CONTEXT + challenge)
    except (InvalidSignature, ValueError):
        return False
    return True


class Names:
    """Who owns which name on this host, kept in the store."""

    def __init__(self, people: PeopleStore, clock: Callable[[], float] = time.time) -> None:
        self.people = people
        self.clock = clock

    def check(self, name: str, identity: str | None) -> None:
        """Refuse `name` to anyone but its owner (an anonymous client too: it could be anyone)."""
        owner = self.owner(name)
        if owner is not None and owner != identity:
            raise ProtocolError(
                "name_taken",
                f"{name!r} belongs to another player on this server: choose another name",
            )

    def owner(self, name: str) -> str | None:
        since = self.clock() - KEPT
        owners = {who for who, seen in self.people.name_owners(skeletons(name)) if seen >= since}
        return next(iter(owners), None)

    def use(self, name: str, identity: str) -> None:
        """`identity` sits under `name`: it owns the name from now (it was free or its own)."""
        try:
            self.people.claim_name(skeletons(name), name, identity, self.clock())
        except StoreError as exc:  # the seat is taken all the same; the claim waits a use
            log.warning("cannot record who owns the name %r: %s", name, exc)

    def release(self, name: str) -> int:
        """The host gives `name` back (`gother serve --release-name`): how many keys freed."""
        return self.people.release_name(skeletons(name))
