from __future__ import annotations

import pytest

from companion.engine.movegen import generator_for
from companion.lexicon import load_lexicon


@pytest.fixture(scope="session")
def english_lexicon():
    return load_lexicon("en")


@pytest.fixture
def english(english_lexicon):
    """The generator of the house English list (its DAWG built once per test session)."""
    return generator_for("en", english_lexicon)
