"""The control API fuzzed from its own OpenAPI document (Sources/Console/openapi.json) with schemathesis: for every
operation, requests that follow the schema and requests that break it (wrong types, missing and extra fields, odd
path and query values), plus the known tenants and users as path values now and then. Every answer must be a success
or a 4xx with the documented `{"error":{"code","message"}}`; never a 5xx, never a crash. Long polls are given
timeout=0, snapshot and export paths are kept inside a temporary directory, and the event stream is opened and
dropped by a test of its own."""
import pathlib
import re

import pytest
import requests
import schemathesis
from hypothesis import given
from hypothesis import strategies as st

from conftest import COGNITO_POOL, FIREBASE_PROJECT, sized
from fuzz_support import control_error, fuzz_server, fuzz_settings, judge, tally  # noqa: F401

pytestmark = pytest.mark.reliability

SCHEMA = schemathesis.openapi.from_path(pathlib.Path(__file__).resolve().parents[2] / "Sources" / "Console" / "openapi.json")
OPERATIONS = [result.ok() for result in SCHEMA.get_all_operations()]
STREAMS = {"/events/stream"}
EXAMPLES = sized(12, 120)
KNOWN = {
    "tenant": ["default", FIREBASE_PROJECT, COGNITO_POOL, "nope"],
    "user": ["00000000-0000-4000-8000-00000000a11c", "FAUXTHALICE00000000000000001", "00000000-0000-4000-8000-0000c0a11ce0"],
    "provider": ["google", "apple", "oidc"],
    "name": ["fuzz"],
}
# Body fields that name a file or a directory on this machine.
PATH_FIELDS = ("path", "dir")


def operation_id(operation):
    return f"{operation.method.upper()} {operation.path}"


def neutered(case, draw, tmp_path):
    """Makes a generated request safe to send: long polls answer at once, files stay in `tmp_path`, and path
    parameters are sometimes the seed's real tenants and users so the handlers get past the lookups."""
    if case.operation.path.endswith("/wait"):
        case.query = {**(case.query or {}), "timeout": 0}
    if isinstance(case.body, dict):
        for field in PATH_FIELDS:
            if isinstance(case.body.get(field), str):
                name = "".join(c for c in case.body[field] if c.isalnum())[:40] or "x"
                case.body[field] = str(tmp_path / name)
    for name, values in KNOWN.items():
        if case.path_parameters and name in case.path_parameters and draw(st.booleans()):
            case.path_parameters[name] = draw(st.sampled_from(values))
    return case


@pytest.mark.parametrize("operation", [op for op in OPERATIONS if op.path not in STREAMS], ids=operation_id)
def test_every_control_operation_answers_generated_requests_without_a_5xx(fuzz_server, tally, operation, tmp_path):
    fuzz_server.reset()
    cases = st.one_of(operation.as_strategy(generation_mode=schemathesis.GenerationMode.POSITIVE),
                      operation.as_strategy(generation_mode=schemathesis.GenerationMode.NEGATIVE))

    @fuzz_settings(EXAMPLES)
    @given(case=cases, data=st.data())
    def fuzz(case, data):
        case = neutered(case, data.draw, tmp_path)
        response = case.call(base_url=f"{fuzz_server.url}/_emu/v1", timeout=30)
        label = f"{operation_id(operation)} path={case.path_parameters} query={case.query} body={case.body!r:.300}"
        tally.saw(response, label)
        judge(response, control_error, label)

    fuzz()
    assert fuzz_server.healthy()


def test_the_event_stream_can_be_opened_and_dropped_many_times(fuzz_server, tally):
    for _ in range(sized(20, 200)):
        with requests.get(f"{fuzz_server.url}/_emu/v1/events/stream", stream=True, timeout=10) as response:
            tally.saw(response, "GET /events/stream")
            assert response.status_code == 200
            assert response.headers["Content-Type"].startswith("text/event-stream")
    assert fuzz_server.healthy()


def test_the_clock_cannot_be_moved_past_what_tokens_can_carry(fuzz_server, tally):
    """Regression: advancing the clock by 1e300 seconds was accepted, and the next token minted crashed the process
    (a Double too big for Int in `exp`)."""
    fuzz_server.reset()
    for seconds in (1e300, -1e300, 1e12, -1e12):
        response = requests.post(f"{fuzz_server.url}/_emu/v1/clock/advance", json={"seconds": seconds}, timeout=10)
        tally.saw(response, f"advance {seconds}")
        assert response.status_code == 400, response.text
        assert control_error(response)
    response = requests.post(f"{fuzz_server.url}/auth/v1/token?grant_type=password", timeout=10, headers={"apikey": "anon"},
                             json={"email": "alice@example.com", "password": "password123"})
    tally.saw(response, "sign-in after the refused advances")
    assert response.status_code == 200
    assert fuzz_server.alive()


def gotrue_variables():
    """Every GoTrue variable Fauxth reads (`SupabaseConfig.knownVariables`, from the source, so a new one is covered
    the day it is added), and a provider's and a hook's, which are read by prefix."""
    source = (pathlib.Path(__file__).resolve().parents[2] / "Sources" / "SupabaseAPI" / "SupabaseConfig.swift").read_text()
    listed = source[source.index("static let knownVariables"):]
    names = set(re.findall(r'"((?:GOTRUE|API|DATABASE)_[A-Z0-9_]+)"', listed[:listed.index("]")]))
    assert len(names) > 60, "SupabaseConfig.knownVariables was not found where this test looks for it"
    return sorted(names) + ["GOTRUE_EXTERNAL_GOOGLE_ENABLED", "GOTRUE_EXTERNAL_GOOGLE_URL", "GOTRUE_HOOK_SEND_EMAIL_ENABLED",
                            "GOTRUE_HOOK_SEND_EMAIL_URI"]


# Numbers no integer or duration holds, their signs, NaN, empty and blank, a digit of another script, Go's longest
# duration and one past it, a rate past 2^52, a NUL.
GOTRUE_VALUES = sized(["1e300", "-inf", "nan", "", "-9223372036854775808", "\u0661", "2562048h", "9999999999999999/1s"],
                      ["1e300", "-1e300", "inf", "-inf", "nan", "9223372036854775807", "-9223372036854775808",
                       "99999999999999999999", "", " ", "\u0661", "0x10", "1e-300", "-1", "2562047h", "2562048h",
                       "9223372036s", "1/0s", "9999999999999999/1s", "x" * 5000, "http://[::1", "%", "{{", "\x00"])


def test_every_gotrue_variable_takes_hostile_values_without_a_5xx(fuzz_server, tally):
    """Regression: a rate limit of 1e300 ended the process when the project was made (a Double too big for Int). Each
    variable with each value makes a project (201) or is refused (400); one that is made is then used."""
    control = f"{fuzz_server.url}/_emu/v1"
    for name in gotrue_variables():
        for value in GOTRUE_VALUES:
            made = requests.post(f"{control}/tenants", json={"id": "fuzz-env", "dialect": "supabase", "gotrue_env": {name: value}},
                                 timeout=10)
            tally.saw(made, f"gotrue_env {name}={value[:20]!r}")
            assert made.status_code in (201, 400), (name, value[:20], made.text[:300])
            if made.status_code != 201:
                assert control_error(made)
                continue
            auth = f"{fuzz_server.url}/projects/fuzz-env/auth/v1"
            for used in (requests.get(f"{auth}/settings", headers={"apikey": "anon"}, timeout=10),
                         requests.post(f"{auth}/signup", json={"email": "env@fuzz.test", "password": "secret123"},
                                       headers={"apikey": "anon"}, timeout=10)):
                tally.saw(used, f"{used.request.method} {used.request.url} with {name}={value[:20]!r}")
                assert used.status_code < 500, (name, value[:20], used.text[:300])
            assert requests.delete(f"{control}/tenants/fuzz-env", timeout=10).status_code in (200, 204)
    assert fuzz_server.alive()
