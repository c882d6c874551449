"""Textual's web driver for a client that runs more than one app in its process: at the
web door `gother join` runs the client, then the replay asked at game over, then the
client again. Each app's driver starts by telling the door's AppService, in a line, that
a Textual app talks on stdout; every byte after it is a packet. Said again by the second
app, that line read as a packet of the wrong size, and the browser saw nothing more: the
line is said once, by the first app of the process."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from textual.drivers.web_driver import WebDriver

PRELUDE = b"__GANGLION__\n"  # textual-serve's, read once before the packets


class ClientWebDriver(WebDriver):
    prelude_said = False  # in this process

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._write = partial(_prelude_once, self._write)


def _prelude_once(write: Callable[[bytes], int], data: bytes) -> int:
    if data == PRELUDE:
        if ClientWebDriver.prelude_said:
            return len(data)
        ClientWebDriver.prelude_said = True
    return write(data)
