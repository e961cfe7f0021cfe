"""What every package runs on and may import: the worker pool (local or Dask) and provenance. Imports nothing of
mimic's outside this package.
"""
