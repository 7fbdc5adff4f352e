"""The Raspberry Pi's side of the process, the adapters at the edge (DESIGN.md): camera
sources (sources.py), the buttons, LEDs and buzzer through gpiozero (gpio.py), systemd's
notify socket (notify.py), the C heap kept from growing (heap.py), and the arithmetic of the
camera's mount (mount.py)."""
