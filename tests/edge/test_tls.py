"""TLS that works on a LAN (server/edge/tls.py): `gother serve --tls` makes a self-signed
certificate once, keeps it and prints its fingerprint; with a self-signed certificate and
`--ssh`, the door's own clients trust their own server (by its fingerprint, which no CA
vouches for and no name may match); a client that drops a TLS connection mid-way does not
upset the server. Real TLS, real processes, all on 127.0.0.1."""

from __future__ import annotations

import logging
import multiprocessing
import re
import ssl
import stat
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import asyncssh
import pytest
from cryptography import x509
from websockets.asyncio.client import connect

from protocol import PROTOCOL_VERSION, decode, encode
from protocol import requests as rq
from protocol.fingerprint import fingerprint, parse_fingerprint
from server.edge.app import GotherServer
from server.edge.config import ServerConfig
from server.edge.tls import certificate_fingerprint, self_signed
from tests.kits.poll import until
from tests.kits.prockit import ServerProcess
from tests.kits.sshkit import close, open_session, read_until

FINGERPRINT = re.compile(r"tls: certificate (\S+), fingerprint (SHA256:[0-9A-F:]{95})")
SSH_LISTENING = re.compile(r"ssh: listening on ssh://127\.0\.0\.1:(\d+)")


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


async def test_serve_tls_makes_its_certificate_once_keeps_it_and_prints_its_fingerprint(
    tmp_path,
):
    args = ("--tls", "--db", str(tmp_path / "games.db"))
    first = await ServerProcess.start(*args)
    try:
        assert first.url.startswith("wss://127.0.0.1:")
        cert, printed = (await first.log_line(FINGERPRINT)).groups()
        assert Path(cert) == tmp_path / "tls" / "cert.pem"
        assert printed == certificate_fingerprint(cert)
        assert "made a self-signed certificate" in first.stderr
    finally:
        await first.terminate()
    key = tmp_path / "tls" / "key.pem"
    assert (mode(key), mode(key.parent)) == (0o600, 0o700)
    again = await ServerProcess.start(*args)
    try:
        assert (await again.log_line(FINGERPRINT))[2] == printed  # kept: pins stay true
        assert "made a self-signed certificate" not in again.stderr
    finally:
        await again.terminate()


async def test_the_doors_clients_trust_their_own_servers_self_signed_certificate(tmp_path):
    """They once failed with CERTIFICATE_VERIFY_FAILED and retried for ever."""
    key = asyncssh.generate_private_key("ssh-ed25519")
    (tmp_path / "authorized_keys").write_bytes(key.export_public_key())
    cert, secret = self_signed(tmp_path / "certs", "gother.lan")
    server = await ServerProcess.start(
        *("--certfile", str(cert), "--keyfile", str(secret), "--db", str(tmp_path / "g.db")),
        *("--ssh", "0", "--ssh-authorized-keys", str(tmp_path / "authorized_keys")),
    )
    try:
        ssh_port = int((await server.log_line(SSH_LISTENING))[1])
        conn, process = await open_session(ssh_port, key)
        try:
            text = await read_until(process, re.compile(r"(?i)tables yet"))
            assert "certificate" not in text.lower()
        finally:
            await close(conn, process)
    finally:
        await server.terminate()


async def test_a_client_that_drops_a_tls_connection_leaves_the_server_well(tmp_path, caplog):
    cert, secret = self_signed(tmp_path / "certs", "127.0.0.1")
    server = GotherServer(
        ServerConfig(host="127.0.0.1", port=0, certfile=str(cert), keyfile=str(secret))
    )
    await server.start()
    try:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        context.check_hostname, context.verify_mode = False, ssl.CERT_NONE
        with caplog.at_level(logging.INFO):
            for _ in range(3):
                ws = await connect(f"wss://127.0.0.1:{server.port}", ssl=context)
                ws.transport.abort()  # gone without a word: its address with it
            ws = await connect(f"wss://127.0.0.1:{server.port}", ssl=context)
            await ws.close()  # the server still serves
        assert "connection handler failed" not in caplog.text
    finally:
        await server.close()


async def test_a_tls_players_closed_connection_is_logged_at_its_address(tmp_path, caplog):
    """It read `Crow@?:0` once: a closed TLS socket forgets where it came from."""
    cert, secret = self_signed(tmp_path / "certs", "127.0.0.1")
    server = GotherServer(
        ServerConfig(host="127.0.0.1", port=0, certfile=str(cert), keyfile=str(secret))
    )
    await server.start()
    try:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        context.check_hostname, context.verify_mode = False, ssl.CERT_NONE
        with caplog.at_level(logging.INFO):
            async with connect(f"wss://127.0.0.1:{server.port}", ssl=context) as ws:
                own = ws.local_address[1]
                await ws.send(encode(rq.Hello(v=PROTOCOL_VERSION, name="Crow", rid=1)))
                assert decode(await ws.recv())["t"] == "welcome"
            closed = f"connection closed: Crow@127.0.0.1:{own}"
            await until("the close logged", lambda: closed in caplog.text)
    finally:
        await server.close()


def test_a_fingerprint_is_the_one_openssl_prints_and_reads_back_as_pasted(tmp_path):
    cert, _ = self_signed(tmp_path, "127.0.0.1")
    der = ssl.PEM_cert_to_DER_cert(cert.read_text())
    shown = fingerprint(der)
    assert shown == certificate_fingerprint(str(cert))
    assert re.fullmatch(r"SHA256:([0-9A-F]{2}:){31}[0-9A-F]{2}", shown)
    bare = shown.removeprefix("SHA256:").replace(":", "").lower()
    for pasted in (shown, f"sha256 Fingerprint={shown[7:]}", bare, f" {shown.lower()} "):
        assert parse_fingerprint(pasted) == shown
    assert parse_fingerprint("SHA256:12:34") is None


@pytest.mark.parametrize("host", ["0.0.0.0", "gother.lan"])
def test_the_certificate_names_this_machine_and_the_listening_host(tmp_path, host):
    cert, _ = self_signed(tmp_path, host)
    made = x509.load_pem_x509_certificate(cert.read_bytes())
    names = made.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    shown = {str(n) for n in names.get_values_for_type(x509.DNSName)}
    shown |= {str(n) for n in names.get_values_for_type(x509.IPAddress)}
    assert {"localhost", "127.0.0.1", "::1"} <= shown
    assert (host in shown) == (host != "0.0.0.0")


async def test_the_servers_log_opens_with_no_dsa_deprecation_warnings(tmp_path):
    """Issue 29: asyncssh, loaded for the SSH door, opened the log with 15 of them (five a
    process: the server and its search workers)."""
    args = ("--tls", "--db", str(tmp_path / "games.db"), "--ssh", "0", "--ssh-open")
    served = await ServerProcess.start(*args)
    try:
        await served.log_line(SSH_LISTENING)
    finally:
        await served.terminate()
    assert "listening on wss://127.0.0.1:" in served.stderr
    assert "Warning" not in served.stderr and "DSA" not in served.stderr


def fingerprint_made(folder: Path) -> str:  # in a process of its own, as a host's process
    cert, _ = self_signed(folder, "127.0.0.1")
    return certificate_fingerprint(str(cert))


def test_processes_making_the_certificate_at_once_make_one_among_them(tmp_path):
    """`gother serve --processes N --tls` (or N units started together): each process reads
    or makes the certificate as it starts; every one serves the one its players pin."""
    with ProcessPoolExecutor(6, mp_context=multiprocessing.get_context("fork")) as pool:
        for round_ in range(3):
            folder = tmp_path / f"tls-{round_}"
            made = set(pool.map(fingerprint_made, [folder] * 6))
            assert made == {certificate_fingerprint(str(folder / "cert.pem"))}
