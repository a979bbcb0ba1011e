"""GA-2's tools: run scripts (ch09_*), and the sim/, gen/, flow/, bench/ and mutation/ packages.

Run them as modules from the repository root (`python -m tools.ch09_run`, as the Makefile
does): the one path set-up is the repository root on sys.path, which `-m` gives.
"""
import pathlib

ROOT = pathlib.Path(__file__).resolve().parent.parent
