"""A real browser for the web door's tests and benchmark: Debian's chromium driven by
Playwright (no browser download), every request to a host other than 127.0.0.1 routed
to a failure and recorded, and the screen read from the page's xterm.js buffer."""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from playwright.sync_api import Browser, BrowserContext, Page, Playwright, Route

from tests.kits.poll import until_blocking

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
HAVE_CHROMIUM = Path(CHROMIUM).exists()
# As root in CI: no sandbox; and nothing of the browser's own calls home.
LAUNCH_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
]
TIMEOUT = 60.0  # a cold client start (Python + Textual) on two busy cores
SCREEN_JS = """() => {
  const terminal = window.gotherTerminal;
  if (!terminal || !terminal.element) return null;
  const buffer = terminal.buffer.active, lines = [];
  for (let y = 0; y < terminal.rows; y++) {
    const line = buffer.getLine(buffer.viewportY + y);
    lines.push(line ? line.translateToString(true) : "");
  }
  return lines.join("\\n");
}"""


def launch(playwright: Playwright) -> Browser:
    return playwright.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)


@dataclass
class Requests:
    """Every URL the pages of a context asked for, and those that were not 127.0.0.1."""

    seen: list[str] = field(default_factory=list)
    foreign: list[str] = field(default_factory=list)

    def route(self, route: Route) -> None:
        url = route.request.url
        self.seen.append(url)
        if urlsplit(url).hostname == "127.0.0.1":
            route.continue_()
        else:
            self.foreign.append(url)
            route.abort("blockedbyclient")

    def watch(self, page: Page) -> None:
        """Websockets are not routed: record where each one went."""

        def opened(ws: object) -> None:
            url = str(getattr(ws, "url", ""))
            self.seen.append(url)
            if urlsplit(url).hostname != "127.0.0.1":
                self.foreign.append(url)

        page.on("websocket", opened)


def guarded_context(browser: Browser, requests: Requests, **options: object) -> BrowserContext:
    context = browser.new_context(**options)  # type: ignore[arg-type]
    context.route("**/*", requests.route)
    context.on("page", requests.watch)
    return context


def screen(page: Page) -> str:
    """The terminal's text now, row by row ("" before the terminal exists)."""
    return page.evaluate(SCREEN_JS) or ""


def wait_screen(
    page: Page, what: str, check: Callable[[str], object] | str, timeout: float = TIMEOUT
) -> str:
    """The screen once `check(screen)` holds (a string: once it is on the screen)."""
    test = (lambda text: check in text) if isinstance(check, str) else check

    def shown() -> str | None:
        text = screen(page)
        return text if test(text) else None

    try:  # between two looks, the page's own clock: its events run meanwhile
        return until_blocking(what, shown, timeout, pause=lambda: page.wait_for_timeout(30))
    except AssertionError as exc:
        raise AssertionError(f"{exc}; the screen was:\n{screen(page)}") from None


def status(text: str) -> str:
    return text.splitlines()[0] if text else ""


def drawn(text: str) -> set[str]:
    return {c for c in text if not c.isascii() and not c.isspace()}


YOU_ROW = re.compile(r"^\W{0,3}([1-9]) (\w+) \(you\)", re.MULTILINE)
