"""The simulated table: the renderer and the scenes and tile faces it draws, the synthetic camera,
scripted time and truth readings, recorded games played as presses, and the demos. An adapter
like gpiozero's mock pins: the demo, the tests and the benchmarks use it; the reader never does."""
