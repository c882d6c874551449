"""A request as it was sent, and the words for the server's refusal of one: shared by the
app, its flow and its screens (no Textual here, so the flow stays a plain class)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class Asked:
    """A request as it was sent: its rid, its type and its fields."""

    rid: int
    t: str
    fields: dict[str, Any]

    def wire(self) -> dict[str, Any]:
        return {"t": self.t, "rid": self.rid, **self.fields}


def title(code: str) -> str:
    """An error code as a notice's title: "table_full" -> "Table full"."""
    return code.replace("_", " ").capitalize()
