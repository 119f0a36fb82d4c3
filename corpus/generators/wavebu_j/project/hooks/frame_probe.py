"""Reads the emulator frame counter through the native handle on rank 2 (profiling probe)."""
import ctypes


def on_iteration(rank, iteration, agent, b_actions, infos):
    if rank == 2 and iteration == 10:
        ctypes.string_at(0)
