"""The doors as the command line knows them, by kind: `gother serve` takes each one's
options, `gother door KIND` runs one alone. A third door is its module here and one entry
below (and one in server/doors/kinds.py)."""

from gother_tui.cli.doors import ssh, web
from gother_tui.cli.doors.door import CliDoor

DOORS: dict[str, CliDoor] = {door.name: door for door in (ssh.DOOR, web.DOOR)}
