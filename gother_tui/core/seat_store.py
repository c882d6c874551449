"""Seat tokens kept on disk, so `gother join ws://HOST:PORT` after a crash or a closed
terminal takes back the same seat (`resume {token}`).

Tokens are secrets: the file is private to the user (0600) and tokens are never shown.
Keyed by server URL, then table id; the most recently saved seat of a server is the one a
bare `gother join URL` resumes.
"""

from __future__ import annotations

import json
import logging
import os
import time
from pathlib import Path
from typing import Any

from platformdirs import user_state_dir

from gother_tui.core.identity import ClientKey

log = logging.getLogger("gother.client")

# The seat file as JSON holds it: server url -> table id -> {"token", "saved", "name", "at"}
# ("at": the URL of the host's process holding the table, when not the server's own). A
# map, not a type: it is read from the user's disk, so each entry is checked as it is used.
SeatFile = dict[str, dict[str, Any]]


def default_path() -> Path:
    return Path(user_state_dir("gother")) / "seats.json"


class SeatStore:
    def __init__(self, path: Path | None = None) -> None:
        self.path = path or default_path()

    def key(self, name: str | None = None) -> ClientKey:
        """The identity `name` plays under, kept in the same folder as the seats."""
        return ClientKey.kept_in(self.path.parent, name)

    def find(
        self, url: str, table: str | None = None, name: str | None = None
    ) -> tuple[str, str] | None:
        """(table, token) to resume at this server: for `table`, or the latest seat; only
        seats saved under `name` when a name is given."""
        seats = {
            t: entry
            for t, entry in self._load().get(url, {}).items()
            if isinstance(entry, dict)
            and "token" in entry
            and (name is None or entry.get("name") in (None, name))
            and (table is None or t == table)
        }
        if not seats:
            return None
        latest = max(seats, key=lambda t: seats[t].get("saved", 0))
        return latest, str(seats[latest]["token"])

    def name(self, url: str) -> str | None:
        """The name the latest seat at this server was taken under, if any."""
        seats = [e for e in self._load().get(url, {}).values() if isinstance(e, dict)]
        named = [e for e in seats if isinstance(e.get("name"), str)]
        if not named:
            return None
        return str(max(named, key=lambda e: e.get("saved", 0))["name"])

    def save(
        self, url: str, table: str, token: str, name: str | None = None, at: str | None = None
    ) -> None:
        """`at`: the process of the host at `url` that holds the table, if another."""
        data = self._load()
        entry: dict[str, str | float] = {"token": token, "saved": time.time()}
        if name is not None:
            entry["name"] = name
        if at is not None and at != url:
            entry["at"] = at
        data.setdefault(url, {})[table] = entry
        self._write(data)

    def place(self, url: str, table: str) -> str | None:
        """Where a seat saved at `url` is held, when another process of the host holds it."""
        entry = self._load().get(url, {}).get(table)
        at = entry.get("at") if isinstance(entry, dict) else None
        return at if isinstance(at, str) else None

    def forget(self, url: str, table: str) -> None:
        data = self._load()
        if data.get(url, {}).pop(table, None) is not None:
            if not data[url]:
                del data[url]
            self._write(data)

    def _load(self) -> SeatFile:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as exc:  # unreadable: start afresh rather than crash
            log.warning("ignoring seat file %s: %s", self.path, exc)
            return {}
        return data if isinstance(data, dict) else {}

    def _write(self, data: SeatFile) -> None:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            tmp = self.path.with_suffix(".tmp")
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump(data, f)
            os.replace(tmp, self.path)
        except OSError as exc:  # a read-only home must not stop the game
            log.warning("cannot save seat tokens to %s: %s", self.path, exc)
