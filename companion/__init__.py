"""companion: a referee for real word-tile boards."""

import os

# The vision code multiplies many small matrices; OpenBLAS's threads only fight over the Pi's
# cores for them (measured 10-20x slower on a loaded machine). Set before numpy loads; a
# deployment that wants otherwise sets the variable itself.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

__version__ = "0.1.0"
