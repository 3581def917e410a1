"""Passwords never leave the emulator: after sign-ups, sign-ins, password changes and a wrong password on each dialect,
the password text appears in no event, message, control API answer, log line or snapshot file."""
import json

import pytest
import requests

from conftest import COGNITO_CLIENT, COGNITO_POOL, FIREBASE_API_KEY

pytestmark = pytest.mark.reliability

SECRET = "Zebra-Tulip-4417-secret"
OTHER = "Quartz-Maple-9931-secret"


def test_a_password_appears_nowhere_but_in_the_requests_that_carry_it(start_fauxth, tmp_path):
    fauxth = start_fauxth("--log-format", "json")
    url = fauxth.url
    requests.post(f"{url}/auth/v1/signup", headers={"apikey": "a"}, json={"email": "s@example.com", "password": SECRET}, timeout=10)
    requests.post(f"{url}/auth/v1/token?grant_type=password", headers={"apikey": "a"}, json={"email": "alice@example.com", "password": SECRET}, timeout=10)
    fb = requests.post(f"{url}/identitytoolkit.googleapis.com/v1/accounts:signUp", params={"key": FIREBASE_API_KEY},
                       json={"email": "s@example.com", "password": SECRET, "returnSecureToken": True}, timeout=10).json()
    requests.post(f"{url}/identitytoolkit.googleapis.com/v1/accounts:update", params={"key": FIREBASE_API_KEY},
                  json={"idToken": fb["idToken"], "password": OTHER, "returnSecureToken": True}, timeout=10)
    requests.post(f"{url}/", timeout=10, headers={"X-Amz-Target": "AWSCognitoIdentityProviderService.SignUp",
                                                  "Content-Type": "application/x-amz-json-1.1"},
                  json={"ClientId": COGNITO_CLIENT, "Username": "s@example.com", "Password": SECRET + "a1",
                        "UserAttributes": [{"Name": "email", "Value": "s@example.com"}]})
    fauxth.control("PATCH", f"/tenants/default/users/00000000-0000-4000-8000-000000000b0b", json={"password": OTHER})
    seen = []
    for path in ("/events?limit=1000", "/messages", "/tenants", f"/tenants/{COGNITO_POOL}/users?q=s@example.com",
                 "/tenants/default/users?q=example", "/tenants/demo-fauxth/users?q=example", "/info", "/faults/journal"):
        seen.append(fauxth.control("GET", path).text)
    snapshot = tmp_path / "state.sqlite"
    assert fauxth.control("POST", "/snapshots/save", json={"path": str(snapshot)}).status_code == 200
    download = fauxth.control("GET", "/snapshots/download").content
    fauxth.stop()
    logs = []
    while not fauxth.lines.empty():
        logs.append(fauxth.lines.get())
    assert any(json.loads(line).get("kind") == "event" for line in logs if line.startswith("{")), "the log carried events"
    for secret in (SECRET, OTHER):
        for text in seen + logs + [fauxth.stderr]:
            assert secret not in text
        assert secret.encode() not in snapshot.read_bytes()
        assert secret.encode() not in download
