"""Races real clients produce, against the built binary: the same refresh token used at once, two sign-ups with one
email at once, one code verified at once from several clients. Each must end the way the vendor's rules say, once."""
from concurrent.futures import ThreadPoolExecutor

import pytest
import requests

from conftest import COGNITO_CLIENT, FIREBASE_API_KEY

pytestmark = pytest.mark.reliability

ANON = {"apikey": "anon"}


def at_once(count, call):
    with ThreadPoolExecutor(count) as pool:
        return list(pool.map(lambda _: call(), range(count)))


def test_one_refresh_token_used_eight_times_at_once_rotates_once(fauxth):
    session = requests.post(f"{fauxth.url}/auth/v1/token?grant_type=password", headers=ANON,
                            json={"email": "alice@example.com", "password": "password123"}, timeout=10).json()
    replies = at_once(8, lambda: requests.post(f"{fauxth.url}/auth/v1/token?grant_type=refresh_token", headers=ANON,
                                               json={"refresh_token": session["refresh_token"]}, timeout=10))
    # Within GoTrue's reuse interval every caller gets the one new token the first rotation made.
    assert [r.status_code for r in replies] == [200] * 8
    assert len({r.json()["refresh_token"] for r in replies}) == 1
    sessions = fauxth.control("GET", "/tenants/default/users/00000000-0000-4000-8000-00000000a11c/sessions").json()["sessions"]
    assert len([s for s in sessions if s["active"]]) == 1


def test_two_sign_ups_with_one_email_at_once_make_one_account_in_each_dialect(fauxth):
    supabase = at_once(6, lambda: requests.post(f"{fauxth.url}/auth/v1/signup", headers=ANON,
                                                json={"email": "twin@example.com", "password": "secret123"}, timeout=10))
    # The first sign-up wins; a repeat either resends the confirmation (200), is told to wait for it (429), or, when
    # both inserts raced, meets the unique address (422 email_exists). Never a second account, never a 5xx.
    assert all(r.status_code in (200, 422, 429) for r in supabase), [r.text for r in supabase]
    assert all(r.json()["error_code"] == "email_exists" for r in supabase if r.status_code == 422)
    assert len(fauxth.control("GET", "/tenants/default/users", params={"email": "twin@example.com"}).json()["users"]) == 1
    firebase = at_once(6, lambda: requests.post(f"{fauxth.url}/identitytoolkit.googleapis.com/v1/accounts:signUp",
                                                params={"key": FIREBASE_API_KEY}, timeout=10,
                                                json={"email": "twin@example.com", "password": "secret123", "returnSecureToken": True}))
    assert sorted(r.status_code for r in firebase) == [200] + [400] * 5
    assert {r.json()["error"]["message"] for r in firebase if r.status_code == 400} == {"EMAIL_EXISTS"}
    cognito = at_once(6, lambda: requests.post(f"{fauxth.url}/", timeout=10, headers={
        "X-Amz-Target": "AWSCognitoIdentityProviderService.SignUp", "Content-Type": "application/x-amz-json-1.1"},
        json={"ClientId": COGNITO_CLIENT, "Username": "twin@example.com", "Password": "password123",
              "UserAttributes": [{"Name": "email", "Value": "twin@example.com"}]}))
    assert sorted(r.status_code for r in cognito) == [200] + [400] * 5
    assert {r.json()["__type"] for r in cognito if r.status_code == 400} == {"UsernameExistsException"}


def test_one_code_verified_at_once_from_eight_clients_succeeds_once(fauxth):
    requests.post(f"{fauxth.url}/auth/v1/otp", headers=ANON, json={"email": "alice@example.com"}, timeout=10)
    code = fauxth.wait_message("alice@example.com", purpose="magic_link")["codes"][0]
    replies = at_once(8, lambda: requests.post(f"{fauxth.url}/auth/v1/verify", headers=ANON, timeout=10,
                                               json={"type": "email", "email": "alice@example.com", "token": code}))
    assert sorted(r.status_code for r in replies) == [200] + [403] * 7
