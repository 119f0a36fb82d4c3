"""birdsong: species classifier for the acoustic monitoring stations."""
__version__ = "0.3.0"
