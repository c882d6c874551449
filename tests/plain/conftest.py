"""The plain client's tests run against a real server on 127.0.0.1 (the server tests' own
fixtures, a database file, bots that move at once)."""

from tests.kits.servers import config, server, url

__all__ = ["config", "server", "url"]
