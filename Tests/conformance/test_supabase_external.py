"""OAuth entry points, identity linking and the features GoTrue ships off, through supabase-py."""
from urllib.parse import parse_qs, urlparse

import pytest
import requests
from supabase import create_client
from supabase_auth.errors import AuthApiError

from test_supabase_slice import ANON_KEY

GOOGLE = {"GOTRUE_EXTERNAL_GOOGLE_ENABLED": "true", "GOTRUE_EXTERNAL_GOOGLE_CLIENT_ID": "web-client",
          "GOTRUE_EXTERNAL_GOOGLE_SECRET": "shh", "GOTRUE_SECURITY_MANUAL_LINKING_ENABLED": "true",
          "GOTRUE_EXTERNAL_PHONE_ENABLED": "true", "GOTRUE_URI_ALLOW_LIST": "myapp://**"}
BOTH = {"email": "both@example.com", "phone": "+15550100077", "password": "secret123",
        "email_verified": True, "phone_verified": True}


def test_sign_in_with_oauth_url_redirects_to_the_provider_and_the_callback_reports_back(supabase_project):
    fauxth = supabase_project(GOOGLE)
    auth = create_client(fauxth.url, ANON_KEY).auth
    oauth = auth.sign_in_with_oauth({"provider": "google", "options": {"redirect_to": "myapp://done"}})
    answer = requests.get(oauth.url, allow_redirects=False, timeout=10)
    assert answer.status_code == 302
    provider = urlparse(answer.headers["location"])
    # Google is served by Fauxth's fake Google, on the same server.
    assert f"{provider.scheme}://{provider.netloc}" == fauxth.url and provider.path == "/_emu/idp/google/authorize"
    query = parse_qs(provider.query)
    assert query["client_id"] == ["web-client"]
    assert query["redirect_uri"] == [f"{fauxth.url}/auth/v1/callback"]
    # The user cancels at the provider: GoTrue sends the app the provider's error.
    back = requests.get(f"{fauxth.url}/auth/v1/callback", params={"error": "access_denied", "state": query["state"][0]},
                        allow_redirects=False, timeout=10)
    assert back.headers["location"].startswith("myapp://done?error=access_denied")
    links = fauxth.control("GET", "/deeplinks").json()["deeplinks"]
    assert links[0]["params"]["error"] == "access_denied"


def test_a_disabled_provider_is_refused_as_gotrue_refuses_it(fauxth):
    auth = create_client(fauxth.url, ANON_KEY).auth
    url = auth.sign_in_with_oauth({"provider": "github"}).url
    answer = requests.get(url, allow_redirects=False, timeout=10)
    assert answer.status_code == 400
    assert answer.json()["msg"] == "Unsupported provider: provider is not enabled"


def test_link_identity_and_unlink_identity(supabase_project):
    fauxth = supabase_project(GOOGLE, [BOTH])
    auth = create_client(fauxth.url, ANON_KEY).auth
    auth.sign_in_with_password({"email": "both@example.com", "password": "secret123"})
    link = auth.link_identity({"provider": "google"})
    assert urlparse(link.url).path == "/_emu/idp/google/authorize"
    identities = auth.get_user_identities().identities
    assert {i.provider for i in identities} == {"email", "phone"}
    phone = next(i for i in identities if i.provider == "phone")
    auth.unlink_identity(phone)
    user = auth.get_user().user
    assert [i.provider for i in user.identities] == ["email"]
    assert not user.phone
    with pytest.raises(AuthApiError) as error:
        auth.unlink_identity(user.identities[0])
    assert error.value.code == "single_identity_not_deletable"


def test_manual_linking_is_off_by_default(fauxth):
    auth = create_client(fauxth.url, ANON_KEY).auth
    auth.sign_in_with_password({"email": "alice@example.com", "password": "password123"})
    with pytest.raises(AuthApiError) as error:
        auth.unlink_identity(auth.get_user().user.identities[0])
    assert error.value.code == "manual_linking_disabled"


@pytest.mark.parametrize("method,path,code", [
    ("POST", "/passkeys/authentication/options", "passkey_disabled"),
    ("POST", "/oauth/clients/register", "feature_disabled"),
    ("GET", "/scim/v2/ServiceProviderConfig", "feature_disabled"),
])
def test_features_gotrue_ships_off_answer_disabled(fauxth, method, path, code):
    answer = requests.request(method, f"{fauxth.url}/auth/v1{path}", headers={"X-Supabase-Api-Version": "2024-01-01"}, timeout=10)
    assert answer.status_code == 404
    assert answer.json()["code"] == code
    assert answer.headers["x-sb-error-code"] == code


def follow_to_the_app(fauxth, url, account=None, error=None, provider="google"):
    """The browser's round trip: GoTrue's /authorize → the fake provider (its choice decided through the control API) →
    /callback → the app's redirect_to, which is returned (and captured, for an app scheme)."""
    fauxth.control("POST", f"/idp/{provider}/next", json={"error": error} if error else {"account": account})
    location = url
    for _ in range(4):
        answer = requests.get(location, allow_redirects=False, timeout=10)
        assert answer.status_code == 302, answer.text
        location = answer.headers["location"]
        if location.startswith("myapp://"):
            return location
    raise AssertionError(f"never reached the app: {location}")


def test_google_sign_in_with_pkce_completes_with_exchange_code_for_session(fauxth):
    auth = create_client(fauxth.url, ANON_KEY).auth
    oauth = auth.sign_in_with_oauth({"provider": "google", "options": {"redirect_to": "myapp://auth/callback"}})
    location = follow_to_the_app(fauxth, oauth.url, account="dana@example.com")
    code = parse_qs(urlparse(location).query)["code"][0]
    captured = fauxth.control("GET", "/deeplinks/wait", params={"scheme": "myapp", "timeout": 5}).json()
    assert captured["params"]["code"] == code
    response = auth.exchange_code_for_session({"auth_code": code})
    user = response.user
    assert user.email == "dana@example.com" and user.app_metadata["provider"] == "google"
    assert user.user_metadata["full_name"] == "Dana Google" and user.user_metadata["email_verified"] is True
    assert [i.provider for i in user.identities] == ["google"] and user.identities[0].id == "100000000000000000002"
    assert response.session.provider_token
    assert user.email_confirmed_at
    # The same Google account signs in as the same user.
    again = follow_to_the_app(fauxth, auth.sign_in_with_oauth({"provider": "google", "options": {"redirect_to": "myapp://auth/callback"}}).url,
                              account="dana@example.com")
    assert auth.exchange_code_for_session({"auth_code": parse_qs(urlparse(again).query)["code"][0]}).user.id == user.id


def test_a_verified_google_email_links_to_the_existing_user(fauxth):
    auth = create_client(fauxth.url, ANON_KEY).auth
    password_user = auth.sign_in_with_password({"email": "alice@example.com", "password": "password123"}).user
    auth.sign_out()
    location = follow_to_the_app(fauxth, auth.sign_in_with_oauth({"provider": "google", "options": {"redirect_to": "myapp://x"}}).url,
                                 account="alice@example.com")
    user = auth.exchange_code_for_session({"auth_code": parse_qs(urlparse(location).query)["code"][0]}).user
    assert user.id == password_user.id
    assert sorted(i.provider for i in user.identities) == ["email", "google"]
    assert sorted(user.app_metadata["providers"]) == ["email", "google"]


def test_the_implicit_flow_puts_the_session_in_the_fragment(fauxth):
    from supabase import ClientOptions
    auth = create_client(fauxth.url, ANON_KEY, options=ClientOptions(flow_type="implicit")).auth
    url = auth.sign_in_with_oauth({"provider": "apple", "options": {"redirect_to": "myapp://signed-in"}}).url
    fauxth.control("POST", "/idp/apple/next", json={"account": "000002.e41200000000000000000000000000e4.0002"})
    answer = requests.get(url, allow_redirects=False, timeout=10)
    provider_page = requests.get(answer.headers["location"], allow_redirects=False, timeout=10)
    # Apple answers by form_post when asked for the name or email, as GoTrue asks it.
    from conftest import Forms
    [form] = Forms(provider_page.text).forms
    back = requests.post(form["action"], data=form["fields"], allow_redirects=False, timeout=10)
    location = back.headers["location"]
    assert location.startswith("myapp://signed-in#")
    fragment = parse_qs(urlparse(location).fragment)
    assert fragment["token_type"] == ["bearer"] and fragment["provider_token"][0] and fragment["refresh_token"][0]
    session = auth.set_session(fragment["access_token"][0], fragment["refresh_token"][0])
    assert session.user.email.endswith("@privaterelay.appleid.com")
    assert session.user.user_metadata["full_name"] == "Erin Private"


def test_a_provider_error_or_a_disabled_signup_goes_back_to_the_app(supabase_project):
    fauxth = supabase_project({**GOOGLE, "GOTRUE_DISABLE_SIGNUP": "true"})
    auth = create_client(fauxth.url, ANON_KEY).auth
    cancelled = follow_to_the_app(fauxth, auth.sign_in_with_oauth({"provider": "google", "options": {"redirect_to": "myapp://done"}}).url,
                                  error="access_denied")
    assert parse_qs(urlparse(cancelled).query)["error"] == ["access_denied"]
    refused = follow_to_the_app(fauxth, auth.sign_in_with_oauth({"provider": "google", "options": {"redirect_to": "myapp://done"}}).url,
                                account="dana@example.com")
    query = parse_qs(urlparse(refused).query)
    assert query["error"] == ["access_denied"] and query["error_code"] == ["signup_disabled"]


def test_sign_in_with_id_token_from_a_native_apple_sheet(fauxth):
    import hashlib
    auth = create_client(fauxth.url, ANON_KEY).auth
    raw_nonce = "raw-nonce-value"
    minted = fauxth.control("POST", "/idp/apple/tokens", json={
        "email": "native@example.com", "aud": "com.example.fauxth.ios", "nonce": hashlib.sha256(raw_nonce.encode()).hexdigest()}).json()
    response = auth.sign_in_with_id_token({"provider": "apple", "token": minted["id_token"], "nonce": raw_nonce})
    assert response.user.email == "native@example.com" and response.user.app_metadata["provider"] == "apple"
    assert response.session.access_token
    with pytest.raises(AuthApiError) as wrong_nonce:
        auth.sign_in_with_id_token({"provider": "apple", "token": minted["id_token"], "nonce": "another"})
    assert "Nonces mismatch" in str(wrong_nonce.value)
    foreign = fauxth.control("POST", "/idp/apple/tokens", json={"email": "native@example.com", "aud": "com.someone.else"}).json()
    with pytest.raises(AuthApiError) as wrong_audience:
        auth.sign_in_with_id_token({"provider": "apple", "token": foreign["id_token"]})
    assert "audience" in str(wrong_audience.value)
    google_token = fauxth.control("POST", "/idp/google/tokens", json={"email": "native@example.com",
                                                                      "aud": "fauxth-google-client.apps.googleusercontent.com"}).json()
    with pytest.raises(AuthApiError) as wrong_provider:
        auth.sign_in_with_id_token({"provider": "apple", "token": google_token["id_token"]})
    assert "Bad ID token" in str(wrong_provider.value)
    assert auth.sign_in_with_id_token({"provider": "google", "token": google_token["id_token"]}).user.id == response.user.id


def test_linking_an_identity_the_user_already_has_is_refused(supabase_project):
    """auth-js's `linkIdentity({provider, token})` sends the ID token grant with `link_identity`; a second link of the
    same Google account is GoTrue's 422 `identity_already_exists` "Identity is already linked" (identity.go), which
    Fauxth answered with a new session."""
    fauxth = supabase_project(GOOGLE, [BOTH])
    session = requests.post(f"{fauxth.url}/auth/v1/token", params={"grant_type": "password"}, headers={"apikey": ANON_KEY},
                            json={"email": "both@example.com", "password": "secret123"}, timeout=10).json()
    token = fauxth.control("POST", "/idp/google/tokens", json={"email": "both@example.com", "aud": "web-client"}).json()["id_token"]

    def link():
        return requests.post(f"{fauxth.url}/auth/v1/token", params={"grant_type": "id_token"},
                             headers={"apikey": ANON_KEY, "Authorization": f"Bearer {session['access_token']}",
                                      "X-Supabase-Api-Version": "2024-01-01"},
                             json={"provider": "google", "id_token": token, "link_identity": True}, timeout=10)

    assert link().status_code == 200
    again = link()
    assert again.status_code == 422
    assert again.json() == {"code": "identity_already_exists", "message": "Identity is already linked"}


def anonymous_link(fauxth, claims):
    """An anonymous sign-in, then auth-js's `linkIdentity({provider: 'google', token})` with a token for `claims`."""
    session = requests.post(f"{fauxth.url}/auth/v1/signup", headers={"apikey": ANON_KEY}, json={"data": {}}, timeout=10).json()
    assert session["user"]["is_anonymous"] is True
    token = fauxth.control("POST", "/idp/google/tokens", json={"aud": "web-client", **claims}).json()["id_token"]
    linked = requests.post(f"{fauxth.url}/auth/v1/token", params={"grant_type": "id_token"},
                           headers={"apikey": ANON_KEY, "Authorization": f"Bearer {session['access_token']}",
                                    "X-Supabase-Api-Version": "2024-01-01"},
                           json={"provider": "google", "id_token": token, "link_identity": True}, timeout=10)
    return session, linked


def test_linking_a_verified_identity_makes_an_anonymous_user_permanent(supabase_project):
    """GoTrue's linkIdentityToUser (identity.go): a user without an email takes the linked identity's address, is
    confirmed and stops being anonymous; Fauxth only added the identity, and the user stayed anonymous."""
    fauxth = supabase_project({**GOOGLE, "GOTRUE_EXTERNAL_ANONYMOUS_USERS_ENABLED": "true"})
    session, linked = anonymous_link(fauxth, {"email": "Linked@Example.com", "email_verified": True})
    assert linked.status_code == 200, linked.text
    user = linked.json()["user"]
    assert user["id"] == session["user"]["id"] and user["is_anonymous"] is False
    assert user["email"] == "linked@example.com" and user["email_confirmed_at"]
    assert user["app_metadata"]["provider"] == "google" and user["app_metadata"]["providers"] == ["google"]
    assert user["user_metadata"]["email_verified"] is True
    claims = requests.get(f"{fauxth.url}/auth/v1/user", headers={"apikey": ANON_KEY,
                                                                 "Authorization": f"Bearer {linked.json()['access_token']}"}).json()
    assert claims["is_anonymous"] is False and claims["email"] == "linked@example.com"


def test_linking_with_an_id_token_needs_no_manual_linking(supabase_project):
    """GoTrue's IdTokenGrant never asks for GOTRUE_SECURITY_MANUAL_LINKING_ENABLED (only the /user/identities routes
    do); Fauxth answered 404 manual_linking_disabled, so an app upgrading anonymous users failed only here."""
    off = {k: v for k, v in GOOGLE.items() if k != "GOTRUE_SECURITY_MANUAL_LINKING_ENABLED"}
    fauxth = supabase_project({**off, "GOTRUE_EXTERNAL_ANONYMOUS_USERS_ENABLED": "true"})
    session, linked = anonymous_link(fauxth, {"email": "upgraded@example.com", "email_verified": True})
    assert linked.status_code == 200, linked.text
    assert linked.json()["user"]["id"] == session["user"]["id"] and linked.json()["user"]["is_anonymous"] is False


def test_a_nonce_on_one_side_only_is_gotrues_own_refusal(supabase_project):
    """Native Google Sign-In on iOS puts a nonce in the token; an app that forgets to pass the raw one gets this."""
    fauxth = supabase_project(GOOGLE)
    token = fauxth.control("POST", "/idp/google/tokens", json={"aud": "web-client", "email": "n@example.com",
                                                               "nonce": "a" * 64}).json()["id_token"]
    auth = create_client(fauxth.url, ANON_KEY).auth
    with pytest.raises(AuthApiError) as refused:
        auth.sign_in_with_id_token({"provider": "google", "token": token})
    assert "Passed nonce and nonce in id_token should either both exist or not." in str(refused.value)


def test_an_unverified_provider_address_is_refused_until_confirmed(supabase_project):
    """createAccountFromExternalIdentity: a new user whose provider does not vouch for the address gets a confirmation
    and 422 provider_email_needs_verification (Fauxth signed them in unconfirmed, hiding the app's missing handler)."""
    fauxth = supabase_project(GOOGLE)
    token = fauxth.control("POST", "/idp/google/tokens", json={"aud": "web-client", "email": "unsure@example.com",
                                                               "email_verified": False}).json()["id_token"]
    with pytest.raises(AuthApiError) as refused:
        create_client(fauxth.url, ANON_KEY).auth.sign_in_with_id_token({"provider": "google", "token": token})
    assert refused.value.code == "provider_email_needs_verification" and refused.value.status == 422
    assert fauxth.control("GET", "/messages", params={"to": "unsure@example.com"}).json()["messages"]


def test_linking_an_unverified_identity_asks_an_anonymous_user_to_confirm(supabase_project):
    fauxth = supabase_project({**GOOGLE, "GOTRUE_EXTERNAL_ANONYMOUS_USERS_ENABLED": "true"})
    session, linked = anonymous_link(fauxth, {"email": "pending@example.com", "email_verified": False})
    assert linked.status_code == 422
    assert linked.json() == {"code": "email_not_confirmed",
                             "message": "Unverified email with google. A confirmation email has been sent to your google email"}
    assert fauxth.wait_message("pending@example.com", purpose="verify_email")["codes"]
    # The identity and the address stay, as GoTrue commits them before refusing; the user is still anonymous.
    user = requests.get(f"{fauxth.url}/auth/v1/user", headers={"apikey": ANON_KEY, "Authorization": f"Bearer {session['access_token']}"},
                        timeout=10).json()
    assert user["is_anonymous"] is True and user["email"] == "pending@example.com" and not user.get("email_confirmed_at")
    assert [identity["provider"] for identity in user["identities"]] == ["google"]
