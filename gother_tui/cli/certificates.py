"""`gother join wss://…` and a certificate it cannot trust, settled on the terminal before
the full screen opens: an unknown one is shown by its fingerprint and, if the player says
so, trusted from then on (pinned, like ssh's known_hosts); a changed one is refused with a
warning. The rules themselves are gother_tui/core/trust.py's."""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

from gother_tui.core.transport import (
    CertificateChanged,
    TransportError,
    UnknownCertificate,
    WebSocketTransport,
)
from gother_tui.core.trust import KnownServers, Trust
from protocol.fingerprint import parse_fingerprint


def trust_for(
    args: argparse.Namespace, parser: argparse.ArgumentParser, host: str | None = None
) -> Trust:
    """What the client trusts, from --cafile and --fingerprint (and the pins kept; `host`'s
    at the other processes of the host at that address)."""
    pin = None
    if args.fingerprint is not None:
        pin = parse_fingerprint(args.fingerprint)
        if pin is None:
            parser.error(f"--fingerprint {args.fingerprint}: not a SHA-256 fingerprint")
    if args.cafile is not None and not Path(args.cafile).is_file():
        parser.error(f"--cafile {args.cafile}: no such file")
    return Trust(cafile=args.cafile, pin=pin, known=KnownServers(), host=host)


def settle(
    url: str,
    trust: Trust,
    ask: Callable[[str], str] = input,
    out: TextIO = sys.stderr,
    interactive: bool | None = None,
) -> bool:
    """Whether to go on to `url`: after asking about an unknown certificate (pinning it
    when the answer is yes), never with a changed one. A server out of reach now is the
    client's to show and retry."""
    if not url.startswith("wss://") or trust.pin is not None:
        return True
    try:
        asyncio.run(_probe(url, trust))
    except UnknownCertificate as unknown:
        return _ask(
            unknown, trust, ask, out, sys.stdin.isatty() if interactive is None else interactive
        )
    except CertificateChanged as changed:
        print(f"WARNING: {changed}", file=out)
        return False
    except TransportError:
        pass
    return True


async def _probe(url: str, trust: Trust) -> None:
    transport = WebSocketTransport(url, trust)
    await transport.connect()
    await transport.close()


def _ask(
    unknown: UnknownCertificate,
    trust: Trust,
    ask: Callable[[str], str],
    out: TextIO,
    interactive: bool,
) -> bool:
    print(
        f"{unknown.server} sent a certificate this machine does not know ({unknown.reason}).\n"
        f"Its fingerprint is\n{_two_lines(unknown.shown)}\n"
        "Ask the host for theirs (gother serve prints it as it starts); trust it only if "
        "the two are the same.",
        file=out,
    )
    if not interactive or trust.known is None:
        print(f"Not trusted. To trust it, give --fingerprint {unknown.shown}", file=out)
        return False
    try:
        answer = ask(f"Trust it from now on for {unknown.server}? [y/N] ")
    except (EOFError, KeyboardInterrupt):  # Ctrl+D or Ctrl+C: a no, not a traceback
        print(file=out)
        answer = ""
    if answer.strip().lower() not in ("y", "yes"):
        print("Not trusted.", file=out)
        return False
    trust.known.pin(unknown.server, unknown.shown)
    print(f"Trusted: pinned in {trust.known.path}", file=out)
    return True


def _two_lines(fingerprint: str) -> str:
    """A fingerprint on two lines that fit 80 columns, the first ending in its colon."""
    half = len("SHA256:") + 16 * 3
    return f"    {fingerprint[:half]}\n    {fingerprint[half:]}"
