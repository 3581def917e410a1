"""The fake identity providers under /_emu/idp/{provider}: discovery, JWKS-verifiable RS256 tokens shaped like Google's and
Apple's, the account picker driven as a browser drives it (pick, new account, the failure buttons, Apple's form_post), the
token endpoint with PKCE, userinfo, and the control API that mints native tokens and decides the next sign-in headlessly."""
import base64
import hashlib
import secrets
import urllib.parse

import jwt
import requests

from conftest import Forms, query

CALLBACK = "http://localhost:3000/idp-callback"


def discovery(fauxth, provider):
    response = requests.get(f"{fauxth.url}/_emu/idp/{provider}/.well-known/openid-configuration", timeout=30)
    assert response.status_code == 200, response.text
    return response.json()


def verify(fauxth, token, provider, audience, issuer):
    keys = jwt.PyJWKClient(discovery(fauxth, provider)["jwks_uri"])
    key = keys.get_signing_key_from_jwt(token)
    return jwt.decode(token, key.key, algorithms=["RS256"], audience=audience, issuer=issuer, leeway=5)


def pkce():
    verifier = secrets.token_urlsafe(48)
    return verifier, base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()


def authorize(fauxth, provider, **params):
    base = {"client_id": "web-client", "redirect_uri": CALLBACK, "response_type": "code", "scope": "openid email profile", "state": "st8"}
    base.update(params)
    return requests.get(f"{fauxth.url}/_emu/idp/{provider}/authorize", params=base, allow_redirects=False, timeout=30)


def pick(fauxth, page, **fields):
    """Submits the form of the page that has `fields`' names (an account button, the new-account form or a failure button)."""
    forms = Forms(page.text).forms
    wanted = set(fields) - {"account", "error"}
    form = next(f for f in forms if wanted <= set(f["fields"]) and ("account" not in fields or "email" not in f["fields"]))
    target = urllib.parse.urljoin(page.url, form["action"])
    return requests.post(target, data={**form["fields"], **fields}, allow_redirects=False, timeout=30)


def test_google_and_apple_publish_discovery_and_keys_under_their_real_issuers(fauxth):
    google, apple = discovery(fauxth, "google"), discovery(fauxth, "apple")
    assert google["issuer"] == "https://accounts.google.com" and apple["issuer"] == "https://appleid.apple.com"
    assert google["authorization_endpoint"] == f"{fauxth.url}/_emu/idp/google/authorize"
    assert "form_post" in apple["response_modes_supported"] and "S256" in google["code_challenge_methods_supported"]
    google_keys = requests.get(google["jwks_uri"], timeout=30).json()["keys"]
    apple_keys = requests.get(apple["jwks_uri"], timeout=30).json()["keys"]
    assert google_keys[0]["kty"] == "RSA" and google_keys[0]["alg"] == "RS256"
    assert google_keys[0]["kid"] != apple_keys[0]["kid"]
    assert requests.get(f"{fauxth.url}/_emu/idp/nosuch/jwks", timeout=30).status_code == 404


def test_a_minted_apple_token_verifies_with_pyjwt_against_the_providers_jwks(fauxth):
    raw_nonce = secrets.token_hex(16)
    hashed = hashlib.sha256(raw_nonce.encode()).hexdigest()
    response = fauxth.control("POST", "/idp/apple/tokens", json={"sub": "000001.a11ce0000000000000000000000000a1.0001",
                                                                 "aud": "com.example.app", "nonce": hashed})
    assert response.status_code == 200, response.text
    minted = response.json()
    claims = verify(fauxth, minted["id_token"], "apple", "com.example.app", "https://appleid.apple.com")
    assert claims["sub"] == "000001.a11ce0000000000000000000000000a1.0001"
    assert claims["email"] == "alice@example.com" and claims["email_verified"] == "true"
    assert claims["nonce"] == hashed and claims["nonce_supported"] is True and claims["real_user_status"] == 2
    assert "name" not in claims
    assert minted["code"] and minted["user"]["name"] == {"firstName": "Alice", "lastName": "Verified"}
    # The name comes on the first consent to a client only.
    again = fauxth.control("POST", "/idp/apple/tokens", json={"sub": claims["sub"], "aud": "com.example.app"}).json()
    assert "user" not in again
    # A token signed with another provider's key does not verify.
    google = fauxth.control("POST", "/idp/google/tokens", json={"email": "alice@example.com", "aud": "com.example.app"}).json()
    forged = google["id_token"].split(".")
    forged[1] = minted["id_token"].split(".")[1]
    try:
        verify(fauxth, ".".join(forged), "apple", "com.example.app", "https://appleid.apple.com")
    except jwt.PyJWTError:
        pass
    else:
        raise AssertionError("a token signed by Google's key verified as Apple's")


def test_the_account_picker_signs_in_an_account_with_pkce_and_userinfo(fauxth):
    verifier, challenge = pkce()
    page = authorize(fauxth, "google", code_challenge=challenge, code_challenge_method="S256", nonce="n-123")
    assert page.status_code == 200 and "Alice Verified" in page.text and "dana@example.com" in page.text
    back = pick(fauxth, page, account="100000000000000000001")
    assert back.status_code == 302
    location = back.headers["Location"]
    assert location.startswith(CALLBACK + "?") and query(location)["state"] == "st8"
    token = requests.post(f"{fauxth.url}/_emu/idp/google/token", timeout=30, data={
        "grant_type": "authorization_code", "code": query(location)["code"], "client_id": "web-client", "client_secret": "anything",
        "redirect_uri": CALLBACK, "code_verifier": verifier})
    assert token.status_code == 200, token.text
    tokens = token.json()
    claims = verify(fauxth, tokens["id_token"], "google", "web-client", "https://accounts.google.com")
    assert claims["azp"] == "web-client" and claims["email_verified"] is True and claims["nonce"] == "n-123"
    assert claims["name"] == "Alice Verified" and claims["picture"]
    expected_at_hash = base64.urlsafe_b64encode(hashlib.sha256(tokens["access_token"].encode()).digest()[:16]).rstrip(b"=").decode()
    assert claims["at_hash"] == expected_at_hash
    info = requests.get(f"{fauxth.url}/_emu/idp/google/userinfo", headers={"Authorization": f"Bearer {tokens['access_token']}"}, timeout=30)
    assert info.status_code == 200 and info.json()["email"] == "alice@example.com"
    # The code is single use and bound to its verifier.
    replay = requests.post(f"{fauxth.url}/_emu/idp/google/token", timeout=30, data={
        "grant_type": "authorization_code", "code": query(location)["code"], "client_id": "web-client", "redirect_uri": CALLBACK,
        "code_verifier": verifier})
    assert replay.status_code == 400 and replay.json()["error"] == "invalid_grant"
    assert requests.get(f"{fauxth.url}/_emu/idp/google/userinfo", timeout=30).status_code == 401


def test_a_new_account_and_the_failure_buttons(fauxth):
    page = authorize(fauxth, "google")
    made = pick(fauxth, page, email="newbie@example.com", name="New Bie", email_verified="on")
    assert made.status_code == 302
    accounts = fauxth.control("GET", "/idp").json()["identity_providers"]
    google = next(p for p in accounts if p["id"] == "google")
    newbie = next(a for a in google["accounts"] if a["email"] == "newbie@example.com")
    assert newbie["sub"].isdigit() and len(newbie["sub"]) == 21 and newbie["given_name"] == "New"

    for error in ("access_denied", "server_error", "temporarily_unavailable"):
        failed = pick(fauxth, authorize(fauxth, "google"), error=error)
        assert failed.status_code == 302
        assert query(failed.headers["Location"]) ["error"] == error
        assert query(failed.headers["Location"])["state"] == "st8"
    assert authorize(fauxth, "google", redirect_uri="not a url").status_code == 400


def test_apple_form_post_sends_the_user_on_first_consent(fauxth):
    page = authorize(fauxth, "apple", response_mode="form_post", response_type="code id_token", scope="name email", client_id="com.example.web")
    posted = pick(fauxth, page, account="000002.e41200000000000000000000000000e4.0002")
    assert posted.status_code == 200 and "text/html" in posted.headers["Content-Type"]
    [form] = Forms(posted.text).forms
    assert form["action"] == CALLBACK and form["method"] == "post"
    fields = form["fields"]
    assert fields["state"] == "st8" and fields["code"] and fields["id_token"]
    assert fields["user"] and '"firstName":"Erin"' in fields["user"].replace(" ", "")
    claims = verify(fauxth, fields["id_token"], "apple", "com.example.web", "https://appleid.apple.com")
    assert claims["is_private_email"] == "true" and claims["email"].endswith("@privaterelay.appleid.com")
    second = pick(fauxth, authorize(fauxth, "apple", response_mode="form_post", scope="name email", client_id="com.example.web"),
                  account="000002.e41200000000000000000000000000e4.0002")
    assert "user" not in Forms(second.text).forms[0]["fields"]


def test_the_next_sign_in_can_be_decided_through_the_control_api(fauxth):
    assert fauxth.control("POST", "/idp/google/next", json={"account": "dana@example.com"}).status_code == 202
    assert fauxth.control("POST", "/idp/google/next", json={"error": "access_denied"}).status_code == 202
    first = authorize(fauxth, "google", redirect_uri="myapp://oauth")
    assert first.status_code == 302 and first.headers["Location"].startswith("myapp://oauth?code=")
    captured = fauxth.control("GET", "/deeplinks/wait", params={"scheme": "myapp", "timeout": 5}).json()
    assert captured["url"] == first.headers["Location"]
    second = authorize(fauxth, "google")
    assert query(second.headers["Location"])["error"] == "access_denied"
    assert authorize(fauxth, "google").status_code == 200  # the queue is used up: the page again
    assert fauxth.control("POST", "/idp/nosuch/next", json={"account": "x@example.com"}).status_code == 404
    assert fauxth.control("POST", "/idp/google/next", json={"error": "nope"}).status_code == 400


def test_a_generic_oidc_provider_declared_at_runtime(fauxth):
    created = fauxth.control("POST", "/idp", json={"id": "acme", "name": "Acme SSO", "claims": {"groups": ["staff"]},
                                                   "accounts": [{"sub": "u-1", "email": "worker@acme.test", "name": "Worker"}]})
    assert created.status_code == 201, created.text
    assert created.json()["issuer"] == f"{fauxth.url}/_emu/idp/acme"
    document = discovery(fauxth, "acme")
    assert document["issuer"] == f"{fauxth.url}/_emu/idp/acme"
    back = pick(fauxth, authorize(fauxth, "acme"), account="u-1")
    code = query(back.headers["Location"])["code"]
    tokens = requests.post(document["token_endpoint"], timeout=30, auth=("web-client", "secret"),
                           data={"grant_type": "authorization_code", "code": code, "redirect_uri": CALLBACK}).json()
    claims = verify(fauxth, tokens["id_token"], "acme", "web-client", document["issuer"])
    assert claims["groups"] == ["staff"] and claims["email"] == "worker@acme.test"
    # A reset returns to the seed: the runtime provider is gone.
    fauxth.control("POST", "/reset")
    assert requests.get(f"{fauxth.url}/_emu/idp/acme/jwks", timeout=30).status_code == 404
