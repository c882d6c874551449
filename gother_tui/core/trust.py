"""Which TLS certificates the client trusts for a wss:// server, like ssh's known_hosts.

In order: with --fingerprint, exactly that certificate; else a certificate pinned before
for that host and port, and no other (a changed one is refused with a warning); else, at
another process of the host (where `elsewhere` sends the client, over the connection it
trusted), the certificate pinned for the host's address: a pin is the host's certificate,
which each of its processes shows, not its port's; else one the system's CAs (or
--cafile's) vouch for, name and all; else the certificate is unknown, and the command line
shows its fingerprint and asks whether to pin it (gother_tui/cli/certificates.py). Pins
live in the client's state folder, one line each, "HOST:PORT FINGERPRINT", private to the
user.
"""

from __future__ import annotations

import logging
import os
import ssl
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from platformdirs import user_state_dir

log = logging.getLogger("gother.client")


def default_path() -> Path:
    return Path(user_state_dir("gother")) / "known_servers"


def server_of(url: str) -> str:
    """ "HOST:PORT" of a wss:// address, as pins are keyed."""
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    port = parts.port or (443 if parts.scheme == "wss" else 80)
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


class KnownServers:
    """The pinned certificates, by server."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or default_path()

    def get(self, server: str) -> str | None:
        return self._load().get(server)

    def pin(self, server: str, fingerprint: str) -> None:
        pins = {**self._load(), server: fingerprint}
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(".tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write("# gother: pinned TLS certificates (HOST:PORT FINGERPRINT)\n")
            out.writelines(f"{name} {value}\n" for name, value in sorted(pins.items()))
        os.replace(tmp, self.path)

    def _load(self) -> dict[str, str]:
        try:
            lines = self.path.read_text(encoding="utf-8").splitlines()
        except FileNotFoundError:
            return {}
        except (OSError, UnicodeDecodeError) as exc:
            log.warning("ignoring %s: %s", self.path, exc)
            return {}
        pins = {}
        for line in lines:
            fields = line.split()
            if len(fields) == 2 and not line.startswith("#"):
                pins[fields[0]] = fields[1]
        return pins


@dataclass(frozen=True)
class Trust:
    cafile: str | None = None  # CAs to verify with, instead of the system's
    pin: str | None = None  # --fingerprint: this certificate and no other
    known: KnownServers | None = None  # pins kept from earlier (None: none are)
    host: str | None = None  # the host's address: its pin holds at its other processes too

    @property
    def known_path(self) -> Path | None:
        return None if self.known is None else self.known.path

    def pinned(self, url: str) -> str | None:
        """The one certificate `url` may show, if one is pinned."""
        if self.pin is not None:
            return self.pin
        if self.known is None:
            return None
        home = self.home_of(url)
        return self.known.get(server_of(url) if home is None else home)

    def home_of(self, url: str) -> str | None:
        """The host's address ("HOST:PORT") whose pin `url` is held to, when `url` is another
        process of that host with no pin of its own (else None)."""
        if self.host is None or self.known is None or self.known.get(server_of(url)):
            return None
        home = server_of(self.host)
        return home if home != server_of(url) and self.known.get(home) else None

    def verifying(self) -> ssl.SSLContext:
        """A context that checks the chain and the name (the system's CAs or --cafile's;
        a certificate in --cafile is trusted by itself, without its issuer)."""
        context = ssl.create_default_context(cafile=self.cafile)
        if self.cafile is not None:
            context.verify_flags |= ssl.VERIFY_X509_PARTIAL_CHAIN
        return context


def pinning() -> ssl.SSLContext:
    """A context that checks nothing itself: the caller compares the fingerprint."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    return context
