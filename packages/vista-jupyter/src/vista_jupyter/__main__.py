"""``python -m vista_jupyter``: the ``vista`` command (see ``vista --help``)."""

from __future__ import annotations

import sys

from ._cli import main

if __name__ == "__main__":
    sys.exit(main())
