"""Textual's web driver for a client that runs more than one app in its process: at the
web door `gother join` runs the client, then the replay asked at game over, then the
client again. Each app's driver starts by telling the door's AppService, in a line, that
a Textual app talks on stdout; every byte after it is a packet. Said again by the second
app, that line read as a packet of the wrong size, and the browser saw nothing more: the
line is said once, by the first app of the process. And one app at a time reads stdin:
the replay's input thread outlived its app and took the keys meant for the next run."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from textual.drivers.web_driver import WebDriver

PRELUDE = b"__GANGLION__\n"  # textual-serve's, read once before the packets
READER_GONE = 2.0  # seconds: at most, for the last app's input thread to end


class ClientWebDriver(WebDriver):
    prelude_said = False  # in this process
    reading: ClientWebDriver | None = None  # the driver whose thread reads stdin now

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._write = partial(_prelude_once, self._write)

    def start_application_mode(self) -> None:
        before, ClientWebDriver.reading = ClientWebDriver.reading, self
        if before is not None and before is not self:
            before._input_reader.close()  # its reader looks at this every 0.1 s
            before._key_thread.join(READER_GONE)
        super().start_application_mode()


def _prelude_once(write: Callable[[bytes], int], data: bytes) -> int:
    if data == PRELUDE:
        if ClientWebDriver.prelude_said:
            return len(data)
        ClientWebDriver.prelude_said = True
    return write(data)
