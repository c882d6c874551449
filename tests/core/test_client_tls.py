"""The client and a wss:// server it must decide to trust (gother_tui/core/trust.py,
transport.py, cli/certificates.py), against a real server with a self-signed certificate
on 127.0.0.1: unknown (its fingerprint shown, trusted once on a yes and pinned), pinned
(accepted), changed (refused with a warning, never retried), --fingerprint and --cafile.
"""

from __future__ import annotations

import asyncio
import io
import stat
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from gother_tui.cli import build_parser
from gother_tui.cli.certificates import settle, trust_for
from gother_tui.core.connection import Connection, ConnectionLost
from gother_tui.core.transport import (
    CertificateChanged,
    TransportError,
    UnknownCertificate,
    WebSocketTransport,
)
from gother_tui.core.trust import KnownServers, Trust, server_of
from protocol import PROTOCOL_VERSION
from protocol.requests import Hello
from server.edge.app import GotherServer, ServerConfig
from server.edge.tls import certificate_fingerprint, self_signed


@pytest.fixture
async def tls_server(tmp_path) -> AsyncIterator[tuple[str, str, Path]]:
    """A server with a self-signed certificate: (url, its fingerprint, the cert file)."""
    cert, key = self_signed(tmp_path / "server", "127.0.0.1")
    server = GotherServer(
        ServerConfig(host="127.0.0.1", port=0, certfile=str(cert), keyfile=str(key))
    )
    await server.start()
    yield f"wss://127.0.0.1:{server.port}", certificate_fingerprint(str(cert)), cert
    await server.close()


@pytest.fixture
def known(tmp_path) -> KnownServers:
    return KnownServers(tmp_path / "state" / "known_servers")


async def says_welcome(transport: WebSocketTransport) -> None:
    await transport.connect()
    await transport.send(Hello(v=PROTOCOL_VERSION, name="Raven"))
    async for frame in transport.messages():
        assert not isinstance(frame, Exception) and frame["t"] == "welcome"
        break
    await transport.close()


async def test_an_unknown_certificate_is_refused_with_its_fingerprint(tls_server, known):
    url, printed, _ = tls_server
    with pytest.raises(UnknownCertificate) as caught:
        await WebSocketTransport(url, Trust(known=known)).connect()
    assert caught.value.shown == printed and caught.value.final
    assert printed in str(caught.value)


async def test_a_pinned_certificate_is_trusted_and_a_changed_one_refused(
    tls_server, known, tmp_path
):
    url, printed, _ = tls_server
    known.pin(server_of(url), printed)
    assert stat.S_IMODE(known.path.stat().st_mode) == 0o600
    await says_welcome(WebSocketTransport(url, Trust(known=known)))
    other, _ = self_signed(tmp_path / "other", "127.0.0.1")  # what an impostor would show
    known.pin(server_of(url), certificate_fingerprint(str(other)))
    with pytest.raises(CertificateChanged) as caught:
        await WebSocketTransport(url, Trust(known=known)).connect()
    changed = caught.value
    assert changed.final and changed.shown == printed
    assert "has CHANGED" in str(changed) and str(known.path) in str(changed)


async def test_a_fingerprint_given_is_the_only_certificate_trusted(tls_server, tmp_path):
    url, printed, _ = tls_server
    await says_welcome(WebSocketTransport(url, Trust(pin=printed)))
    other, _ = self_signed(tmp_path / "other", "127.0.0.1")
    with pytest.raises(CertificateChanged, match="--fingerprint"):
        await WebSocketTransport(url, Trust(pin=certificate_fingerprint(str(other)))).connect()


async def test_a_cafile_vouches_for_its_certificate_and_for_no_other(tls_server, tmp_path):
    url, _, cert = tls_server
    await says_welcome(WebSocketTransport(url, Trust(cafile=str(cert))))
    other, _ = self_signed(tmp_path / "other", "127.0.0.1")
    with pytest.raises(TransportError) as caught:
        await WebSocketTransport(url, Trust(cafile=str(other))).connect()
    assert caught.value.final and not isinstance(caught.value, UnknownCertificate)


async def test_a_certificate_not_to_be_trusted_is_not_retried(tls_server, known):
    url, printed, _ = tls_server
    posted: list[object] = []
    connection = Connection(
        url, posted.append, lambda u: WebSocketTransport(u, Trust(known=known)), 0.01, 0.01
    )
    await connection.run()  # returns: no retrying for ever
    (lost,) = posted
    assert isinstance(lost, ConnectionLost) and lost.retry_in is None
    assert printed in lost.reason


async def settled(
    url: str, trust: Trust, answer: str, interactive: bool = True
) -> tuple[bool, str]:
    """settle() as `gother join` calls it, before any event loop runs (so in a thread:
    this test's loop serves meanwhile); what it said and asked."""
    return await asyncio.to_thread(_settled, url, trust, answer, interactive)


def _settled(url: str, trust: Trust, answer: str, interactive: bool) -> tuple[bool, str]:
    out = io.StringIO()
    asked: list[str] = []

    def ask(question: str) -> str:
        asked.append(question)
        return answer

    go_on = settle(url, trust, ask=ask, out=out, interactive=interactive)
    return go_on, out.getvalue() + "".join(asked)


async def test_an_unknown_certificate_is_shown_and_trusted_once_on_yes(tls_server, known):
    url, printed, _ = tls_server
    go_on, shown = await settled(url, Trust(known=known), "y")
    assert go_on and f"Trust it from now on for {server_of(url)}?" in shown
    assert printed in "".join(shown.split())  # on two lines, to fit 80 columns
    assert all(len(line) <= 80 for line in shown.splitlines() if "SHA256" in line)
    assert known.get(server_of(url)) == printed
    go_on, shown = await settled(url, Trust(known=known), "never asked")  # pinned: no question
    assert go_on and shown == ""


async def test_a_no_or_no_terminal_trusts_nothing(tls_server, known):
    url, printed, _ = tls_server
    go_on, shown = await settled(url, Trust(known=known), "n")
    assert not go_on and "Not trusted." in shown
    go_on, shown = await settled(url, Trust(known=known), "y", interactive=False)
    assert not go_on and f"give --fingerprint {printed}" in shown
    assert known.get(server_of(url)) is None


async def test_a_changed_certificate_is_a_warning_and_no_question(tls_server, known, tmp_path):
    url, _, _ = tls_server
    other, _ = self_signed(tmp_path / "other", "127.0.0.1")
    known.pin(server_of(url), certificate_fingerprint(str(other)))
    go_on, shown = await settled(url, Trust(known=known), "y")
    assert not go_on and shown.startswith("WARNING: the certificate of") and "?" not in shown


def test_join_takes_a_cafile_and_a_fingerprint_as_pasted(tmp_path, capsys):
    parser = build_parser()
    pem = tmp_path / "ca.pem"
    pem.write_text("")
    pasted = "sha256 Fingerprint=" + ":".join(["AB"] * 32)
    args = parser.parse_args(["join", "wss://h:1", "--cafile", str(pem), "--fingerprint", pasted])
    trust = trust_for(args, parser)
    assert trust.cafile == str(pem) and trust.pin == "SHA256:" + ":".join(["AB"] * 32)
    with pytest.raises(SystemExit):
        trust_for(parser.parse_args(["join", "wss://h:1", "--fingerprint", "AB:CD"]), parser)
    assert "not a SHA-256 fingerprint" in capsys.readouterr().err


async def test_ws_to_a_tls_server_says_to_use_wss(tls_server, known):
    """Issue 29: it said "not a gother server"."""
    url, _, _ = tls_server
    plain = "ws://" + url.removeprefix("wss://")
    with pytest.raises(TransportError) as caught:
        await WebSocketTransport(plain, Trust(known=known)).connect()
    assert str(caught.value) == f"{plain} hung up at once: it looks like a TLS server, use {url}"


async def test_ctrl_c_at_the_question_is_a_no_not_a_traceback(tls_server, known):
    """Issue 29: Ctrl+C at "[y/N]" printed a traceback."""
    url, _, _ = tls_server
    out = io.StringIO()

    def interrupted(question: str) -> str:
        raise KeyboardInterrupt

    go_on = await asyncio.to_thread(
        settle, url, Trust(known=known), ask=interrupted, out=out, interactive=True
    )
    assert not go_on and out.getvalue().endswith("\nNot trusted.\n")
    assert known.get(server_of(url)) is None


async def test_another_process_of_the_host_is_held_to_the_certificate_pinned_at_its_address(
    tls_server, known, tmp_path
):
    """`elsewhere` sends the client to another port: the pin is the host's certificate, not
    its port's, so the same one is trusted there without a question, another refused."""
    url, printed, _ = tls_server
    home = "wss://127.0.0.1:1"  # the host's address, pinned; `url` another of its processes
    known.pin(server_of(home), printed)
    await says_welcome(WebSocketTransport(url, Trust(known=known, host=home)))
    with pytest.raises(UnknownCertificate):  # not sent there by the host: nothing says whose
        await WebSocketTransport(url, Trust(known=known)).connect()
    other = "SHA256:" + ":".join(["AB"] * 32)
    known.pin(server_of(home), other)
    with pytest.raises(CertificateChanged, match=r"sent us, is NOT the host's") as refused:
        await WebSocketTransport(url, Trust(known=known, host=home)).connect()
    assert printed in str(refused.value) and other in str(refused.value)
    known.pin(server_of(url), printed)  # a pin of its own comes first
    await says_welcome(WebSocketTransport(url, Trust(known=known, host=home)))
