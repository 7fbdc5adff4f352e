"""A made-up game's rules, two of them, pure as the real games' rules are: the word chain. Each
word must be in the list, and must begin with the last letter of the word before it; a word
scores its length."""

from __future__ import annotations

from collections.abc import Container, Sequence


def refusal(played: Sequence[str], word: str, words: Container[str]) -> str | None:
    """Why ``word`` may not follow ``played``; None when it may."""
    if word not in words:
        return f"{word} is not in the list"
    if played and word[0] != played[-1][-1]:
        return f"{word} does not begin with {played[-1][-1]}, the last letter of {played[-1]}"
    return None


def score(word: str) -> int:
    return len(word)
