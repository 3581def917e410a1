"""The client's own tests run against a real binary ($FAUXTH_BIN), from the source tree (no install needed)."""
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "src"))

pytest_plugins = ["fauxth.pytest_plugin", "pytester"]
