"""The minbase Debian root the Dockerfile's runtime stage is run in (test_dockerfile.py): made once by debootstrap,
as the debian:*-slim images are, and kept under .build/release-roots.

scripts/test runs this file in the background as it starts, so that the download happens beside the builds rather
than after them; a test that needs the root waits for it (a lock on the root), and makes it itself if it was not
made. It does nothing where the tests could not use a root (not root, or a tool missing)."""
import fcntl
import os
import pathlib
import shutil
import subprocess
import sys

ROOTS = pathlib.Path(__file__).resolve().parents[2] / ".build" / "release-roots"
TOOLS = ("debootstrap", "unshare", "chroot")


def missing_tools():
    """Why this machine cannot run the image's steps in a root: root privileges or tools it lacks (empty if none)."""
    return ([] if os.geteuid() == 0 else ["root"]) + [tool for tool in TOOLS if shutil.which(tool) is None]


def base(codename):
    """The base root of Debian `codename`, made now unless it was made (completely) before."""
    ROOTS.mkdir(parents=True, exist_ok=True)
    path = ROOTS / f"{codename}-base"
    with open(ROOTS / f"{codename}-base.lock", "w") as lock:
        # Held while the root is made: whoever comes second waits, then finds it complete.
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (path / ".complete").exists():
            shutil.rmtree(path, ignore_errors=True)
            subprocess.run(["debootstrap", "--variant=minbase", codename, str(path), "http://deb.debian.org/debian"],
                           check=True, capture_output=True)
            (path / ".complete").touch()
    return path


if __name__ == "__main__":
    if missing_tools():
        sys.exit(0)
    # Run as a script, this file's folder is first on the path, so the test module (and its conftest) imports.
    from test_dockerfile import runtime_codename  # noqa: E402 (the Dockerfile names the release)
    base(runtime_codename())
