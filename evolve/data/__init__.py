"""The GA's data: label files parsed and cached, their feature matrices, and a player's moves from PGN."""
