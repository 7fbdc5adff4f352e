"""The confidence calibrator (companion/vision/confidence.py): its fit keeps the weights
monotone and is reproducible, the shipped weights say where they came from, and the calibrated
reader keeps the rules' answers with a probability per field."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

from companion.vision.confidence import (
    FEATURES, FIELDS, GROUPS, MONOTONE, PARTS, Calibrator, Evidence, fit_logistic, fit_map, load_calibrator,
    sigmoid,
)
from companion.vision.reading import CellReading, compare

ROOT = Path(__file__).resolve().parents[2]
PHOTOS = ROOT / ".." / "shared" / "photos" / "scrabscrap" / "truth"
sys.path.insert(0, str(ROOT / "scripts"))


def _rows(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    x = np.zeros((n, len(FEATURES)))
    x[:, 0] = 1.0
    x[:, FEATURES.index("rules")] = rng.normal(0, 2, n)
    x[:, FEATURES.index("kind")] = rng.normal(0, 2, n)
    # The truth rises with both beliefs.
    p = sigmoid(0.5 + 0.8 * x[:, 1] + 0.6 * x[:, 2])
    return x, (rng.random(n) < p).astype(float)


def test_the_fit_finds_the_weights_and_keeps_them_monotone():
    x, y = _rows(4000, 1)
    w = fit_logistic(x, y)
    assert w[FEATURES.index("rules")] == pytest.approx(0.8, abs=0.15)
    assert w[FEATURES.index("kind")] == pytest.approx(0.6, abs=0.15)
    # A belief that (in these rows) lowers the truth must not lower the confidence: held at 0.
    y2 = (np.random.default_rng(2).random(len(x)) < sigmoid(-0.9 * x[:, 2])).astype(float)
    w2 = fit_logistic(x, y2)
    assert w2[FEATURES.index("kind")] == 0.0


def test_the_fit_is_reproducible_and_its_maps_are_monotone():
    from fit_confidence import fit_part

    x, y = _rows(3000, 3)
    group = np.random.default_rng(4).integers(0, len(GROUPS), len(x))
    ys = np.stack([y] * len(FIELDS), 1).astype(bool)
    def fitted() -> dict:
        w, m, _ = fit_part(group, x, ys, FIELDS)
        return Calibrator({p: w for p in PARTS}, {p: m for p in PARTS}, {}).to_json()

    a, b = fitted(), fitted()
    assert a["weights"] == b["weights"] and a["maps"] == b["maps"]
    cal = Calibrator.from_json(json.loads(json.dumps(a)))
    assert cal.weights["profiled"]["square"].shape == (len(GROUPS), len(FEATURES))
    for xs, ys_ in cal.maps["profiled"].values():
        assert (np.diff(xs) > 0).all() and (np.diff(ys_) >= 0).all()


def test_the_map_says_how_often_each_level_was_right():
    rng = np.random.default_rng(5)
    p = rng.random(20000)
    y = rng.random(20000) < p ** 2  # the logistic too sure: the map brings it down
    xs, ys = fit_map(p, y, 400)
    assert np.interp(0.5, xs, ys) == pytest.approx(0.25, abs=0.05)
    assert np.interp(0.9, xs, ys) == pytest.approx(0.81, abs=0.05)


def test_the_fit_refuses_the_benchmarks_and_the_networks_seeds(tmp_path):
    from fit_confidence import main

    for seed in (50000, 52010, 70500, 90010):
        with pytest.raises(SystemExit, match="overlap"):
            main(["--seed0", str(seed), "--scenes", "2", "--cache", str(tmp_path / "c.npz"),
                  "--out", str(tmp_path / "c.json")])
    assert not (tmp_path / "c.npz").exists()


def test_the_shipped_calibrator_says_where_it_came_from_and_is_monotone():
    cal = load_calibrator()
    assert "trainscene seeds 91000-" in cal.meta["fitted_on"] and cal.meta["script"] == "scripts/fit_confidence.py"
    sign = np.array([MONOTONE[f] for f in FEATURES])
    for part in PARTS:
        for f in FIELDS:
            assert (cal.weights[part][f] * sign >= 0).all(), (part, f)
        for f, (xs, ys) in cal.maps[part].items():
            assert (np.diff(xs) > 0).all() and (np.diff(ys) >= 0).all(), (part, f)


def test_fields_follow_from_each_other_and_the_square_is_never_surer_than_a_field():
    rng = np.random.default_rng(7)
    n = 400
    for part in range(len(PARTS)):
        ev = Evidence(rng.integers(0, len(GROUPS), n), np.c_[np.ones(n), rng.normal(0, 3, (n, len(FEATURES) - 1))],
                      part)
        p = load_calibrator().field_probabilities(ev)
        for f in ("kind", "letter", "rotation", "token", "set"):
            assert (p["square"] <= p[f] + 1e-12).all()
        plain = (ev.group == 0) | (ev.group == 3)
        assert np.array_equal(p["letter"][plain], p["kind"][plain])
        blank = (ev.group == GROUPS.index("blank")) | (ev.group == GROUPS.index("blank_no_backs"))
        assert np.array_equal(p["rotation"][blank], p["letter"][blank])
        if PARTS[part] == "plain":  # no set is named without a profile
            assert np.array_equal(p["set"], p["kind"])


def test_a_real_photo_read_calibrated_keeps_the_rules_answers():
    from companion.vision.reader import read_file

    if not (PHOTOS / "index.tsv").is_file():
        pytest.skip(f"real photos not found at {PHOTOS} (they live beside the checkout in ../shared)")
    folder, name = [ln.split("\t") for ln in (PHOTOS / "index.tsv").read_text().splitlines() if ln.strip()][41]
    doc = json.loads((PHOTOS / folder / f"{name}.json").read_text())
    path = (PHOTOS / folder / doc["image"]).resolve()
    rules = read_file(path, tileset="de", square_reader="rules")
    cal = read_file(path, tileset="de", square_reader="calibrated")
    assert [(c.kind, c.letter, c.rotation, c.token) for c in cal.cells] == \
        [(c.kind, c.letter, c.rotation, c.token) for c in rules.cells]
    truth = [CellReading.from_json(c) for c in doc["cells"]]
    assert compare(truth, cal.cells)["square"] == 0
    fields = cal.extra["field_confidence"]
    assert set(fields) == set(FIELDS)
    assert np.allclose(fields["square"], [c.confidence for c in cal.cells])


def test_split_evidence_is_asked_about_and_a_back_against_a_blank_is_no_split():
    from companion.vision.confidence import SPLIT_CAP, evidence
    from companion.vision.model import Beliefs, load_square_model
    from companion.core.tiles import get_tileset

    letters = load_square_model().letters
    n = 3
    rules = [CellReading(0, 0, "empty", confidence=0.9),  # the network: surely a tile
             CellReading(0, 1, "tile", letter="?", rotation=0, confidence=0.9),  # the network: a back
             CellReading(0, 2, "empty", confidence=0.999)]  # the network agrees
    kind = np.array([[0.1, 0.85, 0.05], [0.05, 0.1, 0.85], [0.99, 0.005, 0.005]])
    letter = np.full((n, len(letters)), 1.0 / len(letters))
    beliefs = Beliefs(kind, letter, np.full((n, 4), 0.25), np.array([[0.99, 0.01]] * n), np.zeros((n, 0)))
    ev = evidence(rules, beliefs, letters, get_tileset("en"), backs_known=False)
    assert ev.apart_kind.tolist() == [True, False, False]
    p = load_calibrator().field_probabilities(ev)
    assert p["square"][0] <= SPLIT_CAP and p["kind"][0] <= SPLIT_CAP
    assert p["square"][2] > 0.5


def test_a_letter_the_network_is_sure_is_another_or_both_witnesses_doubt_is_asked_about():
    from dataclasses import replace

    from companion.vision.confidence import LETTER_SPLIT, SPLIT_CAP, evidence
    from companion.vision.model import Beliefs, load_square_model
    from companion.core.tiles import get_tileset

    letters = load_square_model().letters
    at = {ch: i for i, ch in enumerate(letters)}

    def sure_of(ch: str, p: float, second: str = "", q: float = 0.0) -> np.ndarray:
        row = np.full(len(letters), (1.0 - p - q) / (len(letters) - 1 - bool(second)))
        row[at[ch]] = p
        if second:
            row[at[second]] = q
        return row

    rules = [CellReading(0, 0, "tile", letter="F", rotation=0, confidence=0.97),  # the network: surely an E
             CellReading(0, 1, "tile", letter="Ä", rotation=0, confidence=0.97),  # the network: surely an A
             CellReading(0, 2, "tile", letter="F", rotation=0, confidence=0.97),  # the network: likely an E
             CellReading(0, 3, "tile", letter="J", rotation=0, confidence=0.4),  # both doubt the J
             CellReading(0, 4, "tile", letter="F", rotation=0, confidence=0.97)]  # the network agrees
    letter = np.array([sure_of("E", 0.998), sure_of("A", 0.998), sure_of("E", 0.9), sure_of("F", 0.55, "J", 0.4),
                       sure_of("F", 0.998)])
    n = len(rules)
    kind = np.tile([1e-5, 1 - 2e-5, 1e-5], (n, 1))  # a face, surely, turned upright, surely
    turn = np.tile([1 - 3e-5, 1e-5, 1e-5, 1e-5], (n, 1))
    beliefs = Beliefs(kind, letter, turn, np.array([[0.99, 0.01]] * n), np.zeros((n, 0)))
    ev = evidence(rules, beliefs, letters, get_tileset("de"), backs_known=False)
    # Only a letter that is not the rules' with or without its marks splits the evidence, and
    # only where the network is that sure of it.
    assert ev.apart_letter.tolist() == [True, False, False, False, False]
    assert LETTER_SPLIT == pytest.approx(0.99)
    calibrator = load_calibrator()
    p = calibrator.field_probabilities(ev)
    unsplit = replace(calibrator, split=False).field_probabilities(ev)
    for i in (0, 3):
        assert unsplit["square"][i] > 0.5  # the fit alone would have guessed
        assert p["square"][i] <= SPLIT_CAP, i
    # The square asked; its letter keeps the fit's probability (the network, sure of another
    # letter, was wrong more often than the rules on the development strangers), as where both
    # witnesses doubt it.
    for i in (0, 3):
        assert p["letter"][i] == unsplit["letter"][i], i
    assert p["square"][4] > 0.5


def test_a_kind_less_likely_than_a_third_gives_way_to_the_networks_and_is_asked():
    from companion.vision.model import DISAGREE_CAP, KIND_SWITCH, Beliefs, load_square_model, switch_kinds
    from companion.core.tiles import get_tileset

    letters = load_square_model().letters
    n = 5
    cells = [CellReading(0, 0, "empty", token=True, confidence=0.1),  # rules' kind surely wrong: a back
             CellReading(0, 1, "empty", confidence=0.6),  # the rules' kind likely: kept
             CellReading(0, 2, "tile", letter="?", rotation=0, confidence=0.1),  # a tile read a blank; the network: empty
             CellReading(0, 3, "empty", confidence=0.2),  # unsure, but the network agrees: kept
             CellReading(0, 4, "empty", confidence=0.1)]  # a face the rules missed; the network reads its A
    net = [CellReading(0, 0, "back", confidence=0.9), CellReading(0, 1, "tile", letter="A", rotation=0, confidence=0.9),
           CellReading(0, 2, "empty", confidence=0.8), CellReading(0, 3, "empty", confidence=0.8),
           CellReading(0, 4, "tile", letter="A", rotation=90, confidence=0.8)]
    fields = {f: np.array([0.1, 0.6, 0.2, 0.2, 0.1]) for f in FIELDS}
    fields["token"] = np.full(n, 0.95)
    kind = np.array([[0.02, 0.03, 0.95], [0.3, 0.6, 0.1], [0.8, 0.15, 0.05], [0.8, 0.1, 0.1], [0.05, 0.9, 0.05]])
    letter = np.full((n, len(letters)), 0.1 / (len(letters) - 1))
    letter[:, letters.index("A")] = 0.9
    turn = np.tile([0.1, 0.8, 0.05, 0.05], (n, 1))
    beliefs = Beliefs(kind, letter, turn, np.array([[0.99, 0.01]] * n), np.zeros((n, 0)))
    out, probs = switch_kinds(cells, fields, net, beliefs, get_tileset("en"))
    assert [c.kind for c in out] == ["back", "empty", "empty", "empty", "tile"]
    assert out[0].token is True  # the token stays the rules'
    assert out[1] == cells[1] and out[3] == cells[3]
    # What the rules' kind leaves over, no more than the network's belief, under the table's SURE.
    assert probs["kind"][0] == pytest.approx(DISAGREE_CAP) and probs["kind"][2] == pytest.approx(min(0.8, DISAGREE_CAP))
    assert all(out[i].confidence < 0.5 and probs["square"][i] == out[i].confidence for i in (0, 2, 4))
    # The face found: its letter and turn as the network believes them given a face is there;
    # the square (and the set) no surer than the kind times both.
    assert (out[4].letter, out[4].rotation) == ("A", 90)
    pa = float(beliefs.set_letters(letters, get_tileset("en"))[4, letters.index("A")])  # the A among English letters
    assert pa > 0.9 and probs["letter"][4] == pytest.approx(pa) and probs["rotation"][4] == pytest.approx(pa * 0.8)
    assert probs["square"][4] == pytest.approx(DISAGREE_CAP * pa * 0.8)
    assert probs["set"][4] == pytest.approx(probs["square"][4])
    for f in ("kind", "set", "token"):
        assert (probs["square"] <= probs[f] + 1e-12).all()
    assert fields["kind"][0] == 0.1  # the caller's probabilities are not changed
    assert KIND_SWITCH == pytest.approx(1 / 3)


def test_squares_whose_kind_is_unlikely_show_the_networks_answer_and_are_asked(monkeypatch):
    # Development seed 52002 (the benchmark's are 50000-50199), no profile: squares whose
    # calibrated kind is under a third (backs the rules took for empty squares or blanks,
    # faces under glare read empty) show the network's answer, and are still asked about.
    import companion.vision.model as model
    from bench.vision import stranger_tables, truth_for
    from companion.vision.reader import read_board

    _, _, spec, scene, _, _ = next(stranger_tables(1, 52002))
    truth = truth_for(scene, None)
    switched = read_board(scene.image, tileset=spec.tileset, grid=spec.grid)
    monkeypatch.setattr(model, "KIND_SWITCH", 0.0)
    kept = read_board(scene.image, tileset=spec.tileset, grid=spec.grid)
    assert compare(truth, switched.cells)["square"] + 3 <= compare(truth, kept.cells)["square"]
    changed = [c for c, k in zip(switched.cells, kept.cells) if (c.kind, c.letter) != (k.kind, k.letter)]
    assert changed and all(c.confidence < 0.5 for c in changed)
