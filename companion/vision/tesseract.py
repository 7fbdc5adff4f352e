"""The Tesseract letter backend (``companion read --backend tesseract``): each face's
normalised letter picture read by Tesseract in single-character mode (``--psm 10``, languages
eng+deu), what it reads mapped to the tile set's letters.

The turn comes from the corner of the value digits when the face shows them (one call per
tile); otherwise each of the four turns is read and the most confident kept. Tesseract runs as
a process per call, so this backend is slow (tens of milliseconds a tile): it is there to
compare against, not for the table's stream. Everything else of the reading (kinds, faces,
colours, tokens) is the project's own.
"""

from __future__ import annotations

import shutil

import cv2
import numpy as np

from companion.core.errors import CompanionError
from companion.vision.face import FaceInk
from companion.vision.letters import CORNER_OF_TURN, LetterGuess

LANGUAGES = "eng+deu"
_PAD = 24  # white border around the letter: Tesseract wants room around a character
_HEIGHT = 64  # the letter's height in the picture given to Tesseract


def _module():
    try:
        import pytesseract
    except ImportError:
        raise CompanionError("the tesseract backend needs pytesseract (pip install 'companion[ocr]')") from None
    if shutil.which(pytesseract.pytesseract.tesseract_cmd) is None and shutil.which("tesseract") is None:
        raise CompanionError("the tesseract backend needs the tesseract program (apt-get install tesseract-ocr)")
    return pytesseract


def picture_for_tesseract(glyph: np.ndarray, turns: int) -> np.ndarray:
    """The normalised letter (0 body .. 1 ink) turned back ``turns`` quarter turns, as black
    ink on white, large, with a white border."""
    g = np.rot90(glyph, k=turns)
    ink = cv2.resize(g.astype(np.float32), (_HEIGHT, _HEIGHT), interpolation=cv2.INTER_CUBIC)
    img = np.clip(255.0 * (1.0 - ink), 0, 255).astype(np.uint8)
    return cv2.copyMakeBorder(img, _PAD, _PAD, _PAD, _PAD, cv2.BORDER_CONSTANT, value=255)


# Characters Tesseract reads for a lone capital that are not letters. (A whitelist of the tile
# set's letters would avoid them, but Tesseract 5's LSTM engine then returns nothing for a
# set with letters outside ASCII.)
_LOOKALIKE = {"0": "O", "1": "I", "|": "I", "!": "I", "5": "S", "2": "Z", "8": "B", "6": "G", "$": "S", "€": "E"}


def _read_one(pytesseract, picture: np.ndarray, letters: str) -> tuple[str | None, float]:
    config = "--psm 10"
    data = pytesseract.image_to_data(picture, lang=LANGUAGES, config=config, output_type=pytesseract.Output.DICT)
    best: tuple[str | None, float] = (None, 0.0)
    for text, conf in zip(data.get("text", []), data.get("conf", [])):
        text = (text or "").strip().upper()
        text = _LOOKALIKE.get(text, text)
        if text not in letters:
            continue
        try:
            c = float(conf)
        except (TypeError, ValueError):
            continue
        if len(text) == 1 and c > best[1]:
            best = (text, c / 100.0)
    return best


def read_faces(
    faces: dict[tuple[int, int], FaceInk], letters: list[str], values: dict[str, int]
) -> dict[tuple[int, int], LetterGuess]:
    """(letter, turn) of each face with a glyph, as LetterGuesses (p_letter: Tesseract's own
    confidence; p_rotation: 0.9 when the digits' corner gave the turn, else that of the read)."""
    pytesseract = _module()
    alphabet = "".join(sorted(letters))
    out: dict[tuple[int, int], LetterGuess] = {}
    turn_of_corner = {v: k for k, v in CORNER_OF_TURN.items()}
    for rc, face in faces.items():
        if face.glyph is None:
            continue
        if face.corner in turn_of_corner:
            turns = [turn_of_corner[face.corner]]
        else:
            turns = [0, 1, 2, 3]
        reads = []
        for k in turns:
            letter, conf = _read_one(pytesseract, picture_for_tesseract(face.glyph, k), alphabet)
            if letter is not None and letter in letters:
                reads.append((conf, k, letter))
        if not reads:
            # Tesseract saw no letter: keep the tile, with no belief in what it says.
            out[rc] = LetterGuess(letters[0], 90 * turns[0], 0.0, 0.25)
            continue
        conf, k, letter = max(reads)
        p_rot = 0.9 if len(turns) == 1 else conf / max(sum(c for c, _, _ in reads), 1e-6)
        out[rc] = LetterGuess(letter, 90 * k, float(np.clip(conf, 0.0, 1.0)), float(p_rot))
    return out
