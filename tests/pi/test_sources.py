"""Camera sources: one protocol, one class per backend, made from a short string."""

from __future__ import annotations

import sys
import types
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from companion.core.errors import CompanionError
from companion.sim.camera import HandPass, SyntheticSource
from companion.pi import sources
from companion.pi.sources import (
    FolderSource,
    Frame,
    FrameSource,
    OpenCVDeviceSource,
    Picamera2Source,
    natural_key,
    open_source,
)


class FakeClock:
    def __init__(self, start: float = 100.0, step: float = 0.5) -> None:
        self.now, self.step = start, step

    def __call__(self) -> float:
        self.now += self.step
        return self.now


def write_images(folder: Path, names: list[str]) -> dict[str, int]:
    """Tiny images whose pixel value tells which file they came from."""
    folder.mkdir(parents=True, exist_ok=True)
    values = {}
    for i, name in enumerate(names):
        value = 10 * (i + 1)
        assert cv2.imwrite(str(folder / name), np.full((8, 12, 3), value, np.uint8))
        values[name] = value
    return values


def one_line(exc: pytest.ExceptionInfo[BaseException]) -> str:
    text = str(exc.value)
    assert text and "\n" not in text
    return text


# ---------------------------------------------------------------------------------------------
# Folder


def test_natural_order() -> None:
    names = ["board-10.jpg", "board-2.jpg", "board-01.jpg", "Board-3.png", "a.jpg", "board-00a.jpg", "board-00.jpg"]
    assert sorted(names, key=natural_key) == [
        "a.jpg", "board-00.jpg", "board-00a.jpg", "board-01.jpg", "board-2.jpg", "Board-3.png", "board-10.jpg"]


def test_a_folder_is_read_in_natural_order_with_timestamps_and_numbers(tmp_path: Path) -> None:
    values = write_images(tmp_path, ["board-10.png", "board-2.png", "board-01.png"])
    (tmp_path / "notes.txt").write_text("not an image")
    clock = FakeClock()
    with FolderSource(tmp_path, clock=clock) as source:
        frames = list(source)
        assert source.read() is None  # the end stays the end
    assert [int(f.image[0, 0, 0]) for f in frames] == [values["board-01.png"], values["board-2.png"], values["board-10.png"]]
    assert [f.sequence for f in frames] == [0, 1, 2]
    assert [f.timestamp for f in frames] == [100.5, 101.0, 101.5]
    assert all(f.image.dtype == np.uint8 and f.image.shape == (8, 12, 3) for f in frames)
    assert frames[0].meta["path"].endswith("board-01.png")


def test_a_looping_folder_starts_again(tmp_path: Path) -> None:
    write_images(tmp_path, ["b.png", "a.png"])
    source = FolderSource(tmp_path, loop=True, clock=FakeClock())
    got = [source.read() for _ in range(5)]
    assert [int(f.image[0, 0, 0]) for f in got] == [20, 10, 20, 10, 20]
    assert [f.sequence for f in got] == [0, 1, 2, 3, 4]
    source.close()
    with pytest.raises(CompanionError):
        source.read()


def test_an_unreadable_file_is_an_error_naming_it(tmp_path: Path) -> None:
    write_images(tmp_path, ["board-1.png", "board-3.png"])
    (tmp_path / "board-2.jpg").write_bytes(b"\xff\xd8 this is not really a JPEG")
    source = FolderSource(tmp_path)
    assert source.read() is not None
    with pytest.raises(CompanionError) as exc:
        source.read()
    assert "board-2.jpg" in one_line(exc)


@pytest.mark.parametrize("make", ["missing", "file", "empty"])
def test_a_folder_that_is_not_one_of_images_is_an_error(tmp_path: Path, make: str) -> None:
    target = tmp_path / "photos"
    if make == "file":
        target.write_text("x")
    elif make == "empty":
        target.mkdir()
        (target / "readme.txt").write_text("x")
    with pytest.raises(CompanionError) as exc:
        FolderSource(target)
    assert str(target) in one_line(exc)


# ---------------------------------------------------------------------------------------------
# From a string


def test_open_source_makes_a_folder_source(tmp_path: Path) -> None:
    write_images(tmp_path, ["x1.png", "x2.png"])
    with open_source(f"folder:{tmp_path}") as source:
        assert isinstance(source, FolderSource) and not source.loop
        assert len(list(source)) == 2
    with open_source(f"folder:{tmp_path},loop") as source:
        assert isinstance(source, FolderSource) and source.loop
        assert sum(1 for _ in zip(range(5), source)) == 5


@pytest.mark.parametrize(
    "spec",
    ["", "   ", "camera", "webcam:0", "device", "device:", "folder", "folder:", "folder:,loop",
     "synthetic:seed=x", "synthetic:seed=-1", "synthetic:colour=red", "synthetic:size=big", "synthetic:size=10x10",
     "picamera2:front", "device:/dev/no-such-video-device-here"],
)
def test_bad_source_strings_are_one_line_errors(spec: str) -> None:
    with pytest.raises(CompanionError) as exc:
        open_source(spec)
    one_line(exc)


def test_a_source_string_of_an_unknown_kind_lists_the_known_ones() -> None:
    with pytest.raises(CompanionError) as exc:
        open_source("kinect:0")
    text = one_line(exc)
    for kind in ("picamera2", "device:", "folder:", "synthetic"):
        assert kind in text


# ---------------------------------------------------------------------------------------------
# Picamera2


def test_picamera2_without_the_library_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "picamera2", None)  # import picamera2 now fails, as off a Pi
    with pytest.raises(CompanionError) as exc:
        Picamera2Source()
    assert "picamera2" in one_line(exc)
    with pytest.raises(CompanionError):
        open_source("picamera2")


@pytest.mark.parametrize("body, said", [
    # numpy 2 in the venv over the numpy 1.24 Bookworm's picamera2 is built against (picamera2
    # issues 1088, 1211): not an ImportError, and the service restarted for ever behind it.
    ("raise ValueError('numpy.dtype size changed, may indicate binary incompatibility. "
     "Expected 96 from C header, got 88 from PyObject')", "numpy.dtype size changed"),
    # picamera2 there, one of its own imports missing: that module is named, not picamera2.
    ("import simplejpeg_not_installed_here", "simplejpeg_not_installed_here"),
])
def test_a_picamera2_that_fails_to_load_says_why(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                 body: str, said: str) -> None:
    (tmp_path / "picamera2").mkdir()
    (tmp_path / "picamera2" / "__init__.py").write_text(body + "\n")
    monkeypatch.delitem(sys.modules, "picamera2", raising=False)
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(CompanionError) as exc:
        Picamera2Source()
    line = one_line(exc)
    assert "cannot load" in line and said in line and "apt install" not in line
    if "numpy" in said:
        assert f"numpy {np.__version__} is loaded" in line


def test_picamera2_frames_come_from_capture_array(monkeypatch: pytest.MonkeyPatch) -> None:
    log: list[Any] = []

    class FakePicamera2:
        def __init__(self, num: int = 0) -> None:
            log.append(("open", num))

        def create_still_configuration(self, main: dict) -> dict:
            return {"main": main}

        def configure(self, config: dict) -> None:
            log.append(("configure", config["main"]))

        def start(self) -> None:
            log.append("start")

        def capture_array(self, name: str = "main") -> np.ndarray:
            return np.full((6, 4, 3), 7, np.uint8)

        def stop(self) -> None:
            log.append("stop")

        def close(self) -> None:
            log.append("close")

    monkeypatch.setitem(sys.modules, "picamera2", types.SimpleNamespace(Picamera2=FakePicamera2))
    with open_source("picamera2:1", clock=FakeClock()) as source:
        frame = source.read()
    assert isinstance(source, Picamera2Source)
    assert frame is not None and frame.image.shape == (6, 4, 3) and frame.sequence == 0
    assert log == [("open", 1), ("configure", {"format": "RGB888"}), "start", "stop", "close"]


def test_a_picamera2_that_fails_to_start_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    class NoCamera:
        def __init__(self, num: int = 0) -> None:
            raise IndexError("list index out of range\n(no cameras)")

    monkeypatch.setitem(sys.modules, "picamera2", types.SimpleNamespace(Picamera2=NoCamera))
    with pytest.raises(CompanionError) as exc:
        Picamera2Source()
    assert "camera 0" in one_line(exc)


# ---------------------------------------------------------------------------------------------
# OpenCV device


def test_an_opencv_device_that_does_not_exist_is_one_line() -> None:
    with pytest.raises(CompanionError) as exc:
        OpenCVDeviceSource("/dev/no-such-video-device-here")
    assert "/dev/no-such-video-device-here" in one_line(exc)
    with pytest.raises(CompanionError) as exc:
        open_source("device:97")  # no machine the tests run on has 98 cameras
    assert "97" in one_line(exc)


class FakeCapture:
    def __init__(self, frames: list[np.ndarray | None], opened: bool = True) -> None:
        self.frames, self.opened, self.released = list(frames), opened, False

    def isOpened(self) -> bool:
        return self.opened

    def read(self) -> tuple[bool, np.ndarray | None]:
        image = self.frames.pop(0) if self.frames else None
        return image is not None, image

    def get(self, prop: int) -> float:
        return 0.0

    def set(self, prop: int, value: float) -> bool:
        return True

    def release(self) -> None:
        self.released = True


def test_an_opencv_device_that_stops_giving_frames_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    good = np.zeros((4, 4, 3), np.uint8)
    capture = FakeCapture([good, None, good] + [None] * 10)
    monkeypatch.setattr(sources.cv2, "VideoCapture", lambda device: capture)
    source = OpenCVDeviceSource(0, clock=FakeClock(), retries=3)
    assert source.read().sequence == 0
    assert source.read().sequence == 1  # one dropped frame is retried
    with pytest.raises(CompanionError) as exc:
        source.read()
    assert "camera device 0" in one_line(exc) and "3" in str(exc.value)
    source.close()
    assert capture.released


def test_an_opencv_device_that_will_not_open_is_released(monkeypatch: pytest.MonkeyPatch) -> None:
    capture = FakeCapture([], opened=False)
    monkeypatch.setattr(sources.cv2, "VideoCapture", lambda device: capture)
    with pytest.raises(CompanionError) as exc:
        OpenCVDeviceSource(2)
    assert one_line(exc) == "cannot open camera device 2"
    assert capture.released


class Webcam:
    """A V4L2 webcam as OpenCV shows it: 640x480 until asked for a size it has (``modes``)."""

    def __init__(self, modes: tuple[tuple[int, int], ...]) -> None:
        self.modes, self.size, self.asked, self.props = modes, (640, 480), [0, 0], {}

    def isOpened(self) -> bool:
        return True

    def set(self, prop: int, value: float) -> bool:
        self.props[prop] = value
        if prop in (cv2.CAP_PROP_FRAME_WIDTH, cv2.CAP_PROP_FRAME_HEIGHT):
            self.asked[prop == cv2.CAP_PROP_FRAME_HEIGHT] = int(value)
            # The driver takes the nearest mode it has once both sides are asked.
            if all(self.asked):
                self.size = min(self.modes, key=lambda m: abs(m[0] - self.asked[0]) + abs(m[1] - self.asked[1]))
        return True

    def get(self, prop: int) -> float:
        return {cv2.CAP_PROP_FRAME_WIDTH: self.size[0], cv2.CAP_PROP_FRAME_HEIGHT: self.size[1]}.get(prop, 0.0)

    def read(self) -> tuple[bool, np.ndarray]:
        return True, np.zeros((self.size[1], self.size[0], 3), np.uint8)

    def release(self) -> None:
        pass


def test_a_webcam_opens_at_the_configured_size(monkeypatch: pytest.MonkeyPatch) -> None:
    from companion.commands.run import open_camera
    from companion.table.config import parse_config

    cam = Webcam(((640, 480), (1280, 720), (1920, 1080)))
    monkeypatch.setattr(sources.cv2, "VideoCapture", lambda device: cam)
    with open_camera(parse_config('[camera]\nsource = "device"\nexposure_ms = 10').camera) as source:
        assert source.read().image.shape == (1080, 1920, 3)  # the default: 1080p, not 640x480
    assert cam.props[cv2.CAP_PROP_FOURCC] == cv2.VideoWriter_fourcc(*"MJPG")
    assert (cam.props[cv2.CAP_PROP_AUTO_EXPOSURE], cam.props[cv2.CAP_PROP_EXPOSURE]) == (1, 100)
    with open_camera(parse_config('[camera]\nsource = "device"\nsize = [1280, 720]').camera) as source:
        assert source.read().image.shape == (720, 1280, 3)


def test_a_webcam_without_the_size_says_what_it_gives(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sources.cv2, "VideoCapture", lambda device: Webcam(((640, 480), (1280, 720))))
    said: list[str] = []
    with OpenCVDeviceSource(0, size=(1920, 1080), warn=said.append) as source:
        assert source.read().image.shape == (720, 1280, 3)
    assert said == ["camera device 0: asked for 1920x1080, it gives 1280x720"]


def test_picamera2_gets_the_configured_size_focus_and_exposure(monkeypatch: pytest.MonkeyPatch) -> None:
    from companion.commands.run import open_camera
    from companion.table.config import parse_config

    log: list[Any] = []

    def camera_class(controls: set[str]) -> type:
        class Camera:
            camera_controls = {k: (0, 1, 0) for k in controls}

            def __init__(self, num: int = 0) -> None:
                pass

            def create_still_configuration(self, main: dict) -> dict:
                return {"main": main}

            def configure(self, config: dict) -> None:
                log.append(("size", config["main"].get("size")))

            def set_controls(self, controls: dict) -> None:
                log.append(("controls", controls))

            def start(self) -> None:
                pass

            def stop(self) -> None:
                pass

            def close(self) -> None:
                pass

        return Camera

    module3 = {"AfMode", "LensPosition", "AeEnable", "ExposureTime", "AnalogueGain"}
    monkeypatch.setitem(sys.modules, "picamera2", types.SimpleNamespace(Picamera2=camera_class(module3)))
    open_camera(parse_config("").camera).close()
    assert log == [("size", (2304, 1296)), ("controls", {"AfMode": 0, "LensPosition": pytest.approx(100 / 57.5)})]
    log.clear()
    open_camera(parse_config('[camera]\nfocus_cm = "auto"\nexposure_ms = 8.33\ngain = 2\nsize = [4608, 2592]').camera).close()
    assert log == [("size", (4608, 2592)),
                   ("controls", {"AfMode": 2, "AeEnable": False, "ExposureTime": 8330, "AnalogueGain": 2.0})]
    # A camera without autofocus (Camera Module 2, HQ): the focus is left out, not an error.
    log.clear()
    monkeypatch.setitem(sys.modules, "picamera2", types.SimpleNamespace(Picamera2=camera_class(module3 - {"AfMode", "LensPosition"})))
    open_camera(parse_config('[camera]\nexposure_ms = 10').camera).close()
    assert log == [("size", (2304, 1296)), ("controls", {"AeEnable": False, "ExposureTime": 10000})]


# ---------------------------------------------------------------------------------------------
# Synthetic


class FakeScene:
    def __init__(self, value: int) -> None:
        self.image = np.full((5, 5, 3), value, np.uint8)
        self.value = value


def test_a_synthetic_script_plays_specs_and_hand_passes_in_order() -> None:
    rendered: list[tuple[Any, int, int]] = []

    def render(spec: Any, seed: int, frame: int = 0) -> FakeScene:
        rendered.append((spec, seed, frame))
        return FakeScene(spec)

    def hand_sequence(spec: Any, seed: int, hand: Any, **counts: int) -> list[FakeScene]:
        n = counts["steps_in"] + counts["hold"] + counts["steps_out"] + counts["after"]
        return [FakeScene(100 + hand + i) for i in range(n)]

    script = [1, 2, HandPass(3, hand=50, steps_in=1, hold=1, steps_out=1, after=1), 4]
    source = SyntheticSource(script, seed=9, clock=FakeClock(), render=render, hand_sequence=hand_sequence)
    values = [f.meta["scene"].value for f in source]
    assert values == [1, 2, 150, 151, 152, 153, 4]
    assert [r[1] for r in rendered] == [9, 9, 9]
    assert [r[2] for r in rendered] == [0, 1, 6]  # frame numbers run on: every frame has its own noise
    looping = SyntheticSource([7], loop=True, render=render, hand_sequence=hand_sequence)
    assert [looping.read().image[0, 0, 0] for _ in range(3)] == [7, 7, 7]


def test_an_empty_synthetic_script_is_an_error() -> None:
    with pytest.raises(CompanionError):
        SyntheticSource([], render=lambda *a, **k: None, hand_sequence=lambda *a, **k: [])


def test_the_synthetic_source_renders_a_board_with_its_truth() -> None:
    pytest.importorskip("companion.sim.render")
    with pytest.raises(CompanionError, match="not offered here"):
        open_source("synthetic")  # the reader's package does not reach into the simulated table
    with open_source("synthetic:seed=3,size=256x256", clock=FakeClock(), synthetic=SyntheticSource) as source:
        assert isinstance(source, SyntheticSource)
        frame = source.read()
    assert isinstance(frame, Frame)
    assert frame.image.shape == (256, 256, 3) and frame.image.dtype == np.uint8
    scene = frame.meta["scene"]
    assert scene.truth.rows == 15 and not scene.covered  # the default script starts with the board alone


def test_every_source_is_a_frame_source() -> None:
    for cls in (Picamera2Source, OpenCVDeviceSource, FolderSource, SyntheticSource):
        assert issubclass(cls, FrameSource)
