"""The table: the loop that wires camera, buttons, rules, game log and page (table.py), one
session per game (classic.py, house.py, dungeon.py over session.py's shared base), the game
registry (games.py), inference of a move from readings (inference.py) and the game log
(store.py). It imports rules, core, clock, vision, engine and lexicon; nothing below imports it."""
