"""``python -m flip7ref.cli``: the same command line as ``flip7ref``."""

import sys

from flip7ref.cli import main

sys.exit(main())
