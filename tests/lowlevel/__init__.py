"""Low-level tests (a package: its test_bad_input.py and the high level's are two modules)."""
