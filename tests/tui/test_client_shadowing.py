"""No class of the client quietly replaces a name its Textual base class already has.

Two did, and each broke something without a word: `LobbyScreen._auto_refresh` was also
Textual's own attribute (None), so the lobby's timer called nothing and the list never
refreshed by itself; `AddressScreen.watch = …` replaced `DOMNode.watch`. Every name a
client class defines, in its body or as `self.name = …` in its methods, is checked against
every name of its Textual bases (their attributes, and what their instances set); the
overrides meant as such are listed here.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
import textwrap

import pytest
from textual.dom import DOMNode
from textual.message import Message

import gother_tui

# Textual's hooks and settings, overridden on purpose.
DELIBERATE = {
    "BINDINGS",
    "CSS_PATH",
    "DEFAULT_CSS",
    "COMPONENT_CLASSES",
    "TITLE",
    "AUTO_FOCUS",
    "ENABLE_COMMAND_PALETTE",
    "NOTIFICATION_TIMEOUT",
    "compose",
    "render",
    "get_content_height",
    "check_action",
    "get_key_display",
    "get_line_filters",  # NO_COLOR in the terminal's own colours, not grey (client_app.py)
    "action_quit",
    "on_mount",
    "on_resize",
    "stylesheet",  # ClientApp's parses each source once a process (gother_tui/tui/stylesheet.py)
}


def client_classes() -> list[type]:
    for info in pkgutil.walk_packages(gother_tui.__path__, "gother_tui."):
        if not info.name.endswith("__main__"):  # that one runs the command line
            importlib.import_module(info.name)
    found: list[type] = []
    pending = [DOMNode, Message]
    while pending:
        for sub in pending.pop().__subclasses__():
            pending.append(sub)
            if sub.__module__.startswith("gother_tui.") and sub not in found:
                found.append(sub)
    return sorted(found, key=lambda c: f"{c.__module__}.{c.__qualname__}")


def textual_bases(cls: type) -> list[type]:
    return [base for base in cls.__mro__ if base.__module__.split(".")[0] == "textual"]


def textual_names(cls: type) -> set[str]:
    """Every name a Textual base of `cls` has: attributes, annotations, and the instance
    attributes its __init__ sets (seen on a bare instance)."""
    bases = textual_bases(cls)
    names = {name for base in bases for name in dir(base)}
    names |= {name for base in bases for name in getattr(base, "__annotations__", {})}
    names |= set(getattr(bases[0](), "__dict__", {}))
    return names


def settable(cls: type, name: str) -> bool:
    """Whether Textual made `name` to be assigned (a reactive or a property with a
    setter): `self.theme = …` sets the app's theme, it replaces nothing."""
    for base in textual_bases(cls):
        if name in vars(base):
            return hasattr(vars(base)[name], "__set__")
    return False


def own_names(cls: type) -> set[str]:
    """The names `cls` itself defines: in its body (less what Textual writes into every
    subclass), and as `self.name = …` in its own methods."""
    framework = set(vars(type("Probe", (textual_bases(cls)[0],), {})))
    names = {name for name in vars(cls) if name not in framework}
    tree = ast.parse(textwrap.dedent(inspect.getsource(cls)))
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, ast.AnnAssign):
            targets = [node.target]
        else:
            continue
        for target in targets:
            for part in target.elts if isinstance(target, ast.Tuple) else [target]:
                if (
                    isinstance(part, ast.Attribute)
                    and isinstance(part.value, ast.Name)
                    and part.value.id == "self"
                    and not settable(cls, part.attr)
                ):
                    names.add(part.attr)
    return {name for name in names if not (name.startswith("__") and name.endswith("__"))}


@pytest.mark.parametrize("cls", client_classes(), ids=lambda c: c.__qualname__)
def test_no_client_class_shadows_a_name_of_textual(cls):
    shadowed = (own_names(cls) & textual_names(cls)) - DELIBERATE
    assert not shadowed, f"{cls.__qualname__} redefines Textual's {sorted(shadowed)}"


def test_the_check_finds_the_shadowing_it_is_for():
    from textual.screen import Screen

    class Lobby(Screen[None]):
        def _auto_refresh(self) -> None: ...

    class Address(Screen[None]):
        def __init__(self, watch: bool) -> None:
            super().__init__()
            self.watch = watch  # type: ignore[assignment, method-assign]

    assert own_names(Lobby) & textual_names(Lobby) == {"_auto_refresh"}
    assert own_names(Address) & textual_names(Address) == {"watch"}
