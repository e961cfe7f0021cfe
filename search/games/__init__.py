"""Games between players: one game and a match (:mod:`search.games.match`), round robins, match statistics,
tournament ratings and test suites.
"""
