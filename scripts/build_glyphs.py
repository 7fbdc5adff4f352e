#!/usr/bin/env python3
"""Render the glyph atlas the vision code learns letters from and draws synthetic tiles with.

Tile makers print letters in bold geometric or grotesque sans faces, a few in serif faces; we
render every letter of every tile set, the digits of the tile values and ``?`` in a spread of
such fonts from Debian's packages (fonts-urw-base35, fonts-dejavu-core, fonts-liberation2,
fonts-freefont-ttf), so that a classifier trained on them meets a stranger's tiles having seen
shapes like theirs. The output is deterministic (same fonts, same bytes) and ships with the
package, so the companion needs neither the fonts nor Pillow at run time.

    python scripts/build_glyphs.py [--out companion/vision/data/glyphs.npz]
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import sys
import zipfile
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageFont

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from companion.core.tiles import get_tileset, tileset_names  # noqa: E402

# (file, family label). Chosen for likeness to tile faces: URW Gothic is an Avant Garde Gothic
# clone, the face closest to the classic tiles; the grotesques cover most other sets.
FONTS = [
    ("/usr/share/fonts/opentype/urw-base35/URWGothic-Demi.otf", "urw-gothic-demi"),
    ("/usr/share/fonts/opentype/urw-base35/URWGothic-Book.otf", "urw-gothic-book"),
    ("/usr/share/fonts/opentype/urw-base35/NimbusSans-Bold.otf", "nimbus-sans-bold"),
    ("/usr/share/fonts/opentype/urw-base35/NimbusSans-Regular.otf", "nimbus-sans"),
    ("/usr/share/fonts/opentype/urw-base35/NimbusSansNarrow-Bold.otf", "nimbus-sans-narrow-bold"),
    ("/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf", "dejavu-sans-bold"),
    ("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", "dejavu-sans"),
    ("/usr/share/fonts/truetype/dejavu/DejaVuSansCondensed-Bold.ttf", "dejavu-sans-condensed-bold"),
    ("/usr/share/fonts/truetype/liberation2/LiberationSans-Bold.ttf", "liberation-sans-bold"),
    ("/usr/share/fonts/truetype/freefont/FreeSansBold.ttf", "free-sans-bold"),
    ("/usr/share/fonts/opentype/urw-base35/NimbusRoman-Bold.otf", "nimbus-roman-bold"),
    ("/usr/share/fonts/opentype/urw-base35/C059-Bold.otf", "c059-bold"),
    ("/usr/share/fonts/opentype/urw-base35/URWBookman-Demi.otf", "urw-bookman-demi"),
]
# Families the reader never learns from: the renderer draws a stranger's tiles with them
# (bench/vision.py's stranger benchmark), so that its letters are measured on shapes the
# classifier has not seen. Whole families, none of them a relative of a family above.
HELD_OUT = [
    ("/usr/share/fonts/truetype/roboto/unhinted/RobotoTTF/Roboto-Bold.ttf", "roboto-bold"),
    ("/usr/share/fonts/opentype/cantarell/Cantarell-Bold.otf", "cantarell-bold"),
    ("/usr/share/fonts/truetype/dejavu/DejaVuSerif-Bold.ttf", "dejavu-serif-bold"),
    ("/usr/share/fonts/truetype/liberation2/LiberationMono-Bold.ttf", "liberation-mono-bold"),
    ("/usr/share/fonts/opentype/urw-base35/P052-Bold.otf", "p052-bold"),
    ("/usr/share/fonts/truetype/roboto/unhinted/RobotoCondensed-Bold.ttf", "roboto-condensed-bold"),
]
# Families only the learned square reader's training scenes draw (companion/sim/trainscene.py):
# more shapes to learn letters from than the 13 above, none of them a held-out family or a
# relative of one (no Roboto, Cantarell, DejaVu Serif, Liberation Mono, P052). The rules' letter
# network (data/letters.npz) and every other scene keep to the 13.
TRAIN_ONLY = [
    ("/usr/share/fonts/truetype/freefont/FreeSerifBold.ttf", "free-serif-bold"),
    ("/usr/share/fonts/truetype/freefont/FreeMonoBold.ttf", "free-mono-bold"),
    ("/usr/share/fonts/truetype/freefont/FreeSans.ttf", "free-sans"),
    ("/usr/share/fonts/opentype/urw-base35/NimbusMonoPS-Bold.otf", "nimbus-mono-ps-bold"),
    ("/usr/share/fonts/truetype/liberation2/LiberationSerif-Bold.ttf", "liberation-serif-bold"),
    ("/usr/share/fonts/truetype/liberation2/LiberationSans-Regular.ttf", "liberation-sans"),
    ("/usr/share/fonts/truetype/dejavu/DejaVuSansMono-Bold.ttf", "dejavu-sans-mono-bold"),
    ("/usr/share/fonts/truetype/dejavu/DejaVuSansCondensed.ttf", "dejavu-sans-condensed"),
    ("/usr/share/fonts/truetype/dejavu/DejaVuSans-ExtraLight.ttf", "dejavu-sans-extralight"),
    ("/usr/share/fonts/opentype/urw-base35/NimbusRoman-Regular.otf", "nimbus-roman"),
    ("/usr/share/fonts/opentype/urw-base35/C059-Roman.otf", "c059-roman"),
    ("/usr/share/fonts/opentype/urw-base35/URWBookman-Light.otf", "urw-bookman-light"),
    ("/usr/share/fonts/opentype/urw-base35/NimbusSansNarrow-Regular.otf", "nimbus-sans-narrow"),
]
EM = 96  # pixels per em when rendering; glyphs are stored cropped to their ink


def characters() -> list[str]:
    letters: set[str] = set()
    for name in tileset_names():
        letters |= get_tileset(name).alphabet
    return sorted(letters) + [str(d) for d in range(10)] + ["?"]


def render(font: ImageFont.FreeTypeFont, ch: str) -> np.ndarray:
    canvas = Image.new("L", (EM * 2, EM * 2), 0)
    ImageDraw.Draw(canvas).text((EM // 2, EM // 4), ch, font=font, fill=255)
    ink = np.asarray(canvas)
    ys, xs = np.nonzero(ink > 16)
    if len(xs) == 0:
        raise SystemExit(f"font {font.path} has no glyph for {ch!r}")
    return ink[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1].copy()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--held-out", action="store_true",
                        help="the held-out families (glyphs_heldout.npz, the renderer's stranger tiles)")
    parser.add_argument("--train-only", action="store_true",
                        help="the families only the square reader's training scenes draw (glyphs_train.npz)")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    if args.held_out and args.train_only:
        print("build_glyphs: --held-out or --train-only, not both", file=sys.stderr)
        return 2
    fonts, name = (HELD_OUT, "glyphs_heldout") if args.held_out else (TRAIN_ONLY, "glyphs_train") \
        if args.train_only else (FONTS, "glyphs")
    data = ROOT / "companion" / "vision" / "data"
    args.out = args.out or data / f"{name}.npz"
    missing = [f for f, _ in fonts if not Path(f).is_file()]
    if missing:
        print(
            "build_glyphs: missing fonts (apt-get install fonts-urw-base35 fonts-dejavu-core "
            "fonts-liberation2 fonts-freefont-ttf fonts-roboto-unhinted fonts-cantarell): "
            f"{', '.join(missing)}",
            file=sys.stderr,
        )
        return 2
    chars = characters()
    arrays: dict[str, np.ndarray] = {}
    index = []
    for fi, (path, family) in enumerate(fonts):
        font = ImageFont.truetype(path, EM)
        for ch in chars:
            key = f"f{fi}_u{ord(ch):04x}"
            arrays[key] = render(font, ch)
            index.append([key, family, ch])
    meta = {"em": EM, "fonts": [family for _, family in fonts], "characters": chars, "index": index}
    arrays["meta"] = np.frombuffer(json.dumps(meta, ensure_ascii=False, sort_keys=True).encode(), dtype=np.uint8)
    buf = io.BytesIO()
    # An .npz written by hand: np.savez_compressed stamps each member with the current time,
    # and the same glyphs must give the same bytes.
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for key in sorted(arrays):
            member = io.BytesIO()
            np.lib.format.write_array(member, arrays[key], allow_pickle=False)
            info = zipfile.ZipInfo(f"{key}.npy", date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(info, member.getvalue())
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_bytes(buf.getvalue())
    digest = hashlib.sha256(buf.getvalue()).hexdigest()[:16]
    print(f"{args.out}: {len(index)} glyphs, {len(fonts)} fonts, {len(buf.getvalue())} bytes, sha256 {digest}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
