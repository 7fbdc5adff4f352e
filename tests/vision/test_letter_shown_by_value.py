"""A letter the network doubts at full resolution (a bar: a serif I, or an I a lamp's glare fades
along its length, looks like a piece of print) was taken for the board's print, and on a square
of nearly its face's colour the face was read empty, surely. Its face shows the letter's value
in the corner the letter's turn puts it, which no print does: that keeps the letter. Rendered
development scenes (mounted, every feature) with their exact truth."""

from .rendered import faces_misread


def test_a_serif_i_the_network_doubts_is_kept_by_its_value():
    # 6075 (6,4): a serif I on an ivory face on a cream board, the network's belief in a
    # letter 0.36; read empty with confidence 0.81.
    assert faces_misread({6075: [(6, 4)]}) == []


def test_an_i_faded_by_glare_is_kept_by_its_value():
    # 12112 (5,10): an ivory I under a lamp's glare, its stroke fading towards its foot (0.48);
    # read empty with confidence 0.91.
    assert faces_misread({12112: [(5, 10)]}) == []
