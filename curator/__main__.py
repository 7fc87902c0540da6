from __future__ import annotations

from curator.cli import main

main()
