"""The Supabase slice driven by the official client (supabase-py / supabase_auth)."""
import base64
import hashlib
import json

import pytest
import requests
from supabase import create_client
from supabase_auth.errors import AuthApiError, AuthWeakPasswordError

ANON_KEY = (
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJpc3MiOiJzdXBhYmFzZS1kZW1vIiwicm9sZSI6ImFub24iLCJleHAiOjE5ODM4MTI5OTZ9."
    "CRXP1A7WOeoJeXxjNni43kdQwgnWNReilDMblYTn_I0"
)


def client(fauxth):
    return create_client(fauxth.url, ANON_KEY)


def claims(jwt):
    payload = jwt.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))


def test_sign_up_returns_an_unconfirmed_user_and_sends_the_confirmation_email(fauxth):
    response = client(fauxth).auth.sign_up({
        "email": "newcomer@example.com", "password": "secret123",
        "options": {"data": {"full_name": "New Comer"}, "email_redirect_to": "myapp://welcome"},
    })
    assert response.session is None
    assert response.user.email == "newcomer@example.com"
    assert response.user.user_metadata == {"full_name": "New Comer"}
    assert response.user.email_confirmed_at is None
    assert response.user.confirmation_sent_at is not None

    message = fauxth.wait_message("newcomer@example.com", purpose="verify_email")
    assert message["channel"] == "email"
    assert message["status"] == "sent"
    [code] = message["codes"]
    assert len(code) == 6 and code.isdigit()
    token_hash = hashlib.sha224(("newcomer@example.com" + code).encode()).hexdigest()
    [link] = message["links"]
    # supabase-py's default flow is PKCE: it sent a code_challenge, so GoTrue prefixes the link token.
    assert link == f"{fauxth.url}/auth/v1/verify?token=pkce_{token_hash}&type=signup&redirect_to=myapp://welcome"


def test_an_unconfirmed_user_cannot_sign_in(fauxth):
    auth = client(fauxth).auth
    auth.sign_up({"email": "pending@example.com", "password": "secret123"})
    with pytest.raises(AuthApiError) as error:
        auth.sign_in_with_password({"email": "pending@example.com", "password": "secret123"})
    assert error.value.code == "email_not_confirmed"
    assert error.value.status == 400


def test_a_seeded_confirmed_user_signs_in_and_gets_a_signed_session(fauxth):
    auth = client(fauxth).auth
    response = auth.sign_in_with_password({"email": "alice@example.com", "password": "password123"})
    session = response.session
    assert session.token_type == "bearer"
    assert session.expires_in == 3600
    assert len(session.refresh_token) == 12
    assert session.user.email == "alice@example.com"
    assert session.user.identities[0].provider == "email"
    token = claims(session.access_token)
    assert token["sub"] == session.user.id
    assert token["role"] == "authenticated"
    assert token["aal"] == "aal1"
    assert token["amr"][0]["method"] == "password"
    assert token["exp"] - token["iat"] == 3600
    # The client keeps the session and reports it.
    assert auth.get_session().access_token == session.access_token


def test_the_access_token_is_signed_with_the_projects_jwt_secret(fauxth):
    import hmac

    session = client(fauxth).auth.sign_in_with_password({"email": "alice@example.com", "password": "password123"}).session
    head, payload, signature = session.access_token.split(".")
    secret = b"super-secret-jwt-token-with-at-least-32-characters-long"
    expected = base64.urlsafe_b64encode(hmac.new(secret, f"{head}.{payload}".encode(), hashlib.sha256).digest()).rstrip(b"=")
    assert signature.encode() == expected


def test_wrong_password_and_unknown_email_raise_invalid_credentials(fauxth):
    auth = client(fauxth).auth
    for email in ("alice@example.com", "nobody@example.com"):
        with pytest.raises(AuthApiError) as error:
            auth.sign_in_with_password({"email": email, "password": "wrong-password"})
        assert error.value.code == "invalid_credentials"
        assert error.value.message == "Invalid login credentials"
    reasons = [e["detail"]["reason"] for e in fauxth.control("GET", "/events", params={"type": "signin.failed"}).json()["events"]]
    assert reasons == ["unknown_user", "wrong_password"]


def test_a_weak_password_raises_the_weak_password_error_with_reasons(fauxth):
    with pytest.raises(AuthWeakPasswordError) as error:
        client(fauxth).auth.sign_up({"email": "weak@example.com", "password": "123"})
    assert error.value.reasons == ["length"]


def test_signing_up_a_confirmed_email_again_does_not_reveal_it(fauxth):
    response = client(fauxth).auth.sign_up({"email": "alice@example.com", "password": "another-one"})
    assert response.user.email == "alice@example.com"
    assert response.user.id != "00000000-0000-4000-8000-00000000a11c"
    assert fauxth.control("GET", "/messages", params={"to": "alice@example.com"}).json()["messages"] == []


def test_token_times_follow_the_emulator_clock(fauxth):
    assert fauxth.control("POST", "/clock/freeze", json={"at": "2030-01-01T00:00:00Z"}).status_code == 200
    fauxth.control("POST", "/clock/advance", json={"seconds": 120})
    session = client(fauxth).auth.sign_in_with_password({"email": "alice@example.com", "password": "password123"}).session
    token = claims(session.access_token)
    assert token["iat"] == 1893456000 + 120
    assert session.expires_at == 1893456000 + 120 + 3600


def test_raw_rest_errors_are_gotrue_shaped(fauxth):
    headers = {"X-Supabase-Api-Version": "2024-01-01", "apikey": ANON_KEY}
    bad = requests.post(f"{fauxth.url}/auth/v1/signup", data="{not json", headers=headers)
    assert bad.status_code == 400
    assert bad.json()["code"] == "bad_json"
    assert bad.headers["X-Supabase-Api-Version"] == "2024-01-01"
    assert bad.headers["x-sb-error-code"] == "bad_json"
    big = requests.post(f"{fauxth.url}/auth/v1/signup", data=b'{"email":"' + b"a" * (1 << 20) + b'"}', headers=headers)
    assert big.status_code == 413
    legacy = requests.post(f"{fauxth.url}/auth/v1/token?grant_type=password", json={"email": "alice@example.com", "password": "x"})
    assert legacy.json() == {"code": 400, "error_code": "invalid_credentials", "msg": "Invalid login credentials"}
    # GoTrue's router answers what it does not serve itself (chi): Go's plain-text 404, and 405 naming the methods.
    missing = requests.get(f"{fauxth.url}/auth/v1/no-such-route", headers=headers)
    assert (missing.status_code, missing.text, missing.headers["Content-Type"]) == (404, "404 page not found\n", "text/plain; charset=utf-8")
    wrong = requests.delete(f"{fauxth.url}/auth/v1/token", headers=headers)
    assert (wrong.status_code, wrong.text, wrong.headers["Allow"]) == (405, "", "POST")
    # Under /admin, GoTrue's router checks the admin token before it finds nothing to serve.
    unknown_admin = requests.get(f"{fauxth.url}/auth/v1/admin/no-such-route", headers=headers)
    assert (unknown_admin.status_code, unknown_admin.json()["code"]) == (401, "no_authorization")
