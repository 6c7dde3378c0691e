"""``python -m flip7ref``: the same command line as ``flip7ref`` (see `flip7ref.cli`)."""

import sys

from flip7ref.cli import main

sys.exit(main())
