"""Reading the standard files mimic meets (EPD, PGN, any text file whatever its byte-order mark), with errors that
name the file and line.
"""
