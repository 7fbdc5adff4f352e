"""The vision benchmark's stranger measure: oblique phone scenes read with no profile."""

from bench.vision import stranger_phone


def test_a_phone_scene_is_read_without_a_profile_and_sets_are_not_counted() -> None:
    out = stranger_phone(1)
    assert out["boards"] == 1 and out["squares"] == 225
    # No profile names a set: a set is no error of a reading that had none to name.
    assert "set" not in out["field_errors"] and "set" not in out["field_error_pct"]
    assert set(out["field_errors"]) == {"kind", "letter", "rotation", "token"}
    # Read as the benchmark's other photos are: a board found, timed from decoding.
    assert out["grid_not_found"] == [] and out["elapsed_ms_median"] > 0
    assert out["boards_perfect"] == (out["square_error_pct"] == 0.0)


def test_a_strangers_table_is_read_with_and_without_the_profile_it_makes() -> None:
    from bench.vision import stranger

    out = stranger(1, 50001)  # a striped cloth, lamps, two sets of held-out colours, overhead
    for part in ("no_profile", "table_profile"):
        assert out[part]["boards"] == 1 and out[part]["squares"] == 225
        rel = out[part]["reliability"]
        assert {"square", "kind", "letter", "token"} <= set(rel)
        assert rel["square"]["squares"] == 225 and rel["square"]["ece_pct"] is not None
    # Sets are named only by a profile.
    assert "set" not in out["no_profile"]["field_errors"] and "set" in out["table_profile"]["field_errors"]


def test_the_square_readers_read_the_same_photo_side_by_side() -> None:
    from bench.vision import READERS, stranger_raw, stranger_summary

    # One scene split as the benchmark splits a run over processes, put together again.
    out = stranger_summary([stranger_raw(1, 52001)])  # a development seed
    assert out["scenes"] == 1
    for part in ("no_profile", "table_profile"):
        for m in READERS:
            res = out[part][m]
            assert res["boards"] == 1 and res["squares"] == 225 and 0 <= res["squares_below_0.5"] <= 225
    # The default keeps the rules' answers: its errors are theirs; only its confidences differ.
    assert out["no_profile"]["both"]["field_errors"] == out["no_profile"]["rules"]["field_errors"]
    assert out["no_profile"]["both"]["wrong_with_confidence_0.5_or_more"] <= out["no_profile"]["rules"]["wrong_with_confidence_0.5_or_more"]
    # The calibrated reader (the default) keeps the rules' answers but where the network settles
    # a plain square surely or the rules' kind is less likely than a third (model.switch_kinds,
    # plain_kinds), and judges each field on its own probability: every field has a
    # reliability table.
    cal = out["no_profile"]["calibrated"]
    assert cal["square_error_pct"] <= out["no_profile"]["rules"]["square_error_pct"]
    assert {"square", "kind", "letter", "rotation", "token"} <= set(cal["ece_pct"])
    assert cal["tiles_asked_below_0.5"] <= cal["squares_below_0.5"]
    assert out["cpu_ms_per_1504_photo_median"]["model_share"] > 0


def test_a_strangers_table_profile_is_measured_before_and_after_its_adaptation() -> None:
    from bench.vision import stranger_adapt

    # Development seed 52005: its table's profile, read by the rules alone, made 31 squares
    # wrong where no profile made 5 (docs/vision-adapt.md).
    out = stranger_adapt(1, 52005)
    assert out["scenes"] == 1 and out["seeds"] == "52005-52005"
    parts = ("no_profile", "profile_rules_alone", "profile_adapted")
    assert all(out[p]["squares"] == 225 for p in parts)
    assert out["profile_adapted"]["scenes_worse_than_no_profile"] == []
    assert out["profile_adapted"]["square_error_pct"] <= out["no_profile"]["square_error_pct"]


def test_a_board_not_found_is_wrong_on_every_square_even_its_empty_ones() -> None:
    from bench.vision import Tally, _not_read, board_errors
    from companion.vision.reading import CellReading, empty_cells

    # A 15x15 board, all empty but two tiles: a reader that found nothing must not be credited
    # with the 223 empty squares it never read.
    truth = list(empty_cells(15, 15))
    truth[0] = CellReading(0, 0, kind="tile", letter="A", rotation=0, confidence=1.0)
    truth[1] = CellReading(0, 1, kind="tile", letter="B", rotation=90, confidence=1.0)
    errors = board_errors(truth, _not_read(15))
    assert errors["square"] == errors["kind"] == errors["token"] == 225
    assert errors["letter"] == errors["rotation"] == 2
    tally = Tally(with_reliability=True)
    tally.add("lost", truth, _not_read(15))
    res = tally.result()
    assert res["square_error_pct"] == 100.0 and res["boards_perfect"] == 0
    # A board read empty, found, is judged by compare as before: only the two tiles are wrong.
    from companion.vision.reading import BoardReading

    found = BoardReading(15, 15, ((0.0, 0.0),) * 4, empty_cells(15, 15, 0.9))
    assert board_errors(truth, found)["square"] == 2


def test_tiles_of_a_set_the_profile_does_not_name_are_counted_when_read_as_a_named_one() -> None:
    from bench.vision import Tally, _merge
    from companion.vision.reading import BoardReading, CellReading, empty_cells

    truth = list(empty_cells(15, 15))
    truth[0] = CellReading(0, 0, kind="tile", letter="A", rotation=0, set=None)  # the unnamed set's
    truth[1] = CellReading(0, 1, kind="back", set=None)
    truth[2] = CellReading(0, 2, kind="tile", letter="B", rotation=0, set="white")
    read = list(empty_cells(15, 15, 0.99))
    read[0] = CellReading(0, 0, kind="tile", letter="A", rotation=0, set="white", confidence=0.98)
    read[1] = CellReading(0, 1, kind="back", set=None, confidence=0.9)
    read[2] = CellReading(0, 2, kind="tile", letter="B", rotation=0, set="white", confidence=0.97)
    reading = BoardReading(15, 15, ((0.0, 0.0),) * 4, tuple(read))
    judged, plain = Tally(True, unnamed_sets=True), Tally(True)
    judged.add("s", truth, reading)
    plain.add("s", truth, reading)
    assert judged.result()["unnamed_set"] == {"squares": 2, "read_as_a_named_set": 1, "at_0.5_or_more": 1}
    assert "unnamed_set" not in plain.result()  # real photos' truth names no sets: nothing to judge
    assert _merge(judged, judged).result()["unnamed_set"]["squares"] == 4
