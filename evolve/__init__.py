"""The genetic algorithm, its objectives and baselines, player recognition and the ``mimic`` command line."""
