"""Throw bad and edge-case input at paddle: the command line of the `tools/fuzz/` package
(its docstring lists the options, the areas and the outcomes).

    python tools/fuzz_inputs.py --list      # the same as `python -m tools.fuzz --list`
"""
import os
import sys

# Run as a script, only tools/ is on the path: the repository root makes `tools.fuzz`
# importable. Appended, not prepended, so that `import paddle` still finds the installed
# package before the source tree's paddle/ (which has no built extension in CI).
sys.path.append(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from tools.fuzz.cli import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
