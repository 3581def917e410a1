"""What the fuzz tests share: a fauxth process of their own (so the clock and state they wreck are nobody else's, and
its pid gives its memory), hostile values and bodies for hypothesis, and one check per dialect that an answer is a
success or a 4xx in that dialect's own error format, never a 5xx."""
import atexit
import json
import os
import pathlib
import time

import pytest
import requests
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from conftest import RELIABILITY_SCALE, Fauxth

ANON_KEY = ("eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJpc3MiOiJzdXBhYmFzZS1kZW1vIiwicm9sZSI6ImFub24iLCJleHAiOjE5ODM4MTI5OTZ9."
            "CRXP1A7WOeoJeXxjNni43kdQwgnWNReilDMblYTn_I0")
SERVICE_KEY = ("eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJpc3MiOiJzdXBhYmFzZS1kZW1vIiwicm9sZSI6InNlcnZpY2Vfcm9sZSIsImV4cCI6MTk4MzgxMjk5Nn0."
               "EGIM96RAZx35lJzdJsyH-qQwv8Hdp7fsn3W0YpN81IU")
MB = 1 << 20


def fuzz_settings(examples):
    """Hypothesis against a live server: no deadline, no example database in the tree, and the same examples on every
    smoke run (a CI run must not be flaky); the full run explores afresh."""
    return settings(max_examples=examples, deadline=None, database=None, derandomize=RELIABILITY_SCALE != "full",
                    suppress_health_check=list(HealthCheck), print_blob=True)


# --- The server -----------------------------------------------------------------------------------------------------

def rss_mb(pid):
    """The resident set of a process in MiB, from /proc."""
    for line in pathlib.Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


class FuzzServer:
    """One fauxth process for all the fuzz tests, with the tallies they record. A crash is counted and the process
    started again, so one crash fails its own test and not every later one."""

    def __init__(self):
        self.crashes = []
        self.instance = None
        self.start()
        self.baseline_rss = rss_mb(self.pid)

    def start(self):
        self.instance = Fauxth("--deterministic", "7")

    @property
    def url(self):
        return self.instance.url

    @property
    def pid(self):
        return self.instance.process.pid

    def alive(self):
        return self.instance.process.poll() is None

    def check_alive(self):
        """Fails (after restarting the process) when the server died since the last look."""
        if self.alive():
            return
        self.instance.stop()
        tail = "\n".join(self.instance.stderr.splitlines()[:12])
        self.crashes.append(tail)
        self.start()
        raise AssertionError(f"fauxth crashed:\n{tail}")

    def reset(self):
        """Back to the seed, with the clock back on real time (reset leaves the clock alone)."""
        assert requests.post(f"{self.url}/_emu/v1/reset", timeout=30).status_code == 200
        requests.post(f"{self.url}/_emu/v1/clock/freeze", json={"at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}, timeout=30)
        requests.post(f"{self.url}/_emu/v1/clock/resume", timeout=30)
        requests.delete(f"{self.url}/_emu/v1/faults", timeout=30)

    def healthy(self):
        response = requests.get(f"{self.url}/_emu/v1/health", timeout=10)
        return response.status_code == 200

    def stop(self):
        self.instance.stop()


_SERVER = []


@pytest.fixture(scope="session")
def fuzz_server():
    """The one fuzz server of this run, whichever fuzz module asks first (each module imports this fixture, and an
    imported session fixture would otherwise be a new one per module); stopped when Python exits."""
    if not _SERVER:
        _SERVER.append(FuzzServer())
        atexit.register(_SERVER[0].stop)
    return _SERVER[0]


class Tally:
    """Counts what a test sent and what came back; `record` hands the counts to the suite's figures."""

    def __init__(self):
        self.tried = 0
        self.server_errors = []

    def saw(self, response, label):
        self.tried += 1
        if response is not None and response.status_code >= 500:
            self.server_errors.append(f"{label}: {response.status_code} {response.text[:300]}")

    def record(self, figures, server):
        figures("inputs tried", self.tried)
        figures("5xx answers", len(self.server_errors))
        figures("crashes", 0 if server.alive() else 1)


@pytest.fixture
def tally(fuzz_server, figures):
    """The tally of one test, checked for crashes and recorded whatever the outcome."""
    fuzz_server.check_alive()
    counts = Tally()
    yield counts
    crashed = not fuzz_server.alive()
    counts.record(figures, fuzz_server)
    if crashed:
        fuzz_server.check_alive()


# --- Hostile values ---------------------------------------------------------------------------------------------------

HUGE = "x" * 1_000_000  # 1 MB, under the 1 MiB JSON limit once encoded
DEEP_LIST = "[" * 10_000 + "]" * 10_000
DEEP_OBJECT = '{"a":' * 10_000 + "1" + "}" * 10_000

# Strings a parser or a validator may trip on.
NASTY_STRINGS = ["", " ", "\x00", "a\x00b", "\u202e", "\ud800", "\udfff", "😀" * 50, "\r\n\r\nX-Injected: 1", "../../etc/passwd",
                 "%00", "%", "%zz", "' OR 1=1 --", "<script>alert(1)</script>", "${jndi:x}", "{{7*7}}", "\\", "\"", "a" * 300,
                 "@", "a@", "@b", "a@b", "+", "+1", "+00000000000000000000", "0", "-1", "1e999", "NaN", "true", "null", "[]", "{}",
                 "2026-13-45T99:99:99Z", "-999999-01-01T00:00:00Z", "9999-12-31T23:59:59Z", "eyJ.eyJ.x", "Bearer", "::", "/",
                 # Other scripts' digits, which a regular expression's \d takes and a number parser then refuses.
                 "١h", "٣٠s", "١٢٣٤٥٦", "2026-01-01T00:00:00+٠٥:٠٠", "２０２６-01-01T00:00:00Z",
                 # A number no Double holds, with a unit (an infinite duration once).
                 "9" * 400 + "h"]
NUMBERS = [0, -1, 1, 2**31, -2**31 - 1, 2**63, -2**63 - 1, 2**64, 10**30, -10**30, 1e308, -1e308, 5e-324, 0.5, -0.0,
           float("nan"), float("inf"), float("-inf")]


def scalars():
    return st.one_of(
        st.none(), st.booleans(), st.sampled_from(NUMBERS), st.integers(), st.floats(allow_nan=True, allow_infinity=True),
        st.sampled_from(NASTY_STRINGS), st.text(max_size=40), st.just(HUGE))


def hostile_values():
    """Any JSON value (NaN and Infinity included, written as JSON's unofficial literals), nested a little."""
    return st.recursive(scalars(), lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                           st.dictionaries(st.text(max_size=12), inner, max_size=4)),
                        max_leaves=8)


def mutated(base, fields):
    """A body from `base` (a plausible request for the route): some of its fields dropped, some given hostile values,
    some known or made-up fields added."""
    keys = sorted(base)
    return st.fixed_dictionaries({
        "keep": st.sets(st.sampled_from(keys)) if keys else st.just(set()),
        "hostile": st.dictionaries(st.sampled_from(sorted(set(keys) | set(fields))) if keys or fields else st.text(max_size=8),
                                   hostile_values(), max_size=3),
        "extra": st.dictionaries(st.text(max_size=10), hostile_values(), max_size=2),
    }).map(lambda parts: {**{k: base[k] for k in keys if k in parts["keep"]}, **parts["extra"], **parts["hostile"]})


def encoded(body):
    """A generated body as bytes: JSON with NaN/Infinity literals where the floats were not finite."""
    return json.dumps(body, allow_nan=True).encode("utf-8", "surrogatepass")


def duplicate_keys(body):
    """The same object with every key written twice, the second time with another value."""
    parts = [f"{json.dumps(k)}:{json.dumps(v)}" for k, v in body.items()]
    parts += [f"{json.dumps(k)}:{json.dumps(['dup'])}" for k in body]
    return ("{" + ",".join(parts) + "}").encode()


def raw_bodies(base):
    """Fixed malformed bodies every route gets: (label, bytes, content type)."""
    valid = encoded(base)
    form = "&".join(f"{k}={v}" for k, v in base.items() if isinstance(v, str)).encode()
    return [
        ("empty", b"", "application/json"),
        ("no content type", valid, None),
        ("null", b"null", "application/json"),
        ("array", b"[1,2,3]", "application/json"),
        ("string", b'"text"', "application/json"),
        ("number", b"12", "application/json"),
        ("truncated", valid[:-1] if len(valid) > 1 else b"{", "application/json"),
        ("trailing garbage", valid + b"}}", "application/json"),
        ("NaN literal", b'{"a": NaN, "b": Infinity, "c": -Infinity}', "application/json"),
        ("huge number", b'{"n": 1' + b"0" * 400 + b"}", "application/json"),
        ("huge exponent", b'{"n": 1e99999999999999999999}', "application/json"),
        ("invalid UTF-8", b'{"email": "\xff\xfe\xc0\x80", "\xed\xa0\x80": 1}', "application/json"),
        ("invalid UTF-8 outside strings", b'{\xff: 1}', "application/json"),
        ("lone surrogate escape", b'{"email": "\\ud800", "password": "\\udc00\\ud800x"}', "application/json"),
        ("bad escapes", b'{"a": "\\x41\\u12"}', "application/json"),
        ("BOM", b"\xef\xbb\xbf" + valid, "application/json"),
        ("nul bytes", b"\x00" * 64, "application/json"),
        ("duplicate keys", duplicate_keys(base) if base else b'{"a":1,"a":2}', "application/json"),
        ("deep list", DEEP_LIST.encode(), "application/json"),
        ("deep object", DEEP_OBJECT.encode(), "application/json"),
        ("1 MB string", encoded({**base, (list(base) or ["pad"])[0]: HUGE}), "application/json"),
        ("over 1 MiB", encoded({**base, "pad": "y" * (2 * MB)}), "application/json"),
        ("form where JSON is expected", form, "application/x-www-form-urlencoded"),
        ("JSON sent as form", valid, "application/x-www-form-urlencoded"),
        ("form with bad percent escapes", b"a=%zz&b=%&%%=1&=&&c", "application/x-www-form-urlencoded"),
        ("form with invalid UTF-8", b"email=%ff%fe&password=\xff", "application/x-www-form-urlencoded"),
        ("multipart garbage", b"--x\r\nContent-Disposition: form-data\r\n\r\n", "multipart/form-data; boundary=x"),
        ("text/plain", valid, "text/plain"),
        ("bad content type", valid, "application/json; charset=klingon; ;;="),
    ]


# --- Dialect formats ------------------------------------------------------------------------------------------------

def _json(response):
    try:
        return response.json()
    except ValueError:
        return None


def _is_html(response):
    return response.headers.get("Content-Type", "").startswith("text/html")


def supabase_error(response):
    """GoTrue's shapes: legacy `{code:int,error_code,msg}`, `{code,message}` for a versioned client, or the OAuth
    `{error,error_description}` of some grants; and its router's own answers to a path or method it does not serve
    (Go's plain-text 404, an empty 405 naming the methods in `Allow`)."""
    if response.status_code == 404 and response.text == "404 page not found\n":
        return True
    if response.status_code == 405 and response.text == "" and response.headers.get("Allow"):
        return True
    body = _json(response)
    if not isinstance(body, dict):
        return False
    if isinstance(body.get("code"), int) and isinstance(body.get("error_code"), str) and isinstance(body.get("msg"), str):
        return body["code"] == response.status_code
    if isinstance(body.get("code"), str) and isinstance(body.get("message"), str):
        return True
    return isinstance(body.get("error"), str) and isinstance(body.get("error_description"), str)


def firebase_error(response):
    body = _json(response)
    error = body.get("error") if isinstance(body, dict) else None
    return (isinstance(error, dict) and error.get("code") == response.status_code and isinstance(error.get("message"), str)
            and isinstance(error.get("errors"), list))


def cognito_error(response):
    body = _json(response)
    return (response.status_code == 400 and isinstance(body, dict) and isinstance(body.get("__type"), str)
            and isinstance(body.get("message"), str) and response.headers.get("x-amzn-ErrorType", "").startswith(body["__type"]))


def control_error(response):
    body = _json(response)
    error = body.get("error") if isinstance(body, dict) else None
    return isinstance(error, dict) and isinstance(error.get("code"), str) and isinstance(error.get("message"), str)


def oauth_error(response):
    """OAuth 2.0's `{error, error_description?}` (Cognito's /oauth2 endpoints, the fake providers' token endpoints)."""
    body = _json(response)
    return isinstance(body, dict) and isinstance(body.get("error"), str)


def message_error(response):
    """Cognito's answer for an unknown pool's well-known documents: 404 `{"message"}`."""
    body = _json(response)
    return isinstance(body, dict) and isinstance(body.get("message"), str)


def emulator_error(response):
    """The Firebase Auth emulator's own pages answer JSON clients `{"authEmulator":{"error"}}`."""
    body = _json(response)
    return isinstance(body, dict) and isinstance(body.get("authEmulator"), dict) and "error" in body["authEmulator"]


def twilio_error(response):
    body = _json(response)
    return isinstance(body, dict) and isinstance(body.get("code"), int) and body.get("status") == response.status_code


def html_or(*checks):
    """Pages a person sees answer errors as HTML; their JSON errors (if any) must still be in one of `checks`' shapes."""
    return lambda response: _is_html(response) or any(check(response) for check in checks)


def judge(response, error_format, label):
    """Asserts the answer is a success, a redirect or a 4xx in the dialect's own error format. With FUZZ_LOG=file set,
    notes every finding there instead and goes on (to survey a binary's bugs in one run)."""
    if os.environ.get("FUZZ_LOG"):
        bad = response.status_code >= 500 or (response.status_code >= 400 and not error_format(response))
        if bad:
            with open(os.environ["FUZZ_LOG"], "a") as log:
                log.write(f"{response.status_code} {label[:300]!r} -> {response.text[:300]!r}\n")
        return
    assert response.status_code < 500, f"{label}: {response.status_code} {response.text[:500]}"
    if response.status_code >= 400:
        assert error_format(response), f"{label}: {response.status_code} not in the dialect's error format: {response.text[:500]}"
