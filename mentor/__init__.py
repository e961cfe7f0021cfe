"""Position samplers, the UCI mentor pool, the built-in mentor and EPD label files."""
