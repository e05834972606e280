"""The tofu-solve version (its own module, so that every stage may read it)."""

__version__ = "0.1.0"
