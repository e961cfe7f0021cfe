"""``mimic export``'s library: an organism as C, Rust or JSON source, a perspective net as raw little-endian integers.

:mod:`evolve.export.table` chooses a source's kind and a format by name; :mod:`evolve.export.organism` folds an
organism's genes into the tables and constants every format writes (:mod:`evolve.export.c_source`,
:mod:`evolve.export.rust_source`, :mod:`evolve.export.json_export`); :mod:`evolve.export.pnet` writes a net's
integers (docs/export.md gives its layout byte by byte; tools/pnet_reference.py reads it in plain Python). Nothing
here prints: the command line (:mod:`evolve.cli.export`) does.
"""
