"""``python -m flip7ref.cli``: the same command line as ``flip7ref``."""

import sys

from . import main

sys.exit(main())
