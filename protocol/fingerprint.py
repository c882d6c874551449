"""A TLS certificate's fingerprint: what `gother serve` prints, what `gother join` shows and
pins, and what a host can check with `openssl x509 -noout -fingerprint -sha256 -in FILE`.
"SHA256:" and the SHA-256 of the certificate (DER) as colon-separated hex pairs."""

from __future__ import annotations

import hashlib
import re

PREFIX = "SHA256:"
_HEX = re.compile(r"[0-9A-F]{64}")


def fingerprint(der: bytes) -> str:
    digest = hashlib.sha256(der).hexdigest().upper()
    return PREFIX + ":".join(digest[i : i + 2] for i in range(0, 64, 2))


def parse_fingerprint(text: str) -> str | None:
    """A fingerprint as a person may paste it (with or without "SHA256:", openssl's
    "sha256 Fingerprint=", colons, spaces, any case), in the form above; None if it is
    not one."""
    bare = text.strip().upper()
    for prefix in ("SHA256 FINGERPRINT=", PREFIX):
        bare = bare.removeprefix(prefix)
    bare = re.sub(r"[\s:]", "", bare)
    if not _HEX.fullmatch(bare):
        return None
    return PREFIX + ":".join(bare[i : i + 2] for i in range(0, 64, 2))
