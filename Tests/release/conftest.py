"""The release binary that scripts/release produced, and how to run it as someone without Swift would.

scripts/test runs scripts/release, then these tests with FAUXTH_RELEASE_BIN set to the binary it printed."""
import os
import pathlib
import platform
import queue
import re
import shutil
import signal
import subprocess
import threading
import urllib.request

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
VERSION = re.search(r'^public let fauxthVersion = "(.*)"$', (ROOT / "Sources/Server/Version.swift").read_text(), re.M).group(1)
ARTIFACTS = ROOT / ".build" / "release-artifacts"

# What a machine without Swift has: the system's own directories on PATH, nothing in LD_LIBRARY_PATH.
CLEAN_ENV = ["env", "-i", "PATH=/usr/bin:/bin"]


@pytest.fixture(scope="session")
def release_binary():
    path = pathlib.Path(os.environ.get("FAUXTH_RELEASE_BIN") or ARTIFACTS / f"fauxth-{VERSION}-linux-{platform.machine()}")
    if not path.is_file():
        pytest.fail(f"no release binary at {path}: run scripts/release first (scripts/test does)")
    return path


def toolchain_library_dir():
    """The Swift toolchain's runtime libraries (…/usr/lib/swift), if a toolchain is on this machine."""
    swift = shutil.which("swift")
    if swift is None:
        return None
    directory = pathlib.Path(swift).resolve().parent.parent / "lib" / "swift"
    return directory if directory.is_dir() else None


def can_hide(directory):
    """Whether this process may mount over `directory` in a mount namespace of its own (root, unshare)."""
    if shutil.which("unshare") is None:
        return False
    probe = subprocess.run(["unshare", "--mount", "--", "mount", "-t", "tmpfs", "none", str(directory)], capture_output=True)
    return probe.returncode == 0


def without_toolchain(command):
    """`command` under `env -i`, with the Swift toolchain's libraries hidden behind an empty mount when this
    machine has them and allows it (unshare execs in place, so the process is the command's own)."""
    hidden = toolchain_library_dir()
    if hidden is None or not can_hide(hidden):
        return CLEAN_ENV + command, None
    hide = ["unshare", "--mount", "--", "sh", "-c", 'mount -t tmpfs none "$0" && exec "$@"', str(hidden)]
    return hide + CLEAN_ENV + command, hidden


class Running:
    """A started server: waits for its ready line, stops it with SIGTERM."""

    def __init__(self, command, **popen):
        self.process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **popen)
        self.lines = queue.Queue()
        threading.Thread(target=lambda: [self.lines.put(line.rstrip("\n")) for line in self.process.stdout], daemon=True).start()
        self.url = self._wait_ready()

    def _wait_ready(self, timeout=30):
        while True:
            try:
                line = self.lines.get(timeout=timeout)
            except queue.Empty:
                self.process.kill()
                raise AssertionError(f"no ready line; stderr: {self.process.stderr.read()}")
            if line.startswith("ready "):
                return line.split(" ", 1)[1]

    def get(self, path):
        with urllib.request.urlopen(self.url.replace("0.0.0.0", "127.0.0.1") + path, timeout=10) as response:
            return response.status, response.read().decode()

    def stop(self):
        self.process.send_signal(signal.SIGTERM)
        return self.process.wait(timeout=10)
