"""companion: a referee for real word-tile boards."""

__version__ = "0.1.0"
