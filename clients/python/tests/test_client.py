"""The Python client against a started binary: every helper changes or reads what it says, checked through the
dialects' own endpoints."""
import datetime
import json
import os
import pathlib
import re
import shutil
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request

import pytest

from fauxth import Fauxth, FauxthError

ROOT = pathlib.Path(__file__).resolve().parents[3]


def post(url, body):
    """A JSON POST as a client SDK sends it; (status, decoded answer)."""
    request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json", "apikey": "anon"})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"null")


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def sign_up(fauxth, email):
    return post(f"{fauxth.url}/auth/v1/signup", {"email": email, "password": "secret123"})


def test_start_waits_for_ready_and_stop_ends_the_process():
    with Fauxth.start("--clock", "frozen") as fauxth:
        assert fauxth.health()["status"] == "ok"
        assert fauxth.info()["base_url"] == fauxth.url
        process = fauxth.process
    assert process.poll() is not None


def test_lines_keeps_the_newest_of_the_event_log():
    with Fauxth.start("--clock", "frozen", lines_kept=3) as fauxth:
        for name in "abcdef":
            assert sign_up(fauxth, f"{name}@example.com")[0] == 200
        fauxth.wait_for_message(to="f@example.com")
        deadline = datetime.datetime.now() + datetime.timedelta(seconds=10)
        while not any("f@example.com" in line for line in list(fauxth.lines.queue)):
            assert datetime.datetime.now() < deadline, list(fauxth.lines.queue)
            threading.Event().wait(0.05)
        kept = list(fauxth.lines.queue)
        # Six sign-ups log a dozen lines: the first ones went, the newest stayed.
        assert len(kept) <= 3
        assert not any("a@example.com" in line for line in kept)


def test_a_server_that_writes_much_on_stderr_is_read_as_it_writes(tmp_path):
    # 1.8 MB on stderr before the server starts: unread, the pipe fills at 64 KiB and the write (here the shell's,
    # in a server its log's) blocks for ever, so no ready line comes.
    binary = os.environ["FAUXTH_BIN"]
    chatty = tmp_path / "chatty-fauxth"
    chatty.write_text(f'#!/bin/sh\nyes "a line on stderr" | head -n 100000 >&2\nexec "{binary}" "$@"\n')
    chatty.chmod(0o755)
    with Fauxth.start("--clock", "frozen", binary=str(chatty), ready_timeout=20) as fauxth:
        assert fauxth.health()["status"] == "ok"
    assert fauxth.stderr.endswith("a line on stderr\n")
    assert 200 * 1024 < len(fauxth.stderr) <= 256 * 1024, "its last 256 KiB are kept"


def test_a_server_that_cannot_start_says_why_at_once(tmp_path):
    # A seed with a typo stops start-up with exit code 2: the helper reports that and stderr as soon as the process
    # ends, where it had waited out the whole ready timeout first.
    seed = tmp_path / "seed.json"
    seed.write_text('{"tenants": [{"id": "p", "dialect": "firebase", "api_kyes": ["k"]}]}')
    begun = time.monotonic()
    with pytest.raises(RuntimeError, match=r"exited \(status 2\) before it was ready; stderr: .*api_kyes"):
        Fauxth.start("--seed", str(seed), ready_timeout=300)
    assert time.monotonic() - begun < 150, "it was told before the ready timeout ran out"


def test_a_missing_binary_is_named(monkeypatch):
    monkeypatch.delenv("FAUXTH_BIN", raising=False)
    monkeypatch.setenv("PATH", "/nonexistent")
    with pytest.raises(FileNotFoundError, match="FAUXTH_BIN"):
        Fauxth.start()


def test_attach_uses_a_running_server_and_leaves_it_running(fauxth_server):
    attached = Fauxth.attach(fauxth_server.url)
    assert attached.process is None and attached.stop() is None
    assert fauxth_server.health()["status"] == "ok"


def test_calls_go_over_one_kept_alive_connection(fauxth):
    fauxth.health()
    socket = fauxth._local.connection.sock
    for _ in range(3):
        fauxth.reset()
        fauxth.snapshot("kept")
        fauxth.restore("kept")
    with pytest.raises(FauxthError):
        fauxth.restore("no-such-snapshot")
    fauxth.health()
    assert socket is not None and fauxth._local.connection.sock is socket


def test_a_connection_the_server_closed_is_replaced_before_it_is_used(tmp_path):
    port = free_port()
    with Fauxth.start("--port", str(port)) as first:
        attached = Fauxth.attach(first.url)
    # The kept connection is closed at the server's end now; a new server listens on the same port.
    with Fauxth.start("--port", str(port)) as second:
        assert second.url == attached.url
        attached.create_user("default", email="grace@example.com", password="secret123")
        assert [user["email"] for user in second.users("default", email="grace@example.com")] == ["grace@example.com"]


def test_each_thread_has_a_connection_of_its_own(fauxth):
    fauxth.health()
    found = {}

    def wait():
        found["message"] = fauxth.wait_for_message(to="lin@example.com", timeout=20)
        found["connection"] = fauxth._local.connection

    waiter = threading.Thread(target=wait)
    waiter.start()
    # Calls on this thread while the other waits for the message its sign-up sends.
    assert fauxth.health()["status"] == "ok"
    status, _ = sign_up(fauxth, "lin@example.com")
    assert status == 200
    waiter.join(30)
    assert found["message"]["to"] == "lin@example.com"
    assert found["connection"] is not fauxth._local.connection and fauxth.health()["status"] == "ok"


def test_wait_for_message_returns_the_code_and_links(fauxth):
    status, _ = sign_up(fauxth, "ada@example.com")
    assert status == 200
    message = fauxth.wait_for_message(to="ada@example.com", purpose="verify_email")
    assert message["to"] == "ada@example.com" and message.code and message.code == message.codes[0]
    assert message.link and "/auth/v1/verify" in " ".join(message.links)
    # The code it returned is the one the dialect accepts.
    status, session = post(f"{fauxth.url}/auth/v1/verify", {"type": "signup", "email": "ada@example.com", "token": message.code})
    assert status == 200 and session["user"]["email"] == "ada@example.com"
    with pytest.raises(FauxthError) as timed_out:
        fauxth.wait_for_message(to="nobody@example.com", timeout=0.2)
    assert timed_out.value.status == 408


def test_reset_forgets_what_a_test_did(fauxth):
    sign_up(fauxth, "gone@example.com")
    assert fauxth.messages(to="gone@example.com")
    fauxth.reset()
    assert fauxth.messages(to="gone@example.com") == []


def test_the_clock_freezes_and_advances_and_codes_expire_with_it(fauxth):
    with fauxth.frozen_clock(datetime.datetime(2030, 1, 2, 3, 4, 5, tzinfo=datetime.timezone.utc)):
        assert fauxth.now() == datetime.datetime(2030, 1, 2, 3, 4, 5, tzinfo=datetime.timezone.utc)
        sign_up(fauxth, "late@example.com")
        code = fauxth.wait_for_message(to="late@example.com").code
        assert fauxth.advance(days=1) == datetime.datetime(2030, 1, 3, 3, 4, 5, tzinfo=datetime.timezone.utc)
        status, answer = post(f"{fauxth.url}/auth/v1/verify", {"type": "signup", "email": "late@example.com", "token": code})
        assert status == 403 and answer["error_code"] == "otp_expired"
    assert fauxth.request("GET", "/clock")["mode"] != "frozen"


def test_a_fault_holds_inside_its_block_only(fauxth):
    rule = {"match": {"operation": "supabase:signup"}, "effect": {"type": "error", "error": "server_error"}}
    with fauxth.fault(rule) as added:
        assert [r["id"] for r in fauxth.faults()] == [added["id"]]
        status, answer = sign_up(fauxth, "faulted@example.com")
        assert status == 500 and answer["error_code"] == "unexpected_failure"
    assert fauxth.faults() == []
    assert sign_up(fauxth, "faulted@example.com")[0] == 200


def test_a_tenant_lives_inside_its_block_and_keeps_its_users_to_itself(fauxth):
    with fauxth.tenant("cognito") as pool:
        # No id given: the server picked one from its generator, in Cognito's form (the JS SDKs refuse others).
        assert re.fullmatch(r"us-east-1_[0-9A-Za-z]{9}", pool["id"])
        user = fauxth.create_user(pool["id"], email="pool@example.com", password="Secret123!")
        assert [u["id"] for u in fauxth.users(pool["id"])] == [user["id"]]
        assert all(u["email"] != "pool@example.com" for u in fauxth.users("default"))
        # Across tenants, each user names its own.
        assert [(u["tenant"], u["id"]) for u in fauxth.users(q="pool@example.com")] == [(pool["id"], user["id"])]
    with pytest.raises(FauxthError) as gone:
        fauxth.users(pool["id"])
    assert gone.value.status == 404 and gone.value.code == "tenant_not_found"


def test_named_snapshots_restore_a_state(fauxth):
    sign_up(fauxth, "kept@example.com")
    fauxth.snapshot("with-kept")
    fauxth.reset()
    assert fauxth.users("default", email="kept@example.com") == []
    fauxth.restore("with-kept")
    assert [u["email"] for u in fauxth.users("default", email="kept@example.com")] == ["kept@example.com"]
    # One tenant alone: a project made since keeps its users.
    with fauxth.tenant("supabase") as project:
        fauxth.create_user(project["id"], email="other@example.com", password="secret123")
        fauxth.reset(tenant="default")
        fauxth.restore("with-kept", tenant="default")
        assert len(fauxth.users("default", email="kept@example.com")) == 1
        assert len(fauxth.users(project["id"])) == 1


def test_the_pytest_plugin_resets_between_tests_and_cleans_up_tenants(pytester, fauxth_server, monkeypatch):
    monkeypatch.setenv("PYTHONPATH", str(ROOT / "clients" / "python" / "src"))
    pytester.makeconftest('pytest_plugins = ["fauxth.pytest_plugin"]')
    pytester.makepyfile(test_inner="""
        import pytest, json, urllib.request

        def sign_up(fauxth, email):
            request = urllib.request.Request(f"{fauxth.url}/auth/v1/signup", method="POST",
                data=json.dumps({"email": email, "password": "secret123"}).encode(), headers={"Content-Type": "application/json"})
            urllib.request.urlopen(request, timeout=30).read()

        def test_one(fauxth, fauxth_tenant):
            sign_up(fauxth, "one@example.com")
            pytest.tenant = fauxth_tenant("firebase")
            assert any(t["id"] == pytest.tenant for t in fauxth.request("GET", "/tenants")["tenants"])

        def test_two_sees_none_of_it(fauxth):
            assert fauxth.messages(to="one@example.com") == []
            assert all(t["id"] != pytest.tenant for t in fauxth.request("GET", "/tenants")["tenants"])
            sign_up(fauxth, "two@example.com")
            fauxth.snapshot("after-two")

        @pytest.mark.fauxth_snapshot("after-two")
        def test_three_starts_from_the_snapshot(fauxth):
            assert [m["to"] for m in fauxth.messages(to="two@example.com")] == ["two@example.com"]
    """)
    result = pytester.runpytest_subprocess(f"--fauxth-url={fauxth_server.url}", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=3)


def test_pip_installs_it_with_its_pytest_plugin(tmp_path):
    # From a copy: setuptools writes build/ and an egg-info beside the sources it builds.
    source = tmp_path / "source"
    shutil.copytree(ROOT / "clients" / "python", source, ignore=shutil.ignore_patterns("__pycache__", "tests"))
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    subprocess.run([str(venv / "bin" / "pip"), "install", "--quiet", "--disable-pip-version-check", str(source)], check=True, timeout=300)
    probe = ("import fauxth, importlib.metadata as m; "
             "print(fauxth.Fauxth.__name__, [e.value for e in m.entry_points(group='pytest11') if e.name == 'fauxth'])")
    out = subprocess.run([str(venv / "bin" / "python"), "-c", probe], check=True, capture_output=True, text=True).stdout
    assert out.strip() == "Fauxth ['fauxth.pytest_plugin']"
