"""The Raspberry Pi's side of the process: systemd's notify socket (notify.py), the C heap
kept from growing (heap.py), and the arithmetic of the camera's mount (mount.py)."""
