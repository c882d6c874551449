"""Numbers both ends of the wire must agree on."""

PROTOCOL_VERSION = 1

# Largest frame, in bytes, either end sends or accepts; also the websocket `max_size`.
MAX_FRAME = 64 * 1024

# Deepest nesting of maps/arrays in a frame (the top-level map is depth 1). The deepest real
# message is a `state` (frame → view → players → player → scores) at 5; 8 leaves headroom
# while keeping every later walk over a decoded frame far from Python's recursion limit.
MAX_DEPTH = 8
