"""The door's HTML pages, from the templates beside this module; every value put into
one is escaped."""

from __future__ import annotations

import html
from functools import cache
from importlib.resources import files
from string import Template

from aiohttp import web

from protocol.constants import PASSWORD_MAX

TITLE = "Gother Than Thou"


@cache
def _template(name: str) -> Template:
    text = files("server.doors.web").joinpath(f"templates/{name}.html").read_text(encoding="utf-8")
    return Template(text)


def page(name: str, status: int = 200, **values: str | int) -> web.Response:
    escaped = {key: html.escape(str(value)) for key, value in values.items()}
    body = _template(name).substitute(title=TITLE, **escaped)
    return web.Response(text=body, status=status, content_type="text/html", charset="utf-8")


def terminal() -> web.Response:
    return page("terminal")


def login(problem: str = "", status: int = 200) -> web.Response:
    return page("login", status, problem=problem, password_max=PASSWORD_MAX)


def message(text: str, status: int) -> web.Response:
    return page("message", status, message=text)
