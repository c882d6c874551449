"""A real server on 127.0.0.1, port 0, in the test's own event loop, and SSH doors on it
(tests/kits/servers.py): fixtures every test of the server's packages may ask for."""

from tests.kits.servers import config, keys, make_door, server, url

__all__ = ["config", "keys", "make_door", "server", "url"]
