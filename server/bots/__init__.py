"""Bot players. Every bot sees only `view(game, seat)`, exactly what a human there sees."""
