"""The Dockerfile, checked without a Docker engine: its build stage builds as scripts/release does, its runtime
stage installs exactly the packages that hold the libraries the release binary links, and its steps, CMD and
HEALTHCHECK work in a Debian root made the way the debian:*-slim images are (debootstrap's minbase variant)."""
import json
import os
import pathlib
import re
import shutil
import subprocess

import pytest

import debian_base
from conftest import ROOT, Running

DOCKERFILE = (ROOT / "Dockerfile").read_text()


def instructions(text):
    """(INSTRUCTION, arguments) pairs: continuation lines joined, comments and blank lines dropped."""
    result, current = [], ""
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        if stripped.endswith("\\"):
            current += stripped[:-1] + " "
            continue
        keyword, _, rest = (current + stripped).partition(" ")
        result.append((keyword.upper(), " ".join(rest.split())))
        current = ""
    return result


def stages():
    """The stages, each a list of instructions starting with its FROM."""
    result = []
    for keyword, arguments in instructions(DOCKERFILE):
        if keyword == "FROM":
            result.append([])
        result[-1].append((keyword, arguments))
    return result


def arguments(stage, keyword):
    return [rest for key, rest in stage if key == keyword]


def runtime_codename():
    image = arguments(stages()[-1], "FROM")[0]
    match = re.fullmatch(r"debian:(\w+)-slim", image)
    assert match, f"runtime stage {image}: expected a debian:<release>-slim image"
    return match.group(1)


def installed_packages():
    """The packages the runtime stage's `apt-get install` names."""
    runs = [run for run in arguments(stages()[-1], "RUN") if "apt-get install" in run]
    assert len(runs) == 1, runs
    words = runs[0].split("apt-get install", 1)[1].split("&&")[0].split()
    return {word for word in words if not word.startswith("-")}


def test_the_build_stage_builds_with_scripts_release():
    build, runtime = stages()
    image = arguments(build, "FROM")[0]
    match = re.fullmatch(r"swift:(\d+)\.(\d+)-(\w+) AS build", image)
    assert match, image
    tools = re.search(r"swift-tools-version:\s*(\d+)\.(\d+)", (ROOT / "Package.swift").read_text())
    assert (int(match.group(1)), int(match.group(2))) >= (int(tools.group(1)), int(tools.group(2))), "older than Package.swift allows"
    # Same Debian release in both stages: the binary meets the glibc and SQLite it was linked against.
    assert match.group(3) == runtime_codename()
    runs = arguments(build, "RUN")
    assert len(runs) == 1 and re.match(r"scripts/release( |$)", runs[0]), runs
    assert "swift build" not in DOCKERFILE
    assert arguments(runtime, "COPY") == [f"--from=build {runs[0].split()[-1]} /usr/local/bin/fauxth"]


def test_the_runtime_stage_installs_the_packages_that_hold_the_binarys_libraries(release_binary):
    codename = runtime_codename()
    release = dict(line.split("=", 1) for line in pathlib.Path("/etc/os-release").read_text().splitlines() if "=" in line)
    assert release.get("VERSION_CODENAME") == codename, \
        f"libraries can only be matched to {codename}'s packages on Debian {codename}; this machine is {release.get('PRETTY_NAME')}"
    ldd = subprocess.run(["ldd", str(release_binary)], capture_output=True, text=True, check=True).stdout
    paths = re.findall(r"(?:=> )?(/\S+) \(0x", ldd)
    owners = {path: package_of(path) for path in paths}
    # libc6 is in every Debian image: apt, dpkg and the shell depend on it.
    packages = installed_packages()
    missing = {path: owner for path, owner in owners.items() if owner not in packages | {"libc6"}}
    assert not missing, f"libraries from packages the runtime stage does not install: {missing}"
    # ca-certificates holds data, not a library: the trust roots an https:// hook's certificate is checked against.
    unused = packages - set(owners.values()) - {"ca-certificates"}
    assert not unused, f"packages the binary links nothing from: {unused}"


def package_of(path):
    """The Debian package that ships `path` (dpkg records some libraries under /lib, some under /usr/lib)."""
    candidates = {path, os.path.realpath(path)}
    candidates |= {c.removeprefix("/usr") for c in list(candidates)} | {"/usr" + c for c in list(candidates) if not c.startswith("/usr")}
    for candidate in sorted(candidates):
        found = subprocess.run(["dpkg", "-S", candidate], capture_output=True, text=True)
        if found.returncode == 0:
            return found.stdout.split(":")[0]
    raise AssertionError(f"no package ships {path}")


# --- The runtime stage's steps, run in a Debian root ----------------------------------------------------------


def debian_root_or_skip():
    """A fresh copy of a minbase root of the runtime stage's Debian release (the base is made once: debian_base.py)."""
    missing = debian_base.missing_tools()
    if missing:
        reason = f"needs {', '.join(missing)} to run the image's steps in a Debian root"
        if os.environ.get("FAUXTH_REQUIRE_IMAGE_ROOT"):
            pytest.fail(reason)
        pytest.skip(reason)
    codename = runtime_codename()
    base, work = debian_base.base(codename), debian_base.ROOTS / f"{codename}-image"
    shutil.rmtree(work, ignore_errors=True)
    subprocess.run(["cp", "-a", str(base), str(work)], check=True)
    # Docker gives a build container the host's resolver.
    shutil.copy("/etc/resolv.conf", work / "etc" / "resolv.conf")
    return work


def in_root(root, command, user=None):
    """`command` chrooted into `root`, with /proc and /dev mounted as in a container, in a mount namespace of its
    own (nothing to unmount afterwards). Each step execs the next, so the process is the command's own."""
    mount = 'mount -t proc proc "$0/proc" && mount --rbind /dev "$0/dev" && exec chroot "$@"'
    chroot = ([f"--userspec={user}:{user}"] if user else []) + [str(root)]
    return ["unshare", "--mount", "--", "sh", "-c", mount, str(root)] + chroot + command


def test_the_image_runs_in_a_debian_root(release_binary):
    root = debian_root_or_skip()
    runtime = stages()[-1]
    environment = ["env", "-i", "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"]
    for run in arguments(runtime, "RUN"):
        subprocess.run(in_root(root, environment + ["/bin/sh", "-c", run]), check=True, capture_output=True, timeout=600)
    shutil.copy(release_binary, root / "usr/local/bin/fauxth")
    os.chmod(root / "usr/local/bin/fauxth", 0o755)
    user, = arguments(runtime, "USER")
    workdir, = arguments(runtime, "WORKDIR")
    entrypoint = json.loads(arguments(runtime, "ENTRYPOINT")[0])
    command = json.loads(arguments(runtime, "CMD")[0])
    healthcheck = arguments(runtime, "HEALTHCHECK")[0]
    probe = json.loads(healthcheck[healthcheck.index("CMD ") + 4:])

    # The image's own command line, on a free port, saving a snapshot where the README says to mount a folder.
    snapshot = f"{workdir}/state.sqlite"
    start = entrypoint + command + ["--port", "0", "--snapshot", snapshot]
    server = Running(in_root(root, environment + [f"HOME={workdir}", "sh", "-c", f'cd {workdir} && exec "$@"', "sh"] + start, user=user))
    try:
        status, _ = server.get("/_emu/v1/health")
        assert status == 200
        port = server.url.rsplit(":", 1)[1]
        health = subprocess.run(in_root(root, environment + probe + ["--port", port], user=user), capture_output=True, text=True, timeout=30)
        assert health.returncode == 0, health.stderr
    finally:
        assert server.stop() == 0
    assert (root / snapshot.lstrip("/")).stat().st_size > 0
