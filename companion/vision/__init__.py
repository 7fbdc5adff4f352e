"""Reading a board through the camera: finding the grid, reading every square, stabilising
over frames (the camera sources are companion.pi.sources). The interface to the outside is the board-reading
contract (``../shared/contracts/board-reading.md``), produced by :mod:`companion.vision.reading`."""

# The letter readers `companion read --backend` offers: the project's own classifier, or Tesseract.
BACKENDS: tuple[str, ...] = ("own", "tesseract")
