"""asyncio streams over a door's own end of a client's fds (pipes, a pty's master side):
the loop reads when there is something to read and writes when there is room, and a
reader not drained stops reading (so a slow player slows the client down, not the door's
memory)."""

from __future__ import annotations

import asyncio


async def reader_of(fd: int) -> tuple[asyncio.StreamReader, asyncio.ReadTransport]:
    """A stream reading `fd`, and its transport, which owns `fd` (closed at the stream's
    end, or by closing the transport). A pty's master side ends with EIO once no process
    holds its other side: read() raises that OSError."""
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    pipe = open(fd, "rb", 0)  # noqa: SIM115 (the transport closes it)
    transport, _ = await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), pipe)
    return reader, transport


async def writer_of(fd: int) -> asyncio.StreamWriter:
    """A stream writing `fd`, which it owns (closed with it)."""
    loop = asyncio.get_running_loop()
    pipe = open(fd, "wb", 0)  # noqa: SIM115 (the transport closes it)
    transport, protocol = await loop.connect_write_pipe(
        lambda: asyncio.StreamReaderProtocol(asyncio.StreamReader()), pipe
    )
    return asyncio.StreamWriter(transport, protocol, None, loop)
