"""Hands over the board make no move: the built-in game played through the real reader on
rendered frames, a hand passing over the board before every press (seen between presses and
again at the start of the burst), and every move the record played, and only those, accepted."""

from __future__ import annotations

from importlib import resources

from companion.core.gcg import decode_gcg, parse_gcg
from companion.sim.tabledemo import Demo
from companion.web.hub import Hub
from companion.sim.record import names_of


def test_hands_passing_over_the_board_make_no_move(tmp_path):
    data = resources.files("companion").joinpath("data", "sample.gcg").read_bytes()
    record = parse_gcg(decode_gcg(data, "sample"), "sample")
    demo = Demo(record, "en", names_of(record), data_dir=tmp_path, truth=False, sim_time=True, hands_every=1)
    try:
        assert all(s.hand for s in demo.steps if s.kind == "turn")
        hub = Hub(demo.session, now_ms=demo.clock)
        table = demo.table(hub)
        demo.play(hub, table)
        final = demo.summary(hub)
    finally:
        demo.close()
    assert table.hand_frames >= 8  # the reader saw the hands (else this test proves nothing)
    plays = [(h["position"], h["word"]) for h in final["history"] if h["kind"] == "play"]
    assert plays == [("8D", "HOUSE"), ("E7", "B.AT"), ("10C", "AN."), ("H5", "GRE.N"), ("5H", ".IRAFFE"), ("N3", "DO.")]
    kinds = [v["kind"] for v in table.verdicts]
    # Then a pass and an exchange: turns without tiles (a photo cannot tell them apart).
    assert kinds == ["move"] * 6 + ["no tiles", "no tiles"]
