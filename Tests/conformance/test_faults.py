"""Fault rules against the built binary: each dialect's official client meets the injected error and raises its own typed
error; a reset connection, a hang and a truncated body seen by the client as such; a seeded probability rule repeating its
sequence; a quota lifting when the emulator clock advances; scenarios loaded at start and again after a reset."""
import re

import botocore.exceptions
import pytest
import requests
from supabase import create_client
from supabase_auth.errors import AuthApiError, AuthRetryableError

from conftest import COGNITO_CLIENT, FIREBASE_API_KEY, ROOT, CognitoIdp, firebase_error

ANON_KEY = (
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJpc3MiOiJzdXBhYmFzZS1kZW1vIiwicm9sZSI6ImFub24iLCJleHAiOjE5ODM4MTI5OTZ9."
    "CRXP1A7WOeoJeXxjNni43kdQwgnWNReilDMblYTn_I0"
)


def add(fauxth, rule):
    response = fauxth.control("POST", "/faults", json=rule)
    assert response.status_code == 201, response.text
    return response.json()["rules"]


def firebase_sign_in(fauxth, email="alice@example.com", password="password123", timeout=30):
    return requests.post(f"{fauxth.url}/identitytoolkit.googleapis.com/v1/accounts:signInWithPassword", params={"key": FIREBASE_API_KEY},
                         json={"email": email, "password": password, "returnSecureToken": True}, timeout=timeout)


def test_supabase_py_raises_its_rate_limit_error_until_the_quota_window_rolls_over(fauxth):
    add(fauxth, {"id": "signin-quota", "match": {"operation": "supabase:token.password"}, "schedule": {"quota": {"limit": 2, "window": 60}}})
    fauxth.control("POST", "/clock/freeze")
    auth = create_client(fauxth.url, ANON_KEY).auth
    for _ in range(2):
        assert auth.sign_in_with_password({"email": "alice@example.com", "password": "password123"}).session
    with pytest.raises(AuthApiError) as raised:
        auth.sign_in_with_password({"email": "alice@example.com", "password": "password123"})
    assert raised.value.status == 429 and raised.value.code == "over_request_rate_limit"
    limited = requests.post(f"{fauxth.url}/auth/v1/token?grant_type=password", headers={"apikey": ANON_KEY},
                            json={"email": "alice@example.com", "password": "password123"}, timeout=30)
    assert limited.headers["x-fauxth-fault"] == "signin-quota" and limited.headers["x-sb-error-code"] == "over_request_rate_limit"
    assert 0 < int(limited.headers["Retry-After"]) <= 60
    assert fauxth.control("POST", "/clock/advance", json={"seconds": 61}).status_code == 200
    assert auth.sign_in_with_password({"email": "alice@example.com", "password": "password123"}).session


def test_firebase_gets_identity_toolkit_errors_and_the_journal_records_each_firing(fauxth):
    add(fauxth, {"id": "fb-busy", "match": {"operation": "firebase:accounts.signInWithPassword", "identifier": "*@example.com"},
                 "effect": {"type": "error", "error": "rate_limited"}, "schedule": {"times": 1}})
    add(fauxth, {"id": "fb-down", "match": {"dialect": "firebase"}, "effect": {"type": "error", "error": "unavailable"}, "schedule": {"after": 1, "times": 1}})
    assert firebase_error(firebase_sign_in(fauxth)) == "TOO_MANY_ATTEMPTS_TRY_LATER"
    # The first rule that fires ends the search: fb-down never saw that call, so it lets the next one through first.
    assert firebase_sign_in(fauxth).status_code == 200
    down = firebase_sign_in(fauxth)
    assert down.status_code == 503 and down.json()["error"]["status"] == "UNAVAILABLE" and down.headers["x-fauxth-fault"] == "fb-down"
    assert firebase_sign_in(fauxth).status_code == 200
    firings = fauxth.control("GET", "/faults/journal").json()["firings"]
    assert [(f["rule"], f["operation"], f["tenant"], f["identifier"]) for f in firings] == [
        ("fb-busy", "firebase:accounts.signInWithPassword", "demo-fauxth", "alice@example.com"),
        ("fb-down", "firebase:accounts.signInWithPassword", "demo-fauxth", "alice@example.com")]
    rules = {r["id"]: r["state"] for r in fauxth.control("GET", "/faults").json()["rules"]}
    assert rules["fb-busy"] == {"matched": 1, "fired": 1, "retired": True, "expires_at": None}
    assert fauxth.control("GET", "/events", params={"type": "fault.fired"}).json()["events"][0]["detail"]["rule"] == "fb-down"


def test_boto3_raises_the_cognito_exception_class(cognito):
    add(cognito.fauxth, {"match": {"operation": "cognito:InitiateAuth", "client_id": COGNITO_CLIENT}, "effect": {"type": "error", "error": "rate_limited"}})
    with pytest.raises(cognito.idp.exceptions.TooManyRequestsException):
        cognito.password_auth("alice@example.com")
    cognito.fauxth.control("DELETE", "/faults")
    add(cognito.fauxth, {"match": {"operation": "cognito:InitiateAuth"}, "effect": {"type": "error", "error": "server_error"}})
    with pytest.raises(cognito.idp.exceptions.InternalErrorException):
        cognito.password_auth("alice@example.com")
    cognito.fauxth.control("DELETE", "/faults")
    assert cognito.password_auth("alice@example.com")["AuthenticationResult"]["AccessToken"]


def test_a_reset_a_hang_and_a_truncated_body_reach_the_client_as_such(fauxth):
    add(fauxth, {"id": "rst", "match": {"operation": "firebase:accounts.signInWithPassword", "identifier": "reset@example.com"}, "effect": {"type": "reset"}})
    add(fauxth, {"id": "hang", "match": {"operation": "firebase:accounts.signInWithPassword", "identifier": "hang@example.com"},
                 "effect": {"type": "hang", "max_ms": 5000}})
    add(fauxth, {"id": "cut", "match": {"operation": "firebase:accounts.signInWithPassword", "identifier": "alice@example.com"},
                 "effect": {"type": "truncate", "bytes": 10}})
    with pytest.raises(requests.exceptions.ConnectionError):
        firebase_sign_in(fauxth, "reset@example.com")
    with pytest.raises(requests.exceptions.ReadTimeout):
        firebase_sign_in(fauxth, "hang@example.com", timeout=1)
    with pytest.raises((requests.exceptions.ChunkedEncodingError, requests.exceptions.ConnectionError)):
        firebase_sign_in(fauxth, "alice@example.com")
    # The server is still there for everyone else.
    assert firebase_sign_in(fauxth, "bob@example.com").status_code == 200


def test_a_slow_body_and_a_delay_still_deliver_the_real_answer(fauxth):
    add(fauxth, {"id": "slow", "match": {"operation": "firebase:accounts.signInWithPassword"}, "effect": {"type": "slow", "bytes": 200, "interval_ms": 20}})
    slow = firebase_sign_in(fauxth)
    assert slow.status_code == 200 and slow.json()["email"] == "alice@example.com" and slow.headers["x-fauxth-fault"] == "slow"
    fauxth.control("DELETE", "/faults/slow")
    add(fauxth, {"id": "late", "match": {"operation": "firebase:accounts.signInWithPassword"}, "effect": {"type": "delay", "ms": 50}})
    late = firebase_sign_in(fauxth)
    assert late.status_code == 200 and late.headers["x-fauxth-fault"] == "late"
    assert fauxth.control("DELETE", "/faults/nosuch").status_code == 404


def test_a_seeded_probability_rule_fails_the_same_calls_in_every_run(fauxth):
    rule = {"id": "coin", "match": {"operation": "firebase:accounts.lookup"}, "effect": {"type": "error", "error": "server_error"},
            "schedule": {"probability": 0.5, "seed": 4242}}

    def run():
        fauxth.control("POST", "/reset")
        add(fauxth, rule)
        outcomes = []
        for _ in range(24):
            response = requests.post(f"{fauxth.url}/identitytoolkit.googleapis.com/v1/accounts:lookup", params={"key": FIREBASE_API_KEY},
                                     json={"idToken": "x"}, timeout=30)
            outcomes.append(response.status_code == 500)
        return outcomes

    first, second = run(), run()
    assert first == second and 4 < sum(first) < 20


def test_a_bad_rule_gets_a_control_api_error(fauxth):
    for rule, field in [({"effect": {"type": "explode"}}, "effect.type"), ({"match": {"dialect": "aws"}, "effect": {"type": "close"}}, "match.dialect"),
                        ({"effect": {"type": "hang", "max_ms": 10_000_000}}, "effect.max_ms"), ({"schedule": {"probability": 2}, "effect": {"type": "close"}}, "schedule.probability"),
                        ({"match": {}}, "effect")]:
        response = fauxth.control("POST", "/faults", json=rule)
        assert response.status_code == 400 and field in response.text, (rule, response.text)
    unknown = fauxth.control("POST", "/faults", json={"scenario": "nope"})
    assert unknown.status_code == 400 and "flaky-network" in unknown.text
    listed = fauxth.control("GET", "/faults/operations").json()
    assert {"supabase:token.password", "supabase:otp", "firebase:accounts.signInWithPassword", "firebase:securetoken.refresh",
            "cognito:InitiateAuth", "cognito:oauth2.token"} <= set(listed["operations"])
    assert {s["name"] for s in listed["scenarios"]} >= {"flaky-network", "sms-provider-down", "signup-rate-limited", "slow-token-refresh",
                                                       "service-down-five-minutes", "first-two-calls-fail"}


def test_the_docs_name_every_operation_a_rule_can_match(fauxth):
    """docs/faults-and-policies.md lists the operation names per dialect, in the order the API gives them."""
    doc = (ROOT / "docs" / "faults-and-policies.md").read_text()
    served = {}
    for operation in fauxth.control("GET", "/faults/operations").json()["operations"]:
        dialect, name = operation.split(":", 1)
        served.setdefault(dialect, []).append(name)
    assert set(served) == {"supabase", "firebase", "cognito"}
    for dialect, names in served.items():
        line = re.search(rf"^- `{dialect}:` (.*)$", doc, re.M)
        assert line and re.findall(r"`([^`]+)`", line.group(1)) == names, f"the {dialect} line of docs/faults-and-policies.md"


def test_a_scenario_loaded_at_start_comes_back_after_a_reset(start_fauxth):
    server = start_fauxth("--faults", "first-two-calls-fail")
    cognito = CognitoIdp(server)
    cognito.real_time()

    def attempts():
        results = []
        for _ in range(3):
            try:
                results.append(bool(cognito.password_auth("alice@example.com")["AuthenticationResult"]))
            except botocore.exceptions.ClientError as error:
                results.append(error.response["Error"]["Code"])
        return results

    assert attempts() == ["InternalErrorException", "InternalErrorException", True]
    assert server.control("POST", "/reset").status_code == 200
    assert attempts() == ["InternalErrorException", "InternalErrorException", True]


def test_the_service_down_scenario_lifts_after_five_minutes_of_emulator_time(fauxth):
    fauxth.control("POST", "/clock/freeze")
    assert fauxth.control("POST", "/faults", json={"scenario": "service-down-five-minutes"}).status_code == 201
    auth = create_client(fauxth.url, ANON_KEY).auth
    # supabase-py treats a 502/503/504 as retryable, with its own error type.
    with pytest.raises(AuthRetryableError) as raised:
        auth.sign_in_with_password({"email": "alice@example.com", "password": "password123"})
    assert raised.value.status == 503
    assert firebase_sign_in(fauxth).status_code == 503
    fauxth.control("POST", "/clock/advance", json={"seconds": 300})
    assert auth.sign_in_with_password({"email": "alice@example.com", "password": "password123"}).session
    assert fauxth.control("GET", "/faults").json()["rules"] == []
