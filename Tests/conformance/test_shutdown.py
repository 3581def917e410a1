"""SIGTERM and SIGINT stop the server within a second or two whatever is connected (the console's event stream, a
long poll, a request a fault rule holds), and --snapshot is saved before it exits 0. A graceful shutdown waits for
the requests in progress, and these only end when the client leaves or minutes pass."""
import signal
import threading
import time

import pytest
import requests

from conftest import FIREBASE_API_KEY

PROMPTLY = 2.0  # seconds from the signal to the exit, with room for a loaded CI machine


def sign_up(fauxth, email):
    response = requests.post(f"{fauxth.url}/auth/v1/signup", json={"email": email, "password": "secret123"}, timeout=10)
    assert response.status_code == 200, response.text


def in_background(call):
    """Runs `call` on a thread; the returned dict gets its result (or the exception it raised) under "result"."""
    outcome = {}

    def run():
        try:
            outcome["result"] = call()
        except Exception as error:  # noqa: BLE001 (the test looks at what the client saw)
            outcome["result"] = error

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    outcome["thread"] = thread
    return outcome


def stop_and_time(fauxth, sig):
    started = time.monotonic()
    fauxth.process.send_signal(sig)
    code = fauxth.process.wait(timeout=30)
    return code, time.monotonic() - started


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_ends_the_event_stream_and_long_polls_and_saves_the_snapshot(start_fauxth, tmp_path, sig):
    path = tmp_path / "state.sqlite"
    first = start_fauxth("--snapshot", str(path))
    sign_up(first, "before-the-signal@example.com")
    stream = requests.get(f"{first.url}/_emu/v1/events/stream", stream=True, timeout=30)
    lines = stream.iter_lines(decode_unicode=True)
    assert next(lines) == ": connected"
    messages = in_background(lambda: first.control("GET", "/messages/wait", params={"to": "nobody@example.com", "timeout": 300}))
    deeplinks = in_background(lambda: first.control("GET", "/deeplinks/wait", params={"scheme": "nowhere", "timeout": 300}))
    time.sleep(1)  # both polls are waiting on the server by now
    assert messages["thread"].is_alive() and deeplinks["thread"].is_alive()

    code, elapsed = stop_and_time(first, sig)
    assert code == 0, first.process.stderr.read()
    assert elapsed < PROMPTLY, f"took {elapsed:.2f}s to stop"
    # The stream ended cleanly (its last chunk sent, so reading it to the end raises nothing), with nothing more
    # than the blank line that closed the ": connected" frame; each poll was told why it ended.
    assert [line for line in lines if line] == []
    for poll in (messages, deeplinks):
        poll["thread"].join(5)
        response = poll["result"]
        assert isinstance(response, requests.Response), response
        assert response.status_code == 503 and response.json()["error"]["code"] == "shutting_down"

    second = start_fauxth("--snapshot", str(path))
    users = second.control("GET", "/tenants/default/users", params={"email": "before-the-signal@example.com"}).json()["users"]
    assert len(users) == 1


def test_a_request_held_by_a_hang_rule_does_not_hold_the_shutdown(start_fauxth):
    fauxth = start_fauxth()
    rule = {"id": "hang", "match": {"operation": "firebase:accounts.signInWithPassword"}, "effect": {"type": "hang", "max_ms": 300_000}}
    assert fauxth.control("POST", "/faults", json=rule).status_code == 201
    held = in_background(lambda: requests.post(
        f"{fauxth.url}/identitytoolkit.googleapis.com/v1/accounts:signInWithPassword", params={"key": FIREBASE_API_KEY},
        json={"email": "alice@example.com", "password": "password123", "returnSecureToken": True}, timeout=60))
    time.sleep(1)
    assert held["thread"].is_alive()

    code, elapsed = stop_and_time(fauxth, signal.SIGTERM)
    assert code == 0
    assert elapsed < PROMPTLY, f"took {elapsed:.2f}s to stop"
    # As a hang ends: the connection closes unanswered.
    held["thread"].join(5)
    assert isinstance(held["result"], requests.exceptions.ConnectionError), held["result"]
