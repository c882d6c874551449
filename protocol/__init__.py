"""The wire contract between the server and its clients (docs/protocol.md).

No game rules, no sockets: bytes ⇄ maps (`codec`), the typed requests a client sends
(`requests`, with the moves of `moves`) and what the server sends (`server_messages`,
`view`): both used as namespaces, since names like `Hint` and `Error` are too generic to
import bare.
"""

from protocol import requests, server_messages
from protocol.codec import decode, encode
from protocol.constants import MAX_DEPTH, MAX_FRAME, PROTOCOL_VERSION
from protocol.errors import ERROR_CODES, ErrorCode, ProtocolError
from protocol.requests import Request, request_id, validate_request
from protocol.text import clean_text

__all__ = [
    "ERROR_CODES",
    "MAX_DEPTH",
    "MAX_FRAME",
    "PROTOCOL_VERSION",
    "ErrorCode",
    "ProtocolError",
    "Request",
    "clean_text",
    "decode",
    "encode",
    "request_id",
    "requests",
    "server_messages",
    "validate_request",
]
