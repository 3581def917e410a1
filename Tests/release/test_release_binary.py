"""The binary scripts/release produces runs on a Linux machine without a Swift toolchain."""
import bisect
import http.client
import json
import pathlib
import re
import subprocess
import warnings

from conftest import CLEAN_ENV, VERSION, Running, without_toolchain

# Every shared library the release binary may need: glibc's, the C++ runtime (BoringSSL in swift-crypto, and
# the Swift runtime linked in statically), SQLite, and zlib (AsyncHTTPClient, which calls hooks). Anything else (libswiftCore.so, libFoundation.so, but also
# libcurl or libxml2 from FoundationNetworking or FoundationXML) would be a library a user has to install.
ALLOWED = {"libc.so.6", "libm.so.6", "libdl.so.2", "libpthread.so.0", "librt.so.1", "libutil.so.1",
           "ld-linux-x86-64.so.2", "ld-linux-aarch64.so.1", "libstdc++.so.6", "libgcc_s.so.1", "libsqlite3.so.0",
           "libz.so.1"}
TOOLCHAIN = re.compile(r"swift|Foundation|dispatch|BlocksRuntime|XCTest", re.I)


def dynamic_section(binary):
    return subprocess.run(["readelf", "-d", str(binary)], capture_output=True, text=True, check=True).stdout


def test_it_needs_no_library_from_the_swift_toolchain(release_binary):
    section = dynamic_section(release_binary)
    needed = set(re.findall(r"\(NEEDED\)\s+Shared library: \[(.+?)\]", section))
    assert "libsqlite3.so.0" in needed and "libc.so.6" in needed, section
    assert needed <= ALLOWED, f"unexpected libraries: {sorted(needed - ALLOWED)}"
    # A run path into the toolchain would find its libraries on this machine and hide the problem.
    for path in re.findall(r"\((?:RUNPATH|RPATH)\)\s+Library r(?:un)?path: \[(.+?)\]", section):
        assert set(path.split(":")) <= {"$ORIGIN"}, f"run path {path}"
    ldd = subprocess.run(CLEAN_ENV + ["ldd", str(release_binary)], capture_output=True, text=True, check=True).stdout
    assert "not found" not in ldd, ldd
    assert not [line for line in ldd.splitlines() if TOOLCHAIN.search(line)], ldd


def test_it_starts_and_answers_without_a_toolchain(release_binary):
    command, hidden = without_toolchain([str(release_binary), "serve", "--port", "0"])
    if hidden is None:
        warnings.warn("the Swift toolchain's libraries could not be hidden (no toolchain, or no unshare as root): ran under env -i only")
    server = Running(command)
    try:
        status, body = server.get("/_emu/v1/health")
        assert status == 200 and json.loads(body)["status"] == "ok"
        port = server.url.rsplit(":", 1)[1]
        health, _ = without_toolchain([str(release_binary), "health", "--port", port])
        checked = subprocess.run(health, capture_output=True, text=True, timeout=30)
        assert checked.returncode == 0 and checked.stdout.strip() == "ok", checked.stderr
    finally:
        assert server.stop() == 0


def test_it_reports_its_version_and_ships_with_a_checksum(release_binary):
    assert release_binary.name.startswith(f"fauxth-{VERSION}-linux-")
    reported = subprocess.run(CLEAN_ENV + [str(release_binary), "--version"], capture_output=True, text=True, check=True)
    assert reported.stdout.strip() == VERSION
    checksum = release_binary.with_name(release_binary.name + ".sha256")
    assert checksum.read_text().split() == [subprocess.run(["sha256sum", str(release_binary)], capture_output=True, text=True,
                                                           check=True).stdout.split()[0], release_binary.name]
    verified = subprocess.run(["sha256sum", "-c", checksum.name], cwd=release_binary.parent, capture_output=True, text=True)
    assert verified.returncode == 0, verified.stdout + verified.stderr


def test_every_function_of_ours_keeps_its_unwind_entry(release_binary):
    """scripts/release builds without full debug information, but Swift keeps its line tables: with none at all
    (`-gnone`), swiftc also leaves out the .eh_frame entries of most functions (606 of AuthCore's 3,174 exported ones
    kept theirs), and debuggers, `perf --call-graph dwarf` and unwinders that read them lose the stack there."""
    frames = subprocess.run(["readelf", "--debug-dump=frames", str(release_binary)], capture_output=True, text=True,
                            check=True).stdout
    ranges = sorted((int(start, 16), int(end, 16))
                    for start, end in re.findall(r"FDE cie=\w+ pc=([0-9a-f]+)\.\.([0-9a-f]+)", frames))
    starts = [start for start, _ in ranges]
    # The stripped binary keeps its dynamic symbols (the static Swift runtime links with -export-dynamic).
    symbols = subprocess.run(["nm", "-D", "--defined-only", str(release_binary)], capture_output=True, text=True,
                             check=True).stdout
    ours = [int(fields[0], 16) for fields in (line.split(" ", 2) for line in symbols.splitlines())
            if len(fields) == 3 and fields[1] in "Tt" and fields[2].startswith("$s8AuthCore")]

    def unwinds(address):
        index = bisect.bisect_right(starts, address) - 1
        return index >= 0 and ranges[index][0] <= address < ranges[index][1]

    assert len(ours) > 1000, "AuthCore's functions are no longer in the dynamic symbol table"
    lacking = [hex(address) for address in ours if not unwinds(address)]
    assert not lacking, f"{len(lacking)} of {len(ours)} AuthCore functions have no unwind entry, e.g. {lacking[:5]}"


def thread_cpu_ns(pid):
    """CPU time so far of each of a process's threads, by thread name, from /proc (schedstat: nanoseconds on a CPU)."""
    times = {}
    for task in pathlib.Path(f"/proc/{pid}/task").iterdir():
        try:
            name = (task / "comm").read_text().strip()
            times[name] = times.get(name, 0) + int((task / "schedstat").read_text().split()[0])
        except (FileNotFoundError, ProcessLookupError):
            pass  # a thread that ended meanwhile
    return times


def test_handlers_run_on_the_event_loops(release_binary):
    """Requests are served on NIO's event-loop threads, not by hopping to Swift's thread pool and back: SwiftNIO's
    own installer of that hook finds it with dlsym, which fails quietly in a binary linked with --static-swift-stdlib,
    and the shipped binary then served a quarter fewer sign-ins per second (issue 28)."""
    server = Running(CLEAN_ENV + [str(release_binary), "serve", "--port", "0"])
    try:
        host, port = server.url.rsplit("/", 1)[1].rsplit(":", 1)
        connection = http.client.HTTPConnection(host.replace("0.0.0.0", "127.0.0.1"), int(port), timeout=10)
        before = thread_cpu_ns(server.process.pid)
        for _ in range(3000):
            connection.request("GET", "/_emu/v1/health")
            assert connection.getresponse().read()
        after = thread_cpu_ns(server.process.pid)
        spent = {name: after[name] - before.get(name, 0) for name in after}
        loops = sum(ns for name, ns in spent.items() if name.startswith("NIO-"))
        elsewhere = sum(ns for name, ns in spent.items() if not name.startswith("NIO-"))
        assert loops > 0 and elsewhere < loops * 0.2, spent
    finally:
        assert server.stop() == 0
