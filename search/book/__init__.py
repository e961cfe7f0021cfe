"""DeepRed's experience tree: a SQLite book of every game seen, and the book layer over any player."""
