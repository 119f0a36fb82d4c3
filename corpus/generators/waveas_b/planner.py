"""ctypes wrapper of libplanner.so (planner.c): move suggestions from precomputed distance tables."""
import ctypes
import os


class Planner:
    def __init__(self, lib: str, size: int):
        self.lib = ctypes.CDLL(os.path.abspath(lib))
        self.lib.planner_init()
        self.size = size

    def suggest(self, robot, action) -> int:
        return self.lib.planner_suggest(self.size, robot[0], robot[1], robot[3], robot[4], int(action))
