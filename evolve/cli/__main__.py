"""``python -m evolve.cli``: the ``mimic`` command."""

import sys

from evolve.cli import main

sys.exit(main())
