"""A sentence told in passing (a refusal, a seat no longer valid, a tournament's news), and
the words for the server's refusal of a request: for every face of the client (each shows a
notice its own way)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal


@dataclass(frozen=True, slots=True)
class Notice:
    text: str
    severity: Literal["information", "warning", "error"]
    title: str = ""


def title(code: str) -> str:
    """An error code as a notice's title: "table_full" -> "Table full"."""
    return code.replace("_", " ").capitalize()


THINKING = "thinking"  # a hint the server is still thinking about: it answers when asked again
ASK_AGAIN = 1.0  # seconds between asks for such a hint
