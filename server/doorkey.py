"""The doors speak for their players: a door's signed word of a player's real address.

Every door client reaches the game server from the door's machine (127.0.0.1 for a door on
the same host), so on its own the server would see every door player as one address. The
server makes a door key when it starts and hands it, in memory, to the doors it starts
(`gother serve --ssh/--web`): it is never written anywhere. For each session a door signs a
claim, `ADDRESS|EXPIRES|MAC` (HMAC-SHA256 with the door key over the address and the Unix
time it expires), and hands it to the session's client through a pipe, like the server's
password; the client sends it in the opening handshake of each connection (the
`Gother-Door` header), so the address is the player's before any cap counts the
connection (a local process holding the door machine's places before hello cannot keep
door players out). The server takes the address only from a claim it can verify: a
forged, altered or expired one is refused `bad_door` at `hello`.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import secrets
import time
from collections.abc import Callable

from protocol import ProtocolError

# Seconds a claim holds. The client sends it again at every reconnect of its session, so it
# lasts as long as a session may (the SSH door's and the web door's outlive a day rarely).
CLAIM_LIFE = 24 * 3600.0


class DoorKey:
    def __init__(self, secret: bytes | None = None, clock: Callable[[], float] = time.time) -> None:
        self._secret = secret if secret is not None else secrets.token_bytes(32)
        self.clock = clock

    def claim(self, address: str, life: float = CLAIM_LIFE) -> str:
        """The door's word that its player comes from `address` (an IP address), for `life`
        seconds."""
        address = str(ipaddress.ip_address(address))  # ValueError: the door must know it
        expires = int(self.clock() + life)
        return f"{address}|{expires}|{self._mac(address, expires)}"

    def verify(self, claim: str) -> str:
        """The address a claim vouches for; ProtocolError `bad_door` unless this server's
        doors signed it and it has not expired."""
        address, _, rest = claim.partition("|")
        stamp, _, mac = rest.partition("|")
        # compare_digest takes ASCII text only; and "²".isdigit() is true, but not int's
        signed = claim.isascii() and stamp.isdigit() and len(stamp) < 20
        if not signed or not hmac.compare_digest(mac, self._mac(address, int(stamp))):
            raise ProtocolError(
                "bad_door", "only this server's own doors may say where a player is"
            )
        if int(stamp) <= self.clock():
            raise ProtocolError("bad_door", "the door's word has expired: start a new session")
        return address

    def _mac(self, address: str, expires: int) -> str:
        message = f"{address}|{expires}".encode()
        return hmac.new(self._secret, message, hashlib.sha256).hexdigest()
