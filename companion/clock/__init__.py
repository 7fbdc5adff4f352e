"""Time controls and the GPIO binding: the clock engine (pure), the dice, and the pins."""
