"""`python -m tools.fuzz ...` (from the repository root)."""
import sys

from .cli import main

sys.exit(main())
