"""paddle's version, in a module of its own so the files that record it (saved models)
import it without importing the whole package."""
__version__ = "0.1.0"
