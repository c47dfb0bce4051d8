"""``python -m envhive``: the ``envhive`` command (``python -m envhive --cmake-dir`` for the SDK)."""

from __future__ import annotations

import sys

from envhive.cli import main

if __name__ == "__main__":
    sys.exit(main())
