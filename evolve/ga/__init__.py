"""The genetic algorithm and everything it is measured by: the evolution loop (DEAP), its objectives, coordinate
descent, the exact-fit ceiling, a run and its report.
"""
