"""DeepRed's experience tree: a SQLite book of every game seen, and the book layer over any player.

:mod:`search.book.keys` (book keys and move codes), :mod:`search.book.reader` (games read into paths of edges),
:mod:`search.book.schema` (the book file's format, checked on open), :mod:`search.book.tree` (the book file),
:mod:`search.book.importer` (``mimic book import``) and :mod:`search.book.chooser` (choosing a move: the book
layer and the pure DeepRed player).
"""
