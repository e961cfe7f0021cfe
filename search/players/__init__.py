"""Players: the spec grammar and registry of player kinds (:mod:`search.players.spec`), and the players built from
specs (:mod:`search.players.player`).
"""
