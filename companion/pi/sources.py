"""Camera sources: where frames come from, behind one small protocol.

Shaped like gpiozero's pin factories: one abstract interface, :class:`FrameSource`, and one
small class per backend. The rest of the program reads frames and never asks where they came
from:

- :class:`Picamera2Source`: the Raspberry Pi camera (``picamera2`` is imported only when one is
  made, so that this module imports on any machine),
- :class:`OpenCVDeviceSource`: a webcam or capture device through OpenCV (an index or a path),
- :class:`FolderSource`: the images of a folder in natural order (board-2 before board-10),
- the simulated table's camera (:class:`companion.sim.camera.SyntheticSource`: the renderer's
  photos with known truth) is a source too; it lives with the simulated table, which the
  reader never imports, and :func:`open_source` makes it only when the caller hands it over.

:func:`open_source` makes one from a short string (``device:0``, ``folder:/photos,loop``, ...),
the form a command line or a config file gives. Every frame carries its timestamp from an
injected monotonic clock and a sequence number counted by the source.
"""

from __future__ import annotations

import os
import re
import sys
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Self

import cv2
import numpy as np

from companion.core.errors import CompanionError
from companion.core.imagesize import MAX_IMAGE_BYTES, check_pixels

Clock = Callable[[], float]

IMAGE_SUFFIXES = frozenset({".jpg", ".jpeg", ".png", ".bmp", ".tif", ".tiff", ".webp"})
READ_RETRIES = 5  # a device may drop a frame now and then; this many failures in a row is an error


@dataclass(frozen=True, eq=False)
class Frame:
    """One picture from a source: BGR uint8 pixels, when it was taken (the source's clock) and
    its number in the source's sequence (0, 1, 2, ...). ``meta`` holds what a source knows
    beyond the pixels: the file it came from, or the synthetic scene with its truth."""

    image: np.ndarray
    timestamp: float
    sequence: int
    meta: Mapping[str, Any] = field(default_factory=dict)


class FrameSource(ABC):
    """A camera: ``read()`` gives the next frame, or None when the source has no more (the end
    of a folder; a live camera never ends, it raises when it fails). Use it as a context
    manager, or call ``close()``."""

    def __init__(self, clock: Clock = time.monotonic) -> None:
        self._clock = clock
        self._sequence = 0
        self._closed = False

    @abstractmethod
    def _grab(self) -> tuple[np.ndarray, Mapping[str, Any]] | None:
        """The next picture and what is known of it, or None at the end."""

    def _release(self) -> None:
        """Free the device; called once by close()."""

    def read(self) -> Frame | None:
        if self._closed:
            raise CompanionError(f"{self.name}: read after close")
        got = self._grab()
        if got is None:
            return None
        image, meta = got
        frame = Frame(image, float(self._clock()), self._sequence, meta)
        self._sequence += 1
        return frame

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self._release()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __iter__(self) -> Iterator[Frame]:
        while (frame := self.read()) is not None:
            yield frame

    @property
    def name(self) -> str:
        return type(self).__name__


# ---------------------------------------------------------------------------------------------
# Raspberry Pi camera


class Picamera2Source(FrameSource):
    """The Raspberry Pi camera through Picamera2 (Raspberry Pi OS: ``apt install
    python3-picamera2``). Frames are still-quality captures of ``size`` in BGR order
    (Picamera2's ``RGB888`` is laid out B, G, R: what OpenCV expects)."""

    def __init__(self, camera: int = 0, size: tuple[int, int] | None = None, clock: Clock = time.monotonic,
                 controls: Mapping[str, Any] | None = None) -> None:
        super().__init__(clock)
        Picamera2 = load_picamera2()
        try:
            self._camera = Picamera2(camera)
            main: dict[str, Any] = {"format": "RGB888"}
            if size is not None:
                main["size"] = tuple(size)
            self._camera.configure(self._camera.create_still_configuration(main=main))
            # Only what this camera has: a Camera Module 2 or an HQ camera has no autofocus.
            known = getattr(self._camera, "camera_controls", {})
            wanted = {k: v for k, v in (controls or {}).items() if k in known}
            if wanted:
                self._camera.set_controls(wanted)
            self._camera.start()
        except Exception as exc:  # noqa: BLE001 - libcamera raises assorted errors when no camera is attached
            raise CompanionError(f"cannot start Raspberry Pi camera {camera}: {_one_line(exc)}") from None
        self._index = camera

    def _grab(self) -> tuple[np.ndarray, Mapping[str, Any]] | None:
        try:
            image = self._camera.capture_array("main")
        except Exception as exc:  # noqa: BLE001 - whatever libcamera raises, the user gets one line
            raise CompanionError(f"Raspberry Pi camera {self._index} stopped giving frames: {_one_line(exc)}") from None
        return np.ascontiguousarray(image[..., :3]), {}

    def _release(self) -> None:
        try:
            self._camera.stop()
        finally:
            self._camera.close()


def picamera2_controls(focus_cm: float | None, exposure_ms: float | None, gain: float | None) -> dict[str, Any]:
    """libcamera's controls for the configuration's camera settings. The lens position is in
    dioptres (1 / metres): a board 57.5 cm below is 1.74. AfMode 0 is manual, 2 continuous."""
    controls: dict[str, Any] = {"AfMode": 2} if focus_cm is None else {"AfMode": 0, "LensPosition": 100.0 / focus_cm}
    if exposure_ms is not None:
        controls.update(AeEnable=False, ExposureTime=int(round(exposure_ms * 1000)))
    if gain is not None:
        controls["AnalogueGain"] = float(gain)
    return controls


def load_picamera2() -> Any:
    """Picamera2's class, or one line saying why not. Not only a missing package: a picamera2
    that is there but fails to load (numpy 2 in the venv over the numpy 1.24 Bookworm's
    picamera2 and simplejpeg are built against: "numpy.dtype size changed", picamera2 issues
    1088 and 1211; a libcamera that does not match) raises whatever it raises, and the service
    must say that, not restart for ever behind a traceback."""
    try:
        from picamera2 import Picamera2  # type: ignore[import-not-found]  # only on a Pi: imported here
    except ModuleNotFoundError as exc:
        if exc.name not in ("picamera2", None):
            raise CompanionError(f"the Raspberry Pi camera library cannot load: {_one_line(exc)}") from None
        raise CompanionError(
            "the picamera2 source needs the Raspberry Pi camera library (apt install python3-picamera2); "
            "elsewhere use device:0 or folder:PATH"
        ) from None
    except Exception as exc:  # noqa: BLE001 - a broken install raises anything; the user gets the cause
        hint = ""
        if "numpy" in str(exc).lower():
            hint = (f" (numpy {np.__version__} is loaded: picamera2 needs the system's numpy 1.x; "
                    "reinstall with `sudo make install`, see docs/pi.md)")
        raise CompanionError(f"the Raspberry Pi camera library cannot load: {_one_line(exc)}{hint}") from None
    return Picamera2


# ---------------------------------------------------------------------------------------------
# OpenCV device


class OpenCVDeviceSource(FrameSource):
    """A camera OpenCV can open: a device index (``0``) or a path (``/dev/video2``; a video
    file also works and ends like a folder). A device that cannot be opened, or gives no frame
    ``retries`` times in a row, is a one-line error."""

    def __init__(self, device: int | str, clock: Clock = time.monotonic, retries: int = READ_RETRIES,
                 size: tuple[int, int] | None = None, exposure_ms: float | None = None,
                 warn: Callable[[str], None] | None = None) -> None:
        super().__init__(clock)
        self.device = device
        self.retries = max(1, int(retries))
        check_device_path(device)
        self._capture = _quietly(lambda: cv2.VideoCapture(device))
        if not self._capture.isOpened():
            self._capture.release()
            raise CompanionError(f"cannot open camera device {device}")
        warn = warn or (lambda line: print(line, file=sys.stderr, flush=True))
        if size is not None:
            # MJPG first: most USB webcams give 1080p only compressed (raw YUYV tops out lower).
            self._capture.set(cv2.CAP_PROP_FOURCC, cv2.VideoWriter_fourcc(*"MJPG"))
            self._capture.set(cv2.CAP_PROP_FRAME_WIDTH, size[0])
            self._capture.set(cv2.CAP_PROP_FRAME_HEIGHT, size[1])
            got = (int(self._capture.get(cv2.CAP_PROP_FRAME_WIDTH)), int(self._capture.get(cv2.CAP_PROP_FRAME_HEIGHT)))
            if got != tuple(size) and got != (0, 0):
                warn(f"camera device {device}: asked for {size[0]}x{size[1]}, it gives {got[0]}x{got[1]}")
        if exposure_ms is not None:
            # V4L2 through OpenCV: auto exposure 1 is manual, and the exposure is in 100 µs units.
            self._capture.set(cv2.CAP_PROP_AUTO_EXPOSURE, 1)
            self._capture.set(cv2.CAP_PROP_EXPOSURE, exposure_ms * 10)
        count = self._capture.get(cv2.CAP_PROP_FRAME_COUNT)
        self._finite = isinstance(device, str) and os.path.isfile(device) and count > 0

    def _grab(self) -> tuple[np.ndarray, Mapping[str, Any]] | None:
        for _ in range(self.retries):
            ok, image = self._capture.read()
            if ok and image is not None and image.size:
                if image.ndim == 2:
                    image = cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
                return image, {"device": self.device}
            if self._finite:
                return None  # the end of a video file
        raise CompanionError(f"camera device {self.device} gave no frame in {self.retries} tries")

    def _release(self) -> None:
        self._capture.release()

    @property
    def name(self) -> str:
        return f"camera device {self.device}"


def check_device_path(device: int | str) -> None:
    """A device named by its path must be there (an index or a URL is only known by opening it)."""
    if isinstance(device, str) and "://" not in device and not os.path.exists(device):
        raise CompanionError(f"camera device {device}: no such device")


def _quietly(make: Callable[[], Any]) -> Any:
    """Runs ``make`` with OpenCV's own log silenced: a missing camera makes it print warnings
    to stderr, and the user gets our one line instead."""
    logging = getattr(getattr(cv2, "utils", None), "logging", None)
    if logging is None:
        return make()
    before = logging.getLogLevel()
    logging.setLogLevel(logging.LOG_LEVEL_SILENT)
    try:
        return make()
    finally:
        logging.setLogLevel(before)


# ---------------------------------------------------------------------------------------------
# A folder of images


def natural_key(name: str) -> tuple:
    """Sort key that orders embedded numbers by value: board-01 < board-2 < board-10."""
    parts = re.split(r"(\d+)", name.casefold())
    return tuple((0, int(p), p) if p.isdigit() else (1, 0, p) for p in parts if p)


class FolderSource(FrameSource):
    """The images of a folder (JPEG, PNG, BMP, TIFF, WebP), in natural order of their names,
    once or, with ``loop``, round and round. A file that does not decode is an error naming it."""

    def __init__(self, folder: str | os.PathLike[str], loop: bool = False, clock: Clock = time.monotonic) -> None:
        super().__init__(clock)
        self.folder = Path(folder)
        self.loop = loop
        if not self.folder.is_dir():
            raise CompanionError(f"{self.folder}: no such folder" if not self.folder.exists() else f"{self.folder}: not a folder")
        try:
            names = [p for p in self.folder.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES and p.is_file()]
        except PermissionError:
            raise CompanionError(f"{self.folder}: permission denied") from None
        if not names:
            raise CompanionError(f"{self.folder}: no images (looked for {', '.join(sorted(IMAGE_SUFFIXES))})")
        self.paths: tuple[Path, ...] = tuple(sorted(names, key=lambda p: natural_key(p.name)))
        self._next = 0

    def _grab(self) -> tuple[np.ndarray, Mapping[str, Any]] | None:
        if self._next >= len(self.paths):
            if not self.loop:
                return None
            self._next = 0
        path = self.paths[self._next]
        self._next += 1
        try:
            size = path.stat().st_size
            if size > MAX_IMAGE_BYTES:
                raise CompanionError(f"{path}: {size} bytes is too large for a camera image")
            data = np.fromfile(path, np.uint8)
        except OSError as exc:
            raise CompanionError(f"{path}: cannot read ({exc.strerror or exc})") from None
        if data.size:
            check_pixels(data.tobytes(), str(path))  # before decoding: see imagesize
        image = cv2.imdecode(data, cv2.IMREAD_COLOR) if data.size else None
        if image is None:
            raise CompanionError(f"{path}: not an image OpenCV can decode")
        return image, {"path": str(path)}

    @property
    def name(self) -> str:
        return f"folder {self.folder}"


# ---------------------------------------------------------------------------------------------
# From a string

SOURCE_FORMS = "picamera2[:CAMERA], device:INDEX|PATH, folder:PATH[,loop], synthetic[:seed=N,size=WxH,loop]"


def open_source(spec: str, clock: Clock = time.monotonic, synthetic: Callable[..., FrameSource] | None = None) -> FrameSource:
    """A source from its short form: ``picamera2``, ``picamera2:1``, ``device:0``,
    ``device:/dev/video2``, ``folder:/path/to/photos``, ``folder:/path,loop``, ``synthetic``,
    ``synthetic:seed=3``, ``synthetic:seed=3,size=640x480,loop``. ``synthetic`` is the simulated
    table's camera class (:class:`companion.sim.camera.SyntheticSource`), passed by a caller
    that offers it: this package never imports the simulated table."""
    if not isinstance(spec, str) or not spec.strip():
        raise CompanionError(f"empty camera source (use {SOURCE_FORMS})")
    kind, sep, rest = spec.strip().partition(":")
    kind = kind.lower()
    if kind == "picamera2":
        if sep and not rest.strip().isdigit():
            raise CompanionError(f"camera source {spec!r}: picamera2 takes a camera number (picamera2:0)")
        return Picamera2Source(int(rest) if sep else 0, clock=clock)
    if kind == "device":
        if not rest.strip():
            raise CompanionError(f"camera source {spec!r}: device needs an index or a path (device:0, device:/dev/video2)")
        target = rest.strip()
        return OpenCVDeviceSource(int(target) if target.isdigit() else target, clock=clock)
    if kind == "folder":
        path, loop = rest, False
        if path.lower().endswith(",loop"):
            path, loop = path[: -len(",loop")], True
        if not path.strip():
            raise CompanionError(f"camera source {spec!r}: folder needs a path (folder:/path/to/photos)")
        return FolderSource(path, loop=loop, clock=clock)
    if kind == "synthetic":
        options = _options(spec, rest if sep else "", {"seed", "size", "loop"})
        seed = _integer(spec, options.get("seed", "0"), "seed")
        size = None
        if "size" in options:
            m = re.fullmatch(r"(\d+)x(\d+)", options["size"])
            if not m or min(int(m[1]), int(m[2])) < 64:
                raise CompanionError(f"camera source {spec!r}: size is WIDTHxHEIGHT, at least 64x64 (size=640x480)")
            size = (int(m[1]), int(m[2]))
        if synthetic is None:
            raise CompanionError(f"camera source {spec!r}: the synthetic camera is not offered here")
        return synthetic(seed=seed, size=size, loop="loop" in options, clock=clock)
    raise CompanionError(f"unknown camera source {spec!r} (use {SOURCE_FORMS})")


def _options(spec: str, text: str, known: set[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        key, eq, value = part.partition("=")
        key = key.strip().lower()
        if key not in known:
            raise CompanionError(f"camera source {spec!r}: unknown option {key!r} (known: {', '.join(sorted(known))})")
        out[key] = value.strip() if eq else ""
    return out


def _integer(spec: str, text: str, what: str) -> int:
    if not re.fullmatch(r"\d+", text):
        raise CompanionError(f"camera source {spec!r}: {what} must be a whole number, not {text!r}")
    return int(text)


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text[:200]
