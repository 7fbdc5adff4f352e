"""`companion lexicon`: placeholder until its module lands."""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("lexicon", help="lexicon (not yet built)")
    p.set_defaults(func=lambda args: 1)
