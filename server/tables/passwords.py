"""Table passwords at rest: salted scrypt, slow on purpose. Players reuse passwords, and a
copied database must not give them away by a lookup table or a fast search.

A database of an older server holds unsalted SHA-256 hashes: they still open their tables,
and `check` hands back a salted hash to keep in their place once the right password is
given (the password itself is needed to make it, so it cannot be done before).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets

from server.tokens import matches

# scrypt's classic interactive cost: 16 MiB and some tens of ms a check. A check only
# happens when the address may guess (server/edge/attempts.py), so that stays rare.
N, R, P = 2**14, 8, 1
SALT_BYTES, KEY_BYTES = 16, 32
MAX_MEMORY = 64 * 1024 * 1024  # room for the 16 MiB scrypt needs (OpenSSL's default is tight)
SCHEME = "scrypt"


def hash_password(password: str) -> str:
    """ "scrypt$N$R$P$salt$key": the cost travels with the hash, so it can be raised later."""
    salt = secrets.token_bytes(SALT_BYTES)
    key = _scrypt(password, salt, N, R, P, KEY_BYTES)
    return "$".join((SCHEME, str(N), str(R), str(P), _b64(salt), _b64(key)))


def check_password(password: str, stored: str) -> tuple[bool, str | None]:
    """Whether `password` is the one `stored` was made from; and, when it is and `stored`
    is weaker than a new hash (unsalted, or a lower cost), the hash to store instead."""
    scheme, *fields = stored.split("$")
    if scheme != SCHEME:  # an older server's unsalted SHA-256
        ok = matches(password, stored)
        return ok, hash_password(password) if ok else None
    n, r, p, salt, key = fields
    expected = base64.b64decode(key)
    got = _scrypt(password, base64.b64decode(salt), int(n), int(r), int(p), len(expected))
    ok = hmac.compare_digest(got, expected)
    weaker = int(n) * int(r) * int(p) < N * R * P
    return ok, hash_password(password) if ok and weaker else None


def _scrypt(password: str, salt: bytes, n: int, r: int, p: int, length: int) -> bytes:
    return hashlib.scrypt(
        password.encode(), salt=salt, n=n, r=r, p=p, maxmem=MAX_MEMORY, dklen=length
    )


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()
