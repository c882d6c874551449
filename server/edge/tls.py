"""TLS for `gother serve`: the server's context, its certificate's fingerprint, and, for a
LAN host with no public certificate, a self-signed one made once and kept.

A self-signed certificate proves nothing by itself: players check its fingerprint, which
the log prints at every start, against what `gother join` shows them the first time (it
then pins it, like ssh's known_hosts). The SSH door's own clients pin it at once.
"""

from __future__ import annotations

import datetime
import fcntl
import ipaddress
import logging
import socket
import ssl
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from protocol.fingerprint import fingerprint
from server.files import private_file, private_folder

log = logging.getLogger("gother.server")

VALID_DAYS = 3650  # a pinned certificate that expired would have to be trusted anew
WILDCARD_HOSTS = {"", "0.0.0.0", "::"}


def server_context(certfile: str, keyfile: str | None) -> ssl.SSLContext:
    """The listening side's TLS (1.2 or later), its certificate's fingerprint logged."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    context.load_cert_chain(certfile, keyfile)
    log.info("tls: certificate %s, fingerprint %s", certfile, certificate_fingerprint(certfile))
    return context


def certificate_fingerprint(certfile: str) -> str:
    """The fingerprint of the first certificate in a PEM file (the server's own)."""
    pem = Path(certfile).read_bytes()
    return fingerprint(x509.load_pem_x509_certificate(pem).public_bytes(serialization.Encoding.DER))


def self_signed(folder: Path, host: str) -> tuple[Path, Path]:
    """(certificate, key) kept in `folder`: made on the first run (the key 0600, the folder
    0700), the same ever after, so the fingerprint players pinned stays true. Read and made
    under a lock: the processes of one host, started at once, make one certificate among
    them (the one their players pin), not one each."""
    private_folder(folder)
    with private_file(folder / "lock").open("r") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # let go as the file closes
        return _kept(folder, host)


def _kept(folder: Path, host: str) -> tuple[Path, Path]:
    cert, key = folder / "cert.pem", folder / "key.pem"
    if cert.is_file() and key.is_file():
        return cert, private_file(key)
    names = _names(host)
    secret = ec.generate_private_key(ec.SECP256R1())
    private_file(key).write_bytes(
        secret.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    cert.write_bytes(_certificate(secret, names).public_bytes(serialization.Encoding.PEM))
    log.info("tls: made a self-signed certificate %s for %s", cert, ", ".join(names))
    return cert, key


def _names(host: str) -> list[str]:
    """What players may dial: this machine's names, loopback, and the listening address."""
    here = socket.gethostname()
    names = ["localhost", "127.0.0.1", "::1", here, f"{here}.local"]
    if host not in WILDCARD_HOSTS and host not in names:
        names.append(host)
    return names


def _certificate(secret: ec.EllipticCurvePrivateKey, names: list[str]) -> x509.Certificate:
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, f"gother on {names[3]}")])
    alternatives: list[x509.GeneralName] = []
    for name in names:
        try:
            alternatives.append(x509.IPAddress(ipaddress.ip_address(name)))
        except ValueError:
            alternatives.append(x509.DNSName(name))
    now = datetime.datetime.now(datetime.UTC)
    public = secret.public_key()
    return (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(subject)
        .public_key(public)
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=VALID_DAYS))
        .add_extension(x509.SubjectAlternativeName(alternatives), critical=False)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(public), critical=False)
        .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(public), critical=False)
        .sign(secret, hashes.SHA256())
    )
