"""Games between players: openings (:mod:`search.games.openings`), one game (:mod:`search.games.game`), the PGN
log (:mod:`search.games.pgnlog`), the one game-set loop (:mod:`search.games.gameset`) under a match
(:mod:`search.games.match`) and a round robin (:mod:`search.games.roundrobin`), match statistics, tournament
ratings and test suites.
"""
