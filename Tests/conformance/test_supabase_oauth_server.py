"""The Supabase OAuth 2.1 server: supabase-py's admin OAuth client methods, the consent API as auth-js sends
it (raw REST), and a third-party app's authorization-code + PKCE round trip, its consent given on Fauxth's
consent page by a form post, by headless Chromium, and through the control API."""
import base64
import hashlib
import secrets
import urllib.parse

import jwt
import pytest
import requests
from supabase import create_client
from supabase_auth.errors import AuthApiError
from supabase_auth.types import CreateOAuthClientParams, UpdateOAuthClientParams

from conftest import Forms, query
from test_supabase_admin import SERVICE_ROLE_KEY
from test_supabase_slice import ANON_KEY

REDIRECT = "http://localhost:8123/callback"
USER = {"email": "owner@example.com", "password": "secret123", "email_verified": True}


@pytest.fixture
def oauth_project(supabase_project):
    return supabase_project({"GOTRUE_OAUTH_SERVER_ENABLED": "true", "GOTRUE_OAUTH_SERVER_ALLOW_DYNAMIC_REGISTRATION": "true"}, [USER])


def admin(fauxth):
    return create_client(fauxth.url, SERVICE_ROLE_KEY).auth.admin


def pkce():
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    return verifier, challenge


def start_authorization(fauxth, client_id, challenge, scope="email", state="xyz"):
    """What the third-party app does: send the browser to /oauth/authorize; here, follow it by hand."""
    response = requests.get(f"{fauxth.url}/auth/v1/oauth/authorize", params={
        "client_id": client_id, "redirect_uri": REDIRECT, "response_type": "code", "scope": scope, "state": state,
        "code_challenge": challenge, "code_challenge_method": "S256"}, allow_redirects=False, timeout=30)
    assert response.status_code == 302, response.text
    return response.headers["Location"]


def exchange(fauxth, client_id, secret, code, verifier):
    """The app's back end at the token endpoint, authenticating with HTTP Basic (client_secret_basic)."""
    return requests.post(f"{fauxth.url}/auth/v1/oauth/token", auth=(client_id, secret), timeout=30, data={
        "grant_type": "authorization_code", "code": code, "redirect_uri": REDIRECT, "code_verifier": verifier})


def test_supabase_py_manages_oauth_clients(oauth_project):
    fauxth = oauth_project
    oauth = admin(fauxth).oauth
    created = oauth.create_client(CreateOAuthClientParams(client_name="Acme Notes", redirect_uris=[REDIRECT])).client
    assert created.client_type == "confidential" and created.token_endpoint_auth_method == "client_secret_basic"
    assert created.registration_type == "manual" and created.client_secret
    assert [c.client_id for c in oauth.list_clients().clients] == [created.client_id]
    assert oauth.get_client(created.client_id).client.client_name == "Acme Notes"
    updated = oauth.update_client(created.client_id, UpdateOAuthClientParams(client_name="Acme Notes 2")).client
    assert updated.client_name == "Acme Notes 2" and updated.redirect_uris == [REDIRECT]
    rotated = oauth.regenerate_client_secret(created.client_id).client
    assert rotated.client_secret and rotated.client_secret != created.client_secret
    oauth.delete_client(created.client_id)
    with pytest.raises(AuthApiError) as error:
        oauth.get_client(created.client_id)
    assert error.value.status == 404 and error.value.code == "oauth_client_not_found"
    with pytest.raises(AuthApiError) as error:
        oauth.create_client(CreateOAuthClientParams(client_name="Bad", redirect_uris=["http://evil.example/cb"]))
    assert error.value.message == "400: invalid redirect_uri 'http://evil.example/cb': HTTP scheme only allowed for localhost"


def test_off_by_default_the_routes_answer_feature_disabled(fauxth):
    with pytest.raises(AuthApiError) as error:
        admin(fauxth).oauth.list_clients()
    assert error.value.status == 404 and error.value.code == "feature_disabled"
    response = requests.get(f"{fauxth.url}/auth/v1/.well-known/oauth-authorization-server", timeout=30)
    assert response.status_code == 404


def test_a_third_party_app_round_trip_through_the_consent_api(oauth_project):
    """The consent screen as a Supabase site builds it with auth-js: getAuthorizationDetails, approveAuthorization."""
    fauxth = oauth_project
    registered = requests.post(f"{fauxth.url}/auth/v1/oauth/clients/register", timeout=30,
                               json={"client_name": "Acme Notes", "redirect_uris": [REDIRECT]}).json()
    client_id, secret = registered["client_id"], registered["client_secret"]
    metadata = requests.get(f"{fauxth.url}/auth/v1/.well-known/oauth-authorization-server", timeout=30).json()
    assert metadata["authorization_endpoint"] == f"{fauxth.url}/auth/v1/oauth/authorize"
    assert metadata["registration_endpoint"] == f"{fauxth.url}/auth/v1/oauth/clients/register"

    verifier, challenge = pkce()
    consent_page = start_authorization(fauxth, client_id, challenge)
    authorization_id = query(consent_page)["authorization_id"]
    session = create_client(fauxth.url, ANON_KEY).auth.sign_in_with_password(
        {"email": USER["email"], "password": USER["password"]}).session
    headers = {"apikey": ANON_KEY, "Authorization": f"Bearer {session.access_token}", "X-Supabase-Api-Version": "2024-01-01"}
    details = requests.get(f"{fauxth.url}/auth/v1/oauth/authorizations/{authorization_id}", headers=headers, timeout=30).json()
    assert details["client"]["name"] == "Acme Notes" and details["scope"] == "email"
    assert details["user"]["email"] == USER["email"]
    answer = requests.post(f"{fauxth.url}/auth/v1/oauth/authorizations/{authorization_id}/consent", headers=headers,
                           json={"action": "approve"}, timeout=30).json()
    back = query(answer["redirect_url"])
    assert answer["redirect_url"].startswith(REDIRECT + "?") and back["state"] == "xyz"

    tokens = exchange(fauxth, client_id, secret, back["code"], verifier)
    assert tokens.status_code == 200, tokens.text
    body = tokens.json()
    claims = jwt.decode(body["access_token"], options={"verify_signature": False})
    assert claims["client_id"] == client_id and claims["scope"] == "email" and claims["sub"] == session.user.id
    assert requests.get(f"{fauxth.url}/auth/v1/oauth/userinfo", timeout=30,
                        headers={"Authorization": f"Bearer {body['access_token']}"}).json() == {
        "sub": session.user.id, "email": USER["email"], "email_verified": True}

    # The code is single use; the refresh token rotates, for this client only.
    again = exchange(fauxth, client_id, secret, back["code"], verifier)
    assert again.status_code == 400 and again.json() == {"error": "invalid_grant", "error_description": "Invalid authorization code"}
    refreshed = requests.post(f"{fauxth.url}/auth/v1/oauth/token", auth=(client_id, secret), timeout=30,
                              data={"grant_type": "refresh_token", "refresh_token": body["refresh_token"]})
    assert refreshed.status_code == 200 and refreshed.json()["refresh_token"] != body["refresh_token"]

    # The user sees the grant and revokes it (auth-js's listOAuthGrants, revokeOAuthGrant).
    grants = requests.get(f"{fauxth.url}/auth/v1/user/oauth/grants", headers=headers, timeout=30).json()
    assert [g["client"]["id"] for g in grants] == [client_id] and grants[0]["scopes"] == ["email"]
    revoked = requests.delete(f"{fauxth.url}/auth/v1/user/oauth/grants", params={"client_id": client_id}, headers=headers, timeout=30)
    assert revoked.status_code == 204
    dead = requests.post(f"{fauxth.url}/auth/v1/oauth/token", auth=(client_id, secret), timeout=30,
                         data={"grant_type": "refresh_token", "refresh_token": refreshed.json()["refresh_token"]})
    assert dead.status_code != 200


def test_pkce_and_the_secret_are_checked(oauth_project):
    fauxth = oauth_project
    created = admin(fauxth).oauth.create_client(CreateOAuthClientParams(client_name="Acme", redirect_uris=[REDIRECT])).client
    missing = requests.get(f"{fauxth.url}/auth/v1/oauth/authorize", allow_redirects=False, timeout=30, params={
        "client_id": created.client_id, "redirect_uri": REDIRECT, "state": "s1"})
    assert missing.status_code == 302
    assert query(missing.headers["Location"]) == {
        "error": "invalid_request", "error_description": "PKCE flow requires both code_challenge and code_challenge_method", "state": "s1"}
    wrong_redirect = requests.get(f"{fauxth.url}/auth/v1/oauth/authorize", allow_redirects=False, timeout=30, params={
        "client_id": created.client_id, "redirect_uri": REDIRECT + "/", "code_challenge": "x" * 43, "code_challenge_method": "S256"})
    assert wrong_redirect.status_code == 400 and "Location" not in wrong_redirect.headers

    verifier, challenge = pkce()
    authorization_id = query(start_authorization(fauxth, created.client_id, challenge))["authorization_id"]
    answer = fauxth.control("POST", f"/tenants/default/oauth/authorizations/{authorization_id}",
                            json={"action": "approve", "user": USER["email"]}).json()
    code = query(answer["redirect_url"])["code"]
    bad_secret = exchange(fauxth, created.client_id, "not-the-secret", code, verifier)
    assert bad_secret.status_code == 400 and bad_secret.json()["error_code"] == "invalid_credentials"
    bad_verifier = exchange(fauxth, created.client_id, created.client_secret, code, "x" * 50)
    assert bad_verifier.json()["error"] == "invalid_grant"


def test_a_denied_consent_through_the_control_api(oauth_project):
    fauxth = oauth_project
    created = admin(fauxth).oauth.create_client(CreateOAuthClientParams(client_name="Acme", redirect_uris=[REDIRECT])).client
    _, challenge = pkce()
    authorization_id = query(start_authorization(fauxth, created.client_id, challenge))["authorization_id"]
    pending = fauxth.control("GET", "/tenants/default/oauth/authorizations").json()["authorizations"]
    assert [a["id"] for a in pending] == [authorization_id]
    answer = fauxth.control("POST", f"/tenants/default/oauth/authorizations/{authorization_id}",
                            json={"action": "deny", "user": USER["email"]}).json()
    assert answer["redirect_url"] == f"{REDIRECT}?error=access_denied&error_description=User+denied+the+request&state=xyz"


def test_the_consent_page_as_a_form(oauth_project):
    fauxth = oauth_project
    created = admin(fauxth).oauth.create_client(CreateOAuthClientParams(client_name="Acme Notes", redirect_uris=[REDIRECT])).client
    verifier, challenge = pkce()
    page = requests.get(start_authorization(fauxth, created.client_id, challenge), timeout=30)
    assert page.status_code == 200 and "Acme Notes" in page.text
    form = Forms(page.text).forms[0]
    fields = {**form["fields"], "email": USER["email"], "password": USER["password"], "action": "approve"}
    answer = requests.post(urllib.parse.urljoin(page.url, form["action"]), data=fields, allow_redirects=False, timeout=30)
    assert answer.status_code == 303
    code = query(answer.headers["Location"])["code"]
    assert exchange(fauxth, created.client_id, created.client_secret, code, verifier).status_code == 200


def test_a_tester_clicks_approve_in_chromium(oauth_project, browser):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as EC
    from selenium.webdriver.support.ui import WebDriverWait
    fauxth = oauth_project
    created = admin(fauxth).oauth.create_client(CreateOAuthClientParams(client_name="Acme Notes", redirect_uris=[REDIRECT])).client
    verifier, challenge = pkce()
    params = urllib.parse.urlencode({"client_id": created.client_id, "redirect_uri": REDIRECT, "response_type": "code", "scope": "email",
                                     "state": "xyz", "code_challenge": challenge, "code_challenge_method": "S256"})
    browser.get(f"{fauxth.url}/auth/v1/oauth/authorize?{params}")
    wait = WebDriverWait(browser, 15)
    wait.until(EC.presence_of_element_located((By.ID, "approve")))
    assert "Acme Notes" in browser.page_source
    browser.find_element(By.ID, "email").send_keys(USER["email"])
    browser.find_element(By.ID, "password").send_keys(USER["password"])
    browser.find_element(By.ID, "approve").click()
    # Nothing listens on the app's port: the browser's failed navigation still shows where it was sent.
    wait.until(lambda driver: driver.current_url.startswith(REDIRECT))
    back = query(browser.current_url)
    assert back["state"] == "xyz"
    assert exchange(fauxth, created.client_id, created.client_secret, back["code"], verifier).status_code == 200
