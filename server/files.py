"""Files only the server's user may read: the database (it holds every running game's seed,
and a seed gives every hidden card), its -wal and -shm, the SSH host key, the TLS key and
the SSH players' folders of seat tokens.

A folder we make is 0700 and a file we make is 0600, whatever the umask. One the host made
before (or an older version left readable) is tightened, and the log says so once.
"""

from __future__ import annotations

import logging
import os
import stat
from pathlib import Path

log = logging.getLogger("gother.server")

PRIVATE_FOLDER = 0o700
PRIVATE_FILE = 0o600
SQLITE_SIDE_FILES = ("-wal", "-shm", "-journal")  # SQLite makes them with the db's mode


def data_folder() -> Path:
    """The user's data folder for gother: a host's state when no database file says where
    (the doors' players, the TLS key, a PostgreSQL host's table log)."""
    from platformdirs import user_data_dir

    return Path(user_data_dir("gother"))


def new_folders(path: Path) -> Path:
    """Make `path` and its missing parents 0700; a folder that exists is left as it is (it
    may be the host's home or the folder they started the server in)."""
    missing = []
    for folder in (path, *path.parents):
        if folder.is_dir():
            break
        missing.append(folder)
    for folder in reversed(missing):
        try:
            folder.mkdir(mode=PRIVATE_FOLDER)
        except FileExistsError:
            if folder.is_dir():  # made meanwhile by another process of the host
                continue
            raise  # a file of that name: not ours to replace
        os.chmod(folder, PRIVATE_FOLDER)  # mkdir's mode is filtered by the umask
    return path


def private_folder(path: Path) -> Path:
    """A folder of the server's own (the SSH players' seat tokens, the TLS key): 0700, made
    so or tightened."""
    new_folders(path)
    _tighten(path, PRIVATE_FOLDER)
    return path


def private_file(path: Path) -> Path:
    """Make `path` exist as a file only this user can read (0600), without changing what an
    existing one holds; its folder is made private when it is made here."""
    new_folders(path.parent)
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, PRIVATE_FILE))
    except FileExistsError:
        _tighten(path, PRIVATE_FILE)
    return path


def private_database(path: str) -> None:
    """Before SQLite opens `path`: the file and whatever -wal, -shm or -journal an earlier
    run left are 0600 (SQLite gives the side files it makes the database's own mode)."""
    if path in ("", ":memory:") or path.startswith("file:"):
        return  # in memory (or a URI the host spelled out themselves)
    if not Path(path).parent.is_dir():
        return  # a mistyped folder: SQLite refuses it, with its own clear error
    db = private_file(Path(path))
    for suffix in SQLITE_SIDE_FILES:
        side = db.with_name(db.name + suffix)
        if side.exists():
            _tighten(side, PRIVATE_FILE)


def _tighten(path: Path, mode: int) -> None:
    info = path.stat()
    if stat.S_IMODE(info.st_mode) & ~mode & 0o077 and info.st_uid == os.getuid():
        os.chmod(path, stat.S_IMODE(info.st_mode) & mode)
        log.warning("%s was readable by others: now %o", path, stat.S_IMODE(info.st_mode) & mode)
