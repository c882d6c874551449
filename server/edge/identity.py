"""Lasting identities: a client's Ed25519 key, proved by signing the server's challenge
(`hello {key}` → `welcome {challenge}` → `prove {signature}`), and the names they own.

An identity is the hash of its key, so the store never needs the key itself. Seats hang on
it (a player who comes back is back in their seat, no token asked), and so does a name: on a
host a name belongs to the first identity that played a game under it to its end (at least
half of its seat's turns its own), until the host releases it or its owner plays no game
under it for NAME_KEPT_DAYS. Names are owned by their skeletons (protocol/text.py), so a
look-alike of an owned name is that name.

Owning costs something, so one address cannot squat on the names of a host: besides the
game, an address (an IPv6 /64) may come to own `NameRules.burst` names, then one more every
`NameRules.every` seconds (counted since the server started). Identities are free to make;
games and addresses are not. A player whose address may own no more plays all the same,
under a name nobody owns yet.
"""

from __future__ import annotations

import hashlib
import logging
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from protocol.constants import CHALLENGE_BYTES, NAME_KEPT_DAYS, PROVE_CONTEXT
from protocol.errors import ProtocolError
from protocol.text import skeletons
from server.edge.limits import address_key
from server.ratelimit import Buckets
from server.store.database import StoreError
from server.store.people import PeopleStore

log = logging.getLogger("gother.server")

KEPT = NAME_KEPT_DAYS * 86400.0  # seconds
PLAYED = 0.5  # the share of its seat's turns a player must have played to own its name
SEEN_EVERY = 86400.0  # seconds between two writes that an owner still uses its name


@dataclass(frozen=True)
class NameRules:
    """How many names one address may come to own."""

    burst: int = 5  # at once: a household, a few friends behind one router
    every: float = 4 * 3600.0  # seconds for each one more: 300 names take 50 days
    max_addresses: int = 10_000  # remembered, the stalest forgotten first


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

    def __init__(
        self,
        people: PeopleStore,
        clock: Callable[[], float] = time.time,
        rules: NameRules = NameRules(),
    ) -> None:
        self.people = people
        self.clock = clock
        self.rules = rules
        self._owning = Buckets(1.0 / rules.every, rules.burst, rules.max_addresses, clock)

    def check(self, name: str, identity: str | None) -> None:
        """Refuse `name` to anyone but its owner (an anonymous client too: it could be anyone)."""
        owner = self.owner(name)
        if owner is not None and owner != identity:
            raise ProtocolError(
                "name_taken",
                f"{name!r} belongs to another player on this server: choose another name",
            )

    def owner(self, name: str) -> str | None:
        return next(iter(self._owners(name)), None)

    def _owners(self, name: str) -> dict[str, float]:
        """Who owns `name` now (one identity, or none), and when they last used it."""
        since = self.clock() - KEPT
        return {
            who: seen for who, seen in self.people.name_owners(skeletons(name)) if seen >= since
        }

    def played(self, name: str, identity: str, address: str, share: float) -> None:
        """`identity` played a game to its end under `name` from `address`, `share` of its
        seat's turns itself: it owns the name from now, if the name is its own already, or
        free and its address may own one more. (Told again of the same game, it changes
        nothing.)"""
        if share < PLAYED:
            return
        owners, now = self._owners(name), self.clock()
        if owners and identity not in owners:
            return  # another identity played it to an end first
        if identity in owners and now - owners[identity] < SEEN_EVERY:
            return  # its own, and recently used: nothing to write
        if not owners and not self._may_own(address):
            log.info("name %r not owned: %s owns its share of names for now", name, address)
            return
        try:
            self.people.claim_name(skeletons(name), name, identity, now)
        except StoreError as exc:  # the game counts all the same; its next game claims it
            log.warning("cannot record who owns the name %r: %s", name, exc)

    def _may_own(self, address: str) -> bool:
        """Whether `address` may come to own one more name (and count it)."""
        return self._owning.allow(address_key(address))

    def release(self, name: str) -> int:
        """The host gives `name` back (`gother serve --release-name`): how many keys freed."""
        return self.people.release_name(skeletons(name))
