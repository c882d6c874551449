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

import fcntl
import hashlib
import hmac
import ipaddress
import secrets
import time
from collections.abc import Callable
from pathlib import Path

from protocol import ProtocolError
from server.files import private_file

# Seconds a claim holds. The client sends it again at every reconnect of its session, so it
# lasts as long as a session may (the SSH door's and the web door's outlive a day rarely).
CLAIM_LIFE = 24 * 3600.0


KEY_BYTES = 32  # as long as the MAC: no shorter key can be guessed sooner than a claim


class DoorKey:
    def __init__(self, secret: bytes | None = None, clock: Callable[[], float] = time.time) -> None:
        self._secret = secret if secret is not None else secrets.token_bytes(KEY_BYTES)
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

    @property
    def text(self) -> str:
        """The key as a door key file holds it (one line of hex)."""
        return self._secret.hex()

    @classmethod
    def of_text(cls, text: str) -> DoorKey:
        """The key a door key file holds; ValueError when it holds none."""
        try:
            secret = bytes.fromhex(text.strip())
        except ValueError:
            secret = b""
        if len(secret) < KEY_BYTES:
            raise ValueError(f"not a door key (a line of {2 * KEY_BYTES} hex digits)")
        return cls(secret)

    def _mac(self, address: str, expires: int) -> str:
        message = f"{address}|{expires}".encode()
        return hmac.new(self._secret, message, hashlib.sha256).hexdigest()


def kept_key(path: Path) -> DoorKey:
    """The door key in `path`, made (0600) on the first run: the server's, shared with its
    doors on other machines. A file that holds something else is an OSError, as a bad
    certificate file is (ssl.SSLError): the host is told, and the server does not start.
    Read and made under a lock: the processes of one host, started at once with a new file,
    make one key among them, not one each."""
    private_file(path)
    with path.open("r+") as kept:
        fcntl.flock(kept, fcntl.LOCK_EX)  # let go as the file closes
        text = kept.read()
        if not text.strip():
            key = DoorKey()
            kept.write(key.text + "\n")
            return key
    try:
        return DoorKey.of_text(text)
    except ValueError as exc:
        raise OSError(f"{path}: {exc}") from None
