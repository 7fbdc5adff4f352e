"""Time controls and the table's pins: the clock engine (pure), the dice, the pin map and
the machine's clocks. The gpiozero devices that drive the pins are an adapter: companion.pi.gpio."""
