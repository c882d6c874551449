"""The wire contract between the server and its clients (docs/protocol.md).

No game rules, no sockets: bytes ⇄ maps (`codec`), the checks every client message must
pass (`messages`), and builders for what the server sends (`server_messages`, used as a
namespace because names like `state` and `error` are too generic to import bare).
"""

from protocol import server_messages
from protocol.codec import decode, encode
from protocol.constants import MAX_DEPTH, MAX_FRAME, PROTOCOL_VERSION
from protocol.errors import ErrorCode, ProtocolError
from protocol.messages import request_id, validate_request
from protocol.text import clean_text

__all__ = [
    "MAX_DEPTH",
    "MAX_FRAME",
    "PROTOCOL_VERSION",
    "ErrorCode",
    "ProtocolError",
    "clean_text",
    "decode",
    "encode",
    "request_id",
    "server_messages",
    "validate_request",
]
