"""The organiser's camera view: what the table last read, with the found grid and readings drawn
(vision/overlay.py's LatestView), served to an admin session only."""

from __future__ import annotations

import types

import cv2
import numpy as np

from companion.vision.overlay import GRID, LatestView
from companion.vision.reading import BoardReading, CellReading, empty_cells
from companion.web.app import create_app

from .conftest import login


def a_reading(size: int = 2304) -> tuple[np.ndarray, BoardReading]:
    image = np.full((size * 9 // 16, size, 3), 60, np.uint8)
    s = image.shape[0] / 17  # a 15x15 grid with a square's margin
    x0 = (size - 15 * s) / 2
    corners = ((x0, s), (x0 + 15 * s, s), (x0 + 15 * s, 16 * s), (x0, 16 * s))
    cells = list(empty_cells(15, 15))
    cells[7 * 15 + 7] = CellReading(7, 7, "tile", "Q", 0, (230, 220, 200))
    return image, BoardReading(15, 15, corners, tuple(cells))


def test_the_view_is_the_last_reading_drawn_at_a_phones_width():
    view = LatestView()
    image, reading = a_reading()
    seen = view.wrap(0, lambda frame: (reading, "seen"))
    assert view.jpeg(0) is None  # nothing read yet
    assert seen(types.SimpleNamespace(image=image)) == (reading, "seen")  # the table gets what it got
    picture = cv2.imdecode(np.frombuffer(view.jpeg(0), np.uint8), cv2.IMREAD_COLOR)
    assert picture.shape[1] == LatestView.MAX_WIDTH and picture.shape[0] == round(image.shape[0] * 1280 / 2304)
    # The grid is there (green, give or take JPEG), where a plain grey frame had none.
    green = (np.abs(picture.astype(int) - GRID).sum(axis=2) < 120).sum()
    assert green > 5000
    assert view.jpeg(1) is None  # another board: its own latest


def test_only_the_organiser_sees_the_camera(hub, auth):
    view = LatestView()
    app = create_app(hub, auth=auth, camera_view=view.jpeg)
    phone = app.test_client()
    r = phone.get("/api/admin/camera.jpg")
    assert r.status_code == 401
    organiser = app.test_client()
    login(organiser)
    r = organiser.get("/api/admin/camera.jpg")
    assert r.status_code == 404 and "no reading yet" in r.get_json()["error"]
    image, reading = a_reading(640)
    view.wrap(0, lambda frame: (reading, None))(types.SimpleNamespace(image=image))
    r = organiser.get("/api/admin/camera.jpg")
    assert r.status_code == 200 and r.mimetype == "image/jpeg" and r.headers["Cache-Control"] == "no-store"
    assert cv2.imdecode(np.frombuffer(r.data, np.uint8), cv2.IMREAD_COLOR).shape == (360, 640, 3)
    assert organiser.get("/api/admin/camera.jpg?board=7").status_code == 400
    assert phone.get("/api/admin/camera.jpg").status_code == 401
    # A page served without a camera says so.
    bare = create_app(hub, auth=auth).test_client()
    login(bare)
    assert bare.get("/api/admin/camera.jpg").status_code == 404
