"""The web door's command-line options (server/doors/web/ is the door)."""

from __future__ import annotations

import argparse
import importlib.util
from pathlib import Path

from gother_tui.cli import argtypes
from gother_tui.cli.doors.door import CliDoor, Fields, data_dir_of, loopback
from gother_tui.cli.passwords import WEB, add_secret, read_secret


def add_options(parser: argparse.ArgumentParser) -> None:
    web = parser.add_argument_group(
        "Web door: the client in a browser, one process per tab (needs the [web] extra)"
    )
    web.add_argument(
        "--web", type=argtypes.port, metavar="PORT", help="serve the game in browsers on this port"
    )
    add_secret(web, WEB)
    web.add_argument(
        "--web-open",
        action="store_true",
        help="let any browser in without a password, on a host that is not 127.0.0.1",
    )
    web.add_argument(
        "--web-max",
        type=argtypes.positive,
        default=20,
        metavar="N",
        help="browser sessions at once, each a client process of about 40 MB; one more is "
        "told the door is full (default 20)",
    )
    web.add_argument(
        "--web-idle",
        type=argtypes.positive,
        default=30,
        metavar="MINUTES",
        help="end a session after this long without a key, a resize being none (default 30; "
        "the seat is kept)",
    )
    web.add_argument(
        "--web-origin",
        action="append",
        default=[],
        type=argtypes.web_origin,
        metavar="URL",
        help="another address players open the page at, e.g. a proxy's https://games.example.org",
    )
    web.add_argument(
        "--web-per-address",
        type=argtypes.positive,
        default=4,
        metavar="N",
        help="browser sessions at once from one address (default 4)",
    )
    web.add_argument(
        "--web-starts-per-minute",
        type=argtypes.positive,
        default=30,
        metavar="N",
        help="browser sessions started a minute from one address, after 4 at once; 4 times "
        "as many from all (default 30)",
    )
    web.add_argument(
        "--web-trust-proxy",
        type=argtypes.ip_address,
        metavar="ADDR",
        help="the reverse proxy at ADDR (say 127.0.0.1 for nginx here) tells each browser's "
        "address in X-Forwarded-For; from anyone else that header is ignored",
    )
    # Slow requests (server/doors/web/door.py's HEADER_TIMEOUT, BODY_TIMEOUT, HALF_OPEN_PER_ADDRESS)
    web.add_argument(
        "--web-header-timeout",
        type=argtypes.positive,
        default=10,
        metavar="SECONDS",
        help="close a connection whose request headers are not all in by then, or that "
        "sends no request as long (nginx: client_header_timeout)",
    )
    web.add_argument(
        "--web-body-timeout",
        type=argtypes.positive,
        default=10,
        metavar="SECONDS",
        help="answer 408 to a request whose body is not all in by then (the password form)",
    )
    web.add_argument(
        "--web-half-open-per-address",
        type=argtypes.positive,
        default=16,
        metavar="N",
        help="connections from one address with no request under way (half-sent or idle); "
        "one more is closed at once (the trusted proxy's are not counted: it has its own)",
    )


PACKAGES_ROOT = Path(__file__).resolve().parents[3]  # a clone, or site-packages


def web_extra_install(root: Path = PACKAGES_ROOT) -> str:
    """The command that adds the web extra to this install: `root` is where the packages
    live, a clone (installed with -e) when it holds the pyproject."""
    if (root / "pyproject.toml").is_file():
        return f"pip install -e '.[web]' (in {root})"
    return "pip install 'gother-than-thou[web]'"


def options(
    args: argparse.Namespace, parser: argparse.ArgumentParser, server_password: str | None
) -> Fields | None:
    """The web door's options, or None without --web. Like the SSH door's, its access is
    what the host chose: a password, or open only on loopback or with --web-open."""
    if args.web is None:
        web_only = (args.web_password, args.web_password_file, args.web_origin, args.web_open)
        if any(web_only) or args.web_trust_proxy:
            parser.error("--web-… options need --web PORT")
        return None
    if importlib.util.find_spec("textual_serve") is None:
        parser.error(f"--web needs the web extra: {web_extra_install()}")
    password = read_secret(args, parser, WEB) or server_password
    if password is not None and args.web_open:
        parser.error("--web-open lets any browser in: it goes without a password")
    if password is None and not args.web_open and not loopback(args.host):
        parser.error(
            f"--web on {args.host} needs a password (--web-password-file FILE, "
            "$GOTHER_WEB_PASSWORD or the server's own) or, to let any browser in, --web-open"
        )
    return {
        "port": args.web,
        "data_dir": data_dir_of(args),
        "password": password,
        "max_sessions": args.web_max,
        "idle": args.web_idle * 60.0,
        "origins": tuple(args.web_origin),
        "per_address": args.web_per_address,
        "trust_proxy": args.web_trust_proxy,
        "header_timeout": float(args.web_header_timeout),
        "body_timeout": float(args.web_body_timeout),
        "half_open_per_address": args.web_half_open_per_address,
        "starts_per_minute": args.web_starts_per_minute,
    }


def add_page_tls(parser: argparse.ArgumentParser) -> None:
    """`gother door web`'s own: its page over https (`gother serve`'s are the server's)."""
    parser.add_argument("--certfile", help="serve the page over https with this certificate")
    parser.add_argument("--keyfile", help="its private key (PEM)")


DOOR = CliDoor(
    "web", "the web door: the client in a browser tab", add_options, options, add_page_tls
)
