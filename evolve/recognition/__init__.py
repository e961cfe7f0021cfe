"""Player recognition (``mimic recognize``): clone each player from their games, then tell who played a game."""
