"""Cognito's hosted UI and OAuth 2.0 endpoints on fauxth's main port, driven as a browser and an app's OAuth library
drive them: /oauth2/authorize → /login form → redirect with a code → PKCE exchange at /oauth2/token, then userInfo,
refresh, revoke and logout; the implicit flow; and client_credentials for a machine client."""
import base64
import hashlib
import secrets
import urllib.parse

import jwt
import requests

from conftest import COGNITO_CLIENT, COGNITO_PASSWORD, Forms, cognito_email, query

REDIRECT = "http://localhost:3000/callback"


def pkce():
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    return verifier, challenge


def authorize_params(challenge=None, **overrides):
    params = {"response_type": "code", "client_id": COGNITO_CLIENT, "redirect_uri": REDIRECT,
              "state": secrets.token_urlsafe(12), "scope": "openid email"}
    if challenge:
        params.update(code_challenge=challenge, code_challenge_method="S256")
    params.update(overrides)
    return params


def login_form(browser, url, params):
    """Follows /oauth2/authorize to the login page; returns the page URL and the login form."""
    authorize = browser.get(f"{url}/oauth2/authorize", params=params, allow_redirects=False, timeout=30)
    assert authorize.status_code == 302, authorize.text
    page_url = urllib.parse.urljoin(authorize.url, authorize.headers["Location"])
    page = browser.get(page_url, allow_redirects=False, timeout=30)
    assert page.status_code == 200 and "html" in page.headers["Content-Type"]
    [form] = [f for f in Forms(page.text).forms if {"username", "password"} <= set(f["fields"])]
    assert form["method"] == "post"
    return page_url, form


def submit(browser, page_url, form, username, password):
    fields = {**form["fields"], "username": username, "password": password}
    return browser.post(urllib.parse.urljoin(page_url, form["action"] or page_url), data=fields, allow_redirects=False, timeout=30)


def sign_in(cognito, username="alice@example.com", password=COGNITO_PASSWORD, **overrides):
    """The whole browser leg of the code flow with PKCE; returns (code, verifier, params, redirect location)."""
    verifier, challenge = pkce()
    params = authorize_params(challenge, **overrides)
    browser = requests.Session()
    page_url, form = login_form(browser, cognito.url, params)
    response = submit(browser, page_url, form, username, password)
    assert response.status_code == 302, response.text
    location = response.headers["Location"]
    assert query(location)["state"] == params["state"]
    return query(location)["code"], verifier, params, location


def token_request(cognito, data, auth=None):
    return requests.post(f"{cognito.url}/oauth2/token", data=data, auth=auth, timeout=30,
                         headers={"Content-Type": "application/x-www-form-urlencoded"})


def exchange(cognito, code, verifier, redirect_uri=REDIRECT):
    return token_request(cognito, {"grant_type": "authorization_code", "client_id": COGNITO_CLIENT, "code": code,
                                   "redirect_uri": redirect_uri, "code_verifier": verifier})


def oauth_error(response):
    assert response.status_code == 400, response.text
    return response.json()["error"]


def test_authorize_redirects_to_the_login_page_with_the_same_query(cognito):
    params = authorize_params(pkce()[1])
    response = requests.get(f"{cognito.url}/oauth2/authorize", params=params, allow_redirects=False, timeout=30)
    assert response.status_code == 302
    location = urllib.parse.urljoin(response.url, response.headers["Location"])
    assert urllib.parse.urlsplit(location).path == "/login"
    assert query(location) == params


def test_the_code_flow_with_pkce_signs_in_and_exchanges_the_code_for_tokens(cognito):
    code, verifier, params, location = sign_in(cognito)
    assert location.startswith(REDIRECT + "?")
    response = exchange(cognito, code, verifier)
    assert response.status_code == 200, response.text
    assert response.headers["Content-Type"].startswith("application/json")
    body = response.json()
    assert body["token_type"] == "Bearer"
    assert body["expires_in"] == 3600
    assert body["refresh_token"]
    access = cognito.verify(body["access_token"], "access")
    identity = cognito.verify(body["id_token"], "id")
    assert set(access["scope"].split()) == {"openid", "email"}
    assert access["client_id"] == COGNITO_CLIENT
    assert identity["email"] == "alice@example.com" and identity["email_verified"] is True
    assert identity["sub"] == access["sub"]
    assert access["username"] == identity["cognito:username"]


def test_an_authorization_code_is_single_use_and_bound_to_its_verifier(cognito):
    code, verifier, _, _ = sign_in(cognito)
    assert exchange(cognito, code, verifier).status_code == 200
    assert oauth_error(exchange(cognito, code, verifier)) == "invalid_grant"
    assert oauth_error(exchange(cognito, "not-a-code", verifier)) == "invalid_grant"

    code, _, _, _ = sign_in(cognito)
    other_verifier, _ = pkce()
    assert oauth_error(exchange(cognito, code, other_verifier)) == "invalid_grant"


def test_userinfo_returns_the_signed_in_users_claims(cognito):
    code, verifier, _, _ = sign_in(cognito)
    tokens = exchange(cognito, code, verifier).json()
    response = requests.get(f"{cognito.url}/oauth2/userInfo", headers={"Authorization": f"Bearer {tokens['access_token']}"}, timeout=30)
    assert response.status_code == 200, response.text
    info = response.json()
    identity = cognito.verify(tokens["id_token"], "id")
    assert info["sub"] == identity["sub"]
    assert info["email"] == "alice@example.com"
    assert str(info["email_verified"]).lower() == "true"
    assert info["username"] == identity["cognito:username"]
    anonymous = requests.get(f"{cognito.url}/oauth2/userInfo", timeout=30)
    assert anonymous.status_code == 401


def test_userinfo_needs_openid_and_answers_every_readable_attribute_for_openid_alone(cognito):
    """The user attributes endpoint's reference: openid alone gives all the client can read; the API's tokens (scoped
    aws.cognito.signin.user.admin only) are not accepted, which Fauxth let through, hiding an app that would fail."""
    code, verifier, _, _ = sign_in(cognito, scope="openid")
    tokens = exchange(cognito, code, verifier).json()
    info = requests.get(f"{cognito.url}/oauth2/userInfo", headers={"Authorization": f"Bearer {tokens['access_token']}"}, timeout=30)
    assert info.status_code == 200, info.text
    assert info.json()["email"] == "alice@example.com" and "name" in info.json()
    api = cognito.tokens("alice@example.com")
    refused = requests.get(f"{cognito.url}/oauth2/userInfo", headers={"Authorization": f"Bearer {api['AccessToken']}"}, timeout=30)
    assert refused.status_code == 403 and refused.json()["error_description"] == "Access token does not contain openid scope"


def test_a_code_redeemed_with_another_redirect_uri_is_invalid_redirect(cognito):
    """The token endpoint's reference: unauthorized_client with the description invalid_redirect (a trailing slash is
    the usual cause); Fauxth said invalid_grant."""
    code, verifier, _, _ = sign_in(cognito)
    response = exchange(cognito, code, verifier, redirect_uri=REDIRECT + "/")
    assert oauth_error(response) == "unauthorized_client"
    assert response.json()["error_description"] == "invalid_redirect"


def test_revoking_as_a_client_that_cannot_authenticate_is_401(cognito):
    code, verifier, _, _ = sign_in(cognito)
    refresh = exchange(cognito, code, verifier).json()["refresh_token"]
    response = requests.post(f"{cognito.url}/oauth2/revoke", data={"token": refresh, "client_id": "nosuchclient"}, timeout=30)
    assert response.status_code == 401 and response.json()["error"] == "invalid_client"


def test_the_refresh_grant_returns_new_tokens_until_the_refresh_token_is_revoked(cognito):
    code, verifier, _, _ = sign_in(cognito)
    first = exchange(cognito, code, verifier).json()
    response = token_request(cognito, {"grant_type": "refresh_token", "client_id": COGNITO_CLIENT, "refresh_token": first["refresh_token"]})
    assert response.status_code == 200, response.text
    body = response.json()
    assert "refresh_token" not in body
    assert body["token_type"] == "Bearer" and body["expires_in"] == 3600
    access = cognito.verify(body["access_token"], "access")
    assert access["sub"] == cognito.verify(first["access_token"], "access")["sub"]
    assert cognito.verify(body["id_token"], "id")["email"] == "alice@example.com"

    revoked = requests.post(f"{cognito.url}/oauth2/revoke", data={"token": first["refresh_token"], "client_id": COGNITO_CLIENT}, timeout=30)
    assert revoked.status_code == 200, revoked.text
    again = token_request(cognito, {"grant_type": "refresh_token", "client_id": COGNITO_CLIENT, "refresh_token": first["refresh_token"]})
    assert oauth_error(again) == "invalid_grant"


def test_logout_redirects_only_to_a_registered_logout_url(cognito):
    response = requests.get(f"{cognito.url}/logout", params={"client_id": COGNITO_CLIENT, "logout_uri": "http://localhost:3000/"},
                            allow_redirects=False, timeout=30)
    assert response.status_code == 302
    assert response.headers["Location"] == "http://localhost:3000/"
    refused = requests.get(f"{cognito.url}/logout", params={"client_id": COGNITO_CLIENT, "logout_uri": "http://evil.example/"},
                           allow_redirects=False, timeout=30)
    assert not refused.headers.get("Location", "").startswith("http://evil.example")


def test_the_implicit_flow_returns_tokens_in_the_fragment(cognito):
    params = authorize_params(response_type="token")
    browser = requests.Session()
    page_url, form = login_form(browser, cognito.url, params)
    response = submit(browser, page_url, form, "carol@example.com", COGNITO_PASSWORD)
    assert response.status_code == 302, response.text
    location = response.headers["Location"]
    assert location.startswith(REDIRECT + "#")
    fragment = {k: v[0] for k, v in urllib.parse.parse_qs(urllib.parse.urlsplit(location).fragment).items()}
    assert fragment["token_type"] == "Bearer"
    assert fragment["expires_in"] == "3600"
    assert fragment["state"] == params["state"]
    assert "refresh_token" not in fragment and "code" not in query(location)
    assert cognito.verify(fragment["access_token"], "access")["cognito:groups"] == ["admins"]
    assert cognito.verify(fragment["id_token"], "id")["email"] == "carol@example.com"


def test_an_unregistered_redirect_uri_goes_to_the_domains_error_page(cognito):
    # AWS sends the browser to https://<domain>/error?error=redirect_mismatch&client_id=… (amplify-js #4308,
    # aws-aspnet-cognito-identity-provider #167), never to the unlisted URI.
    params = authorize_params(pkce()[1], redirect_uri="http://evil.example/callback")
    response = requests.get(f"{cognito.url}/oauth2/authorize", params=params, allow_redirects=False, timeout=30)
    assert response.status_code == 302
    location = urllib.parse.urlsplit(response.headers["Location"])
    assert not location.netloc and location.path == "/error"
    assert urllib.parse.parse_qs(location.query) == {"error": ["redirect_mismatch"], "client_id": [params["client_id"]]}
    page = requests.get(urllib.parse.urljoin(cognito.url, response.headers["Location"]), allow_redirects=False, timeout=30)
    assert page.status_code == 400 and "Location" not in page.headers
    assert "An error was encountered with the requested page." in page.text and "evil.example" not in page.text


def test_a_wrong_password_shows_the_login_page_again(cognito):
    browser = requests.Session()
    page_url, form = login_form(browser, cognito.url, authorize_params(pkce()[1]))
    response = submit(browser, page_url, form, "alice@example.com", "wrong-password1")
    assert response.status_code == 200
    assert "Location" not in response.headers
    assert "Incorrect username or password." in response.text
    assert any({"username", "password"} <= set(f["fields"]) for f in Forms(response.text).forms)


def test_an_app_scheme_redirect_is_captured_as_a_deep_link(cognito):
    email = cognito.signed_up_user(cognito_email("mobile"))
    code, verifier, params, location = sign_in(cognito, email, redirect_uri="myapp://callback")
    assert location.startswith("myapp://callback?code=")
    captured = cognito.fauxth.control("GET", "/deeplinks/wait", params={"scheme": "myapp", "timeout": 5}).json()
    assert captured["url"] == location
    assert captured["params"]["code"] == code and captured["params"]["state"] == params["state"]
    listed = cognito.fauxth.control("GET", "/deeplinks").json()["deeplinks"]
    assert location in [link["url"] for link in listed]
    response = exchange(cognito, code, verifier, redirect_uri="myapp://callback")
    assert response.status_code == 200, response.text
    assert cognito.verify(response.json()["id_token"], "id")["email"] == email


def test_client_credentials_issue_an_access_token_for_resource_server_scopes(cognito):
    pool_id = cognito.create_pool()
    cognito.idp.create_user_pool_domain(UserPoolId=pool_id, Domain=f"fauxth-m2m-{pool_id.split('_')[1].lower()}")
    cognito.idp.create_resource_server(UserPoolId=pool_id, Identifier="https://api.fauxth.test", Name="Fauxth API",
                                       Scopes=[{"ScopeName": "read", "ScopeDescription": "Read"},
                                               {"ScopeName": "write", "ScopeDescription": "Write"}])
    client = cognito.create_client(pool_id, flows=("ALLOW_REFRESH_TOKEN_AUTH",), secret=True, AllowedOAuthFlows=["client_credentials"],
                                   AllowedOAuthScopes=["https://api.fauxth.test/read"], AllowedOAuthFlowsUserPoolClient=True)
    client_id, secret = client["ClientId"], client["ClientSecret"]

    basic = token_request(cognito, {"grant_type": "client_credentials", "scope": "https://api.fauxth.test/read"}, auth=(client_id, secret))
    assert basic.status_code == 200, basic.text
    body = basic.json()
    assert body["token_type"] == "Bearer" and body["expires_in"] == 3600
    assert "id_token" not in body and "refresh_token" not in body
    access = cognito.verify(body["access_token"], "access", pool_id, client_id)
    assert access["client_id"] == access["sub"] == client_id
    assert access["scope"] == "https://api.fauxth.test/read"

    in_body = token_request(cognito, {"grant_type": "client_credentials", "client_id": client_id, "client_secret": secret,
                                      "scope": "https://api.fauxth.test/read"})
    assert in_body.status_code == 200, in_body.text
    wrong = token_request(cognito, {"grant_type": "client_credentials", "scope": "https://api.fauxth.test/read"}, auth=(client_id, "nope"))
    assert wrong.status_code in (400, 401) and wrong.json()["error"] == "invalid_client"
    unallowed = token_request(cognito, {"grant_type": "client_credentials", "scope": "https://api.fauxth.test/write"}, auth=(client_id, secret))
    assert oauth_error(unallowed) == "invalid_scope"
    # The seed's public client may not use client_credentials.
    public = token_request(cognito, {"grant_type": "client_credentials", "client_id": COGNITO_CLIENT})
    assert public.status_code in (400, 401) and public.json()["error"] in ("unauthorized_client", "invalid_client")


def test_a_pool_with_its_own_hosted_ui_port_serves_the_hosted_ui_there(start_fauxth, tmp_path):
    import json
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    seed = tmp_path / "pool.json"
    seed.write_text(json.dumps({"tenants": [{
        "id": "eu-west-1_OwnDomain1", "dialect": "cognito", "name": "Own domain", "domain": "own-domain", "hosted_ui_port": port,
        "pool": {"UsernameAttributes": ["email"], "Policies": {"PasswordPolicy": {"MinimumLength": 8, "RequireUppercase": False,
                                                                                "RequireSymbols": False}}},
        "clients": [{"ClientId": "owndomainclient00000000001", "ClientName": "web", "CallbackURLs": [REDIRECT],
                     "AllowedOAuthFlows": ["code"], "AllowedOAuthScopes": ["openid", "email"], "AllowedOAuthFlowsUserPoolClient": True,
                     "SupportedIdentityProviders": ["COGNITO"]}],
        "users": [{"email": "dora@example.com", "password": "password123", "email_verified": True}]}]}))
    instance = start_fauxth("--seed", str(seed))
    hosted = f"http://127.0.0.1:{port}"
    tenant = next(t for t in requests.get(f"{instance.url}/_emu/v1/info", timeout=30).json()["tenants"] if t["id"] == "eu-west-1_OwnDomain1")
    assert tenant["hints"]["COGNITO_HOSTED_UI_URL"] == hosted

    verifier, challenge = pkce()
    params = {"response_type": "code", "client_id": "owndomainclient00000000001", "redirect_uri": REDIRECT, "state": "s1",
              "scope": "openid email", "code_challenge": challenge, "code_challenge_method": "S256"}
    browser = requests.Session()
    page_url, form = login_form(browser, hosted, params)
    assert page_url.startswith(hosted)
    response = submit(browser, page_url, form, "dora@example.com", COGNITO_PASSWORD)
    assert response.status_code == 302, response.text
    code = query(response.headers["Location"])["code"]
    tokens = requests.post(f"{hosted}/oauth2/token", timeout=30, data={
        "grant_type": "authorization_code", "client_id": "owndomainclient00000000001", "code": code, "redirect_uri": REDIRECT,
        "code_verifier": verifier}).json()
    discovery = requests.get(f"{hosted}/eu-west-1_OwnDomain1/.well-known/openid-configuration", timeout=30).json()
    assert discovery["authorization_endpoint"] == f"{hosted}/oauth2/authorize"
    claims = jwt.decode(tokens["id_token"], options={"verify_signature": False})
    assert claims["email"] == "dora@example.com"
    assert claims["iss"] == "https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_OwnDomain1"
    # The JSON API stays on the main port only.
    assert requests.post(f"{hosted}/", data="{}", timeout=30, headers={
        "X-Amz-Target": "AWSCognitoIdentityProviderService.ListUserPools"}).status_code == 404
