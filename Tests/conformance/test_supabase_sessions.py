"""Verification, refresh, sign-out and sessions, driven by supabase-py."""
import hashlib
import urllib.parse

import pytest
import requests
from supabase import ClientOptions, create_client
from supabase_auth.errors import AuthApiError

from test_supabase_slice import ANON_KEY, claims


def client(fauxth, flow_type="pkce"):
    """A client as apps make it; "pkce" is supabase-py's default flow."""
    return create_client(fauxth.url, ANON_KEY, options=ClientOptions(flow_type=flow_type))


def sign_up_and_read_code(fauxth, auth, email, **options):
    auth.sign_up({"email": email, "password": "secret123", "options": options})
    message = fauxth.wait_message(email, purpose="verify_email")
    return message["codes"][0], message["links"][0]


def test_verify_otp_with_the_emailed_code_confirms_and_signs_in(fauxth):
    auth = client(fauxth).auth
    code, _ = sign_up_and_read_code(fauxth, auth, "otp@example.com")
    response = auth.verify_otp({"email": "otp@example.com", "token": code, "type": "signup"})
    assert response.session is not None
    assert response.user.email_confirmed_at is not None
    assert claims(response.session.access_token)["amr"][0]["method"] == "otp"
    assert auth.get_user().user.email == "otp@example.com"
    with pytest.raises(AuthApiError) as error:
        auth.verify_otp({"email": "otp@example.com", "token": code, "type": "signup"})
    assert error.value.code == "otp_expired"


def test_verify_otp_with_the_token_hash_from_the_link(fauxth):
    auth = client(fauxth).auth
    code, link = sign_up_and_read_code(fauxth, auth, "hash@example.com")
    token_hash = urllib.parse.parse_qs(urllib.parse.urlsplit(link).query)["token"][0]
    assert token_hash == "pkce_" + hashlib.sha224(("hash@example.com" + code).encode()).hexdigest()
    response = auth.verify_otp({"token_hash": token_hash, "type": "signup"})
    assert response.session.user.email == "hash@example.com"


def test_an_expired_code_is_refused_after_the_clock_moves(fauxth):
    fauxth.control("POST", "/clock/freeze")
    auth = client(fauxth).auth
    code, _ = sign_up_and_read_code(fauxth, auth, "slow@example.com")
    fauxth.control("POST", "/clock/advance", json={"seconds": 3601})  # the default project's GOTRUE_MAILER_OTP_EXP is 3600
    with pytest.raises(AuthApiError) as error:
        auth.verify_otp({"email": "slow@example.com", "token": code, "type": "signup"})
    assert error.value.code == "otp_expired"
    assert error.value.status == 403


def test_the_email_link_redirects_to_the_app_with_a_code_the_client_exchanges(fauxth):
    auth = client(fauxth).auth
    _, link = sign_up_and_read_code(fauxth, auth, "deeplink@example.com", email_redirect_to="myapp://auth/callback")
    response = requests.get(link, allow_redirects=False)
    assert response.status_code == 303
    location = response.headers["Location"]
    assert location.startswith("myapp://auth/callback?code=")
    code = urllib.parse.parse_qs(urllib.parse.urlsplit(location).query)["code"][0]
    captured = fauxth.control("GET", "/deeplinks/wait", params={"scheme": "myapp", "timeout": 5}).json()
    assert captured["url"] == location and captured["source"] == "verify"
    # The verifier comes from the client's own storage, where sign_up left it.
    session = auth.exchange_code_for_session({"auth_code": code}).session
    assert session.user.email == "deeplink@example.com"
    assert session.user.email_confirmed_at is not None


def test_with_the_implicit_flow_the_email_link_carries_the_session_in_the_fragment(fauxth):
    auth = client(fauxth, flow_type="implicit").auth
    _, link = sign_up_and_read_code(fauxth, auth, "implicit@example.com", email_redirect_to="myapp://auth/callback")
    location = requests.get(link, allow_redirects=False).headers["Location"]
    assert location.startswith("myapp://auth/callback#access_token=")
    fragment = urllib.parse.parse_qs(urllib.parse.urlsplit(location).fragment)
    assert fragment["type"] == ["signup"] and fragment["token_type"] == ["bearer"]
    captured = fauxth.control("GET", "/deeplinks/wait", params={"scheme": "myapp", "timeout": 5}).json()
    assert captured["params"]["refresh_token"] == fragment["refresh_token"][0]
    session = auth.set_session(fragment["access_token"][0], fragment["refresh_token"][0])
    assert session.user.email == "implicit@example.com"


def test_refresh_rotates_and_reusing_an_old_token_fails(fauxth):
    auth = client(fauxth).auth
    first = auth.sign_in_with_password({"email": "alice@example.com", "password": "password123"}).session
    second = auth.refresh_session().session
    assert second.refresh_token != first.refresh_token
    third = auth.refresh_session().session
    assert third.refresh_token != second.refresh_token
    with pytest.raises(AuthApiError) as error:
        auth.refresh_session(first.refresh_token)
    assert error.value.code == "refresh_token_already_used"


def test_sign_out_ends_the_session_at_once(fauxth):
    auth = client(fauxth).auth
    session = auth.sign_in_with_password({"email": "alice@example.com", "password": "password123"}).session
    user_id = session.user.id
    sessions = fauxth.control("GET", f"/tenants/default/users/{user_id}/sessions").json()["sessions"]
    assert [s["active"] for s in sessions] == [True]
    auth.sign_out()
    assert auth.get_session() is None
    with pytest.raises(AuthApiError) as error:
        client(fauxth).auth.get_user(session.access_token)
    assert error.value.code == "session_not_found"
    sessions = fauxth.control("GET", f"/tenants/default/users/{user_id}/sessions").json()["sessions"]
    assert [s["active"] for s in sessions] == [False]


def test_the_control_api_revokes_a_session(fauxth):
    auth = client(fauxth).auth
    session = auth.sign_in_with_password({"email": "carol@example.com", "password": "password123"}).session
    revoked = fauxth.control("DELETE", f"/tenants/default/users/{session.user.id}/sessions/{claims(session.access_token)['session_id']}")
    assert revoked.status_code == 204
    with pytest.raises(AuthApiError) as error:
        auth.get_user(session.access_token)
    assert error.value.code == "session_not_found"


def test_settings_and_jwks_are_served(fauxth):
    settings = requests.get(f"{fauxth.url}/auth/v1/settings", headers={"apikey": ANON_KEY}).json()
    assert settings["external"]["email"] is True
    assert settings["mailer_autoconfirm"] is False
    assert requests.get(f"{fauxth.url}/auth/v1/.well-known/jwks.json").json() == {"keys": []}


def test_sign_in_with_otp_sends_a_magic_link_code_that_verifies(fauxth):
    auth = client(fauxth).auth
    response = auth.sign_in_with_otp({"email": "alice@example.com", "options": {"email_redirect_to": "myapp://magic"}})
    assert response.user is None and response.session is None
    message = fauxth.wait_message("alice@example.com", purpose="magic_link")
    assert message["links"][0].endswith("&type=magiclink&redirect_to=myapp://magic")
    session = auth.verify_otp({"email": "alice@example.com", "token": message["codes"][0], "type": "email"}).session
    assert session.user.email == "alice@example.com"


def test_reset_password_for_email_sends_a_recovery_link(fauxth):
    auth = client(fauxth).auth
    auth.reset_password_for_email("carol@example.com", {"redirect_to": "myapp://reset-password"})
    message = fauxth.wait_message("carol@example.com", purpose="reset_password")
    location = requests.get(message["links"][0], allow_redirects=False).headers["Location"]
    assert location.startswith("myapp://reset-password?code=")
    code = urllib.parse.parse_qs(urllib.parse.urlsplit(location).query)["code"][0]
    session = auth.exchange_code_for_session({"auth_code": code}).session
    assert claims(session.access_token)["amr"][0]["method"] == "recovery"
    assert auth.update_user({"password": "after-the-reset"}).user.email == "carol@example.com"
    # Unknown addresses succeed silently.
    auth.reset_password_for_email("nobody@example.com")
    assert fauxth.control("GET", "/messages", params={"to": "nobody@example.com"}).json()["messages"] == []


def test_resend_repeats_the_signup_confirmation(fauxth):
    fauxth.control("POST", "/clock/freeze")
    auth = client(fauxth).auth
    auth.sign_up({"email": "resend@example.com", "password": "secret123"})
    fauxth.control("POST", "/clock/advance", json={"seconds": 5})
    auth.resend({"type": "signup", "email": "resend@example.com"})
    messages = fauxth.control("GET", "/messages", params={"to": "resend@example.com"}).json()["messages"]
    assert len(messages) == 2


def test_update_user_changes_the_password_and_ends_other_sessions(fauxth):
    first, second = client(fauxth).auth, client(fauxth).auth
    first.sign_in_with_password({"email": "carol@example.com", "password": "password123"})
    other = second.sign_in_with_password({"email": "carol@example.com", "password": "password123"}).session
    user = first.update_user({"password": "a-new-password", "data": {"nickname": "caz"}}).user
    assert user.user_metadata["nickname"] == "caz"
    assert first.get_user().user.email == "carol@example.com"
    with pytest.raises(AuthApiError) as error:
        second.get_user(other.access_token)
    assert error.value.code == "session_not_found"
    assert client(fauxth).auth.sign_in_with_password({"email": "carol@example.com", "password": "a-new-password"}).session


def test_a_raw_pkce_magic_link_request_is_exchanged_with_the_callers_verifier(fauxth):
    import base64
    import secrets

    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    # The verifier is the caller's own here, not one kept in a client's storage.
    response = requests.post(f"{fauxth.url}/auth/v1/otp", params={"redirect_to": "myapp://auth/callback"},
                             json={"email": "alice@example.com", "code_challenge": challenge, "code_challenge_method": "s256"},
                             headers={"apikey": ANON_KEY, "X-Supabase-Api-Version": "2024-01-01"})
    assert response.status_code == 200 and response.json() == {}
    link = fauxth.wait_message("alice@example.com", purpose="magic_link")["links"][0]
    assert "token=pkce_" in link
    location = requests.get(link, allow_redirects=False).headers["Location"]
    assert location.startswith("myapp://auth/callback?code=")
    code = urllib.parse.parse_qs(urllib.parse.urlsplit(location).query)["code"][0]
    assert fauxth.control("GET", "/deeplinks", params={"scheme": "myapp"}).json()["deeplinks"][0]["params"] == {"code": code}
    # The link again: the error in the query and the fragment, GoTrue's `sb` marker in the fragment only.
    again = urllib.parse.urlsplit(requests.get(link, allow_redirects=False).headers["Location"])
    assert urllib.parse.parse_qs(again.query, keep_blank_values=True) == {
        "error": ["access_denied"], "error_code": ["otp_expired"], "error_description": ["Email link is invalid or has expired"]}
    assert urllib.parse.parse_qs(again.fragment, keep_blank_values=True)["sb"] == [""]
    auth = client(fauxth).auth
    session = auth.exchange_code_for_session({"auth_code": code, "code_verifier": verifier}).session
    assert session.user.email == "alice@example.com"
    assert claims(session.access_token)["amr"][0]["method"] == "magiclink"
    with pytest.raises(AuthApiError) as error:
        auth.exchange_code_for_session({"auth_code": code, "code_verifier": verifier})
    assert error.value.code == "flow_state_not_found"


def test_update_user_email_needs_both_confirmations(fauxth):
    auth = client(fauxth).auth
    confirmed_at = auth.sign_in_with_password({"email": "alice@example.com", "password": "password123"}).user.email_confirmed_at
    fauxth.control("POST", "/clock/advance", json={"seconds": 60})
    user = auth.update_user({"email": "alice.new@example.com"}).user
    assert user.new_email == "alice.new@example.com" and user.email == "alice@example.com"
    to_new = fauxth.wait_message("alice.new@example.com", purpose="email_change")
    to_old = fauxth.wait_message("alice@example.com", purpose="email_change")
    raw = requests.post(f"{fauxth.url}/auth/v1/verify", headers={"X-Supabase-Api-Version": "2024-01-01"},
                        json={"type": "email_change", "email": "alice.new@example.com", "token": to_new["codes"][0]})
    assert raw.json()["msg"].startswith("Confirmation link accepted")
    session = auth.verify_otp({"email": "alice@example.com", "token": to_old["codes"][0], "type": "email_change"}).session
    assert session.user.email == "alice.new@example.com"
    # GoTrue's ConfirmEmailChange confirms only an unconfirmed user: the original stamp stays.
    assert session.user.email_confirmed_at == confirmed_at


def test_reauthenticate_sends_the_nonce_a_password_update_needs(supabase_project):
    instance = supabase_project({"GOTRUE_SECURITY_UPDATE_PASSWORD_REQUIRE_REAUTHENTICATION": "true"},
                                [{"email": "re@example.com", "password": "secret123", "email_verified": True}],
                                "--clock", "frozen@2026-01-01T00:00:00Z")
    auth = create_client(instance.url, ANON_KEY).auth
    auth.sign_in_with_password({"email": "re@example.com", "password": "secret123"})
    instance.control("POST", "/clock/advance", json={"seconds": 2 * 86400})
    auth.refresh_session()
    with pytest.raises(AuthApiError) as error:
        auth.update_user({"password": "brand-new-pass"})
    assert error.value.code == "reauthentication_needed"
    auth.reauthenticate()
    nonce = instance.wait_message("re@example.com", purpose="reauthentication")["codes"][0]
    assert auth.update_user({"password": "brand-new-pass", "nonce": nonce}).user.email == "re@example.com"


def test_an_idle_session_expires_on_the_emulator_clock(supabase_project):
    instance = supabase_project({"GOTRUE_SESSIONS_INACTIVITY_TIMEOUT": "8h"},
                                [{"email": "idle@example.com", "password": "secret123", "email_verified": True}],
                                "--clock", "frozen@2026-01-01T00:00:00Z")
    auth = create_client(instance.url, ANON_KEY).auth
    auth.sign_in_with_password({"email": "idle@example.com", "password": "secret123"})
    instance.control("POST", "/clock/advance", json={"seconds": 7 * 3600})
    assert auth.refresh_session().session is not None
    instance.control("POST", "/clock/advance", json={"seconds": 9 * 3600})
    with pytest.raises(AuthApiError) as error:
        auth.refresh_session()
    assert error.value.code == "session_expired"


def test_a_banned_users_refresh_is_refused_in_the_refresh_grants_words(fauxth):
    """GoTrue's tokens service: 400 `user_banned` "Invalid Refresh Token: User Banned" for a refresh; a sign-in says
    "User is banned"."""
    from test_supabase_admin import SERVICE_ROLE_KEY
    headers = {"apikey": ANON_KEY, "X-Supabase-Api-Version": "2024-01-01"}
    session = requests.post(f"{fauxth.url}/auth/v1/token", params={"grant_type": "password"}, headers=headers,
                            json={"email": "alice@example.com", "password": "password123"}, timeout=10).json()
    banned = requests.put(f"{fauxth.url}/auth/v1/admin/users/{session['user']['id']}", json={"ban_duration": "1h"}, timeout=10,
                          headers={"apikey": SERVICE_ROLE_KEY, "Authorization": f"Bearer {SERVICE_ROLE_KEY}"})
    assert banned.status_code == 200, banned.text
    refresh = requests.post(f"{fauxth.url}/auth/v1/token", params={"grant_type": "refresh_token"}, headers=headers,
                            json={"refresh_token": session["refresh_token"]}, timeout=10)
    assert (refresh.status_code, refresh.json()) == (400, {"code": "user_banned", "message": "Invalid Refresh Token: User Banned"})


def test_a_pkce_link_continues_the_flow_of_its_own_kind(fauxth):
    """GoTrue's issueAuthCode finds the user's newest flow of the link's kind (FindFlowStateByUserID with the
    authentication method): a sign-up link clicked after a password reset began elsewhere still pairs with the sign-up's
    verifier. Fauxth took the newest flow of any kind, so the exchange failed with bad_code_verifier."""
    import base64
    import secrets

    def challenge():
        verifier = secrets.token_urlsafe(48)
        return verifier, base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()

    headers = {"apikey": ANON_KEY, "X-Supabase-Api-Version": "2024-01-01"}
    signup_verifier, signup_challenge = challenge()
    assert requests.post(f"{fauxth.url}/auth/v1/signup", headers=headers, json={
        "email": "two-flows@example.com", "password": "secret123", "code_challenge": signup_challenge,
        "code_challenge_method": "s256"}).status_code == 200
    _, reset_challenge = challenge()
    fauxth.control("POST", "/clock/advance", json={"seconds": 2})
    assert requests.post(f"{fauxth.url}/auth/v1/recover", headers=headers, json={
        "email": "two-flows@example.com", "code_challenge": reset_challenge, "code_challenge_method": "s256"}).status_code == 200
    link = next(l for l in fauxth.wait_message("two-flows@example.com", purpose="verify_email")["links"] if "type=signup" in l)
    code = urllib.parse.parse_qs(urllib.parse.urlsplit(requests.get(link, allow_redirects=False).headers["Location"]).query)["code"][0]
    session = client(fauxth).auth.exchange_code_for_session({"auth_code": code, "code_verifier": signup_verifier}).session
    assert session.user.email == "two-flows@example.com"


def test_a_magic_link_and_a_password_reset_share_one_token(fauxth):
    """GoTrue keeps both in the user's recovery_token ("Magic Link is just a recovery with a different template",
    mail.go): the newer ends the older, and verify's magiclink, recovery and email types take either. Fauxth kept them
    apart."""
    headers = {"apikey": ANON_KEY, "X-Supabase-Api-Version": "2024-01-01"}
    assert requests.post(f"{fauxth.url}/auth/v1/recover", headers=headers, json={"email": "alice@example.com"}).status_code == 200
    reset = fauxth.wait_message("alice@example.com", purpose="reset_password")["codes"][0]
    fauxth.control("POST", "/clock/advance", json={"seconds": 61})
    assert requests.post(f"{fauxth.url}/auth/v1/otp", headers=headers, json={"email": "alice@example.com"}).status_code == 200
    magic = fauxth.wait_message("alice@example.com", purpose="magic_link")["codes"][0]

    def verify(kind, token):
        return requests.post(f"{fauxth.url}/auth/v1/verify", headers=headers, json={"type": kind, "email": "alice@example.com", "token": token})

    assert verify("recovery", reset).json()["code"] == "otp_expired"
    assert verify("recovery", magic).status_code == 200
    fauxth.control("POST", "/clock/advance", json={"seconds": 61})
    assert requests.post(f"{fauxth.url}/auth/v1/recover", headers=headers, json={"email": "alice@example.com"}).status_code == 200
    assert verify("email", fauxth.wait_message("alice@example.com", purpose="reset_password")["codes"][0]).status_code == 200


def test_a_pkce_clients_email_change_is_a_pkce_flow(fauxth):
    """auth-js's updateUser({email}) with flowType 'pkce' sends a code challenge; GoTrue's UserUpdate then makes the
    change a PKCE flow (user.go): pkce_ tokens in both links, the first one's redirect with the message in the query too
    (prepRedirectURL), the last one's with ?code= for exchangeCodeForSession. Fauxth ran it as an implicit flow."""
    import base64
    import secrets

    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    session = requests.post(f"{fauxth.url}/auth/v1/token", params={"grant_type": "password"}, headers={"apikey": ANON_KEY},
                            json={"email": "alice@example.com", "password": "password123"}).json()
    changed = requests.put(f"{fauxth.url}/auth/v1/user", params={"redirect_to": "myapp://changed"},
                           headers={"apikey": ANON_KEY, "Authorization": f"Bearer {session['access_token']}"},
                           json={"email": "alice.pkce@example.com", "code_challenge": challenge, "code_challenge_method": "s256"})
    assert changed.status_code == 200, changed.text
    to_new = next(l for l in fauxth.wait_message("alice.pkce@example.com", purpose="email_change")["links"] if "/verify?" in l)
    to_old = next(l for l in fauxth.wait_message("alice@example.com", purpose="email_change")["links"] if "/verify?" in l)
    assert "token=pkce_" in to_new and "token=pkce_" in to_old
    first = urllib.parse.urlsplit(requests.get(to_new, allow_redirects=False).headers["Location"])
    assert urllib.parse.parse_qs(first.query)["message"][0].startswith("Confirmation link accepted")
    last = urllib.parse.urlsplit(requests.get(to_old, allow_redirects=False).headers["Location"])
    code = urllib.parse.parse_qs(last.query)["code"][0]
    exchanged = client(fauxth).auth.exchange_code_for_session({"auth_code": code, "code_verifier": verifier}).session
    assert exchanged.user.email == "alice.pkce@example.com"


def test_a_pkce_clients_resent_confirmation_is_a_pkce_flow(fauxth):
    """auth-js's resend({type: 'signup'}) with flowType 'pkce' sends a new code challenge (GoTrueClient.resend); GoTrue's
    Resend makes a flow state for it, so the resent link redirects with ?code= for exchangeCodeForSession. Fauxth
    ignored the challenge, and the link put a session in the fragment, which a PKCE client does not read."""
    import base64
    import secrets

    def pkce():
        verifier = secrets.token_urlsafe(48)
        return verifier, base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    fauxth.control("POST", "/clock/freeze")
    _, first = pkce()
    signed_up = requests.post(f"{fauxth.url}/auth/v1/signup", params={"redirect_to": "myapp://confirmed"}, headers={"apikey": ANON_KEY},
                              json={"email": "resent.pkce@example.com", "password": "secret123", "code_challenge": first,
                                    "code_challenge_method": "s256"})
    assert signed_up.status_code == 200, signed_up.text
    fauxth.control("POST", "/clock/advance", json={"seconds": 61})
    verifier, challenge = pkce()
    resent = requests.post(f"{fauxth.url}/auth/v1/resend", params={"redirect_to": "myapp://confirmed"}, headers={"apikey": ANON_KEY},
                           json={"email": "resent.pkce@example.com", "type": "signup", "gotrue_meta_security": {"captcha_token": None},
                                 "code_challenge": challenge, "code_challenge_method": "s256"})
    assert resent.status_code == 200 and resent.json() == {}, resent.text
    newest = fauxth.control("GET", "/messages", params={"to": "resent.pkce@example.com"}).json()["messages"][0]
    link = next(l for l in newest["links"] if "/verify?" in l)
    assert "token=pkce_" in link
    location = requests.get(link, allow_redirects=False).headers["Location"]
    assert location.startswith("myapp://confirmed?code=")
    code = urllib.parse.parse_qs(urllib.parse.urlsplit(location).query)["code"][0]
    session = client(fauxth).auth.exchange_code_for_session({"auth_code": code, "code_verifier": verifier}).session
    assert session.user.email == "resent.pkce@example.com" and session.user.email_confirmed_at is not None


def test_a_switched_off_provider_is_refused_in_each_endpoints_words(supabase_project):
    """GoTrue words the refusal per endpoint: /otp's email path 422 "Email logins are disabled", its phone path 400
    "Unsupported phone provider", /recover and /resend 400 "Email logins are disabled"; /otp with create_user false
    refuses an unknown address first. Fauxth answered sign-up's "Email signups are disabled" everywhere."""
    instance = supabase_project({"GOTRUE_EXTERNAL_EMAIL_ENABLED": "false"},
                                [{"email": "off@example.com", "password": "secret123", "email_verified": True}])

    def post(path, body):
        answer = requests.post(f"{instance.url}/auth/v1/{path}", json=body,
                               headers={"apikey": ANON_KEY, "X-Supabase-Api-Version": "2024-01-01"})
        return answer.status_code, answer.json()["code"], answer.json()["message"]
    assert post("otp", {"email": "off@example.com"}) == (422, "email_provider_disabled", "Email logins are disabled")
    assert post("otp", {"email": "new@example.com", "create_user": False}) == (422, "otp_disabled", "Signups not allowed for otp")
    assert post("otp", {"phone": "+15550001234"}) == (400, "phone_provider_disabled", "Unsupported phone provider")
    assert post("otp", {}) == (400, "validation_failed", "One of email or phone must be set")
    assert post("otp", {"email": "off@example.com", "phone": "+15550001234"})[2] == "Only an email address or phone number should be provided"
    assert post("recover", {"email": "off@example.com"}) == (400, "email_provider_disabled", "Email logins are disabled")
    assert post("resend", {"type": "signup", "email": "off@example.com"}) == (400, "email_provider_disabled", "Email logins are disabled")
    assert post("resend", {"type": "email_change"}) == (400, "validation_failed", "Missing email address or phone number")


def test_update_user_checks_everything_before_it_writes(supabase_project):
    """GoTrue's UserUpdate refuses another user's address before any write, and with
    GOTRUE_SECURITY_UPDATE_PASSWORD_REQUIRE_CURRENT_PASSWORD needs auth-js's current_password. Fauxth changed the
    password (and ended the other sessions) before refusing the address."""
    instance = supabase_project({"GOTRUE_SECURITY_UPDATE_PASSWORD_REQUIRE_CURRENT_PASSWORD": "true"},
                                [{"email": "mine@example.com", "password": "secret123", "email_verified": True},
                                 {"email": "theirs@example.com", "password": "secret123", "email_verified": True}])
    auth = create_client(instance.url, ANON_KEY).auth
    session = auth.sign_in_with_password({"email": "mine@example.com", "password": "secret123"}).session
    headers = {"apikey": ANON_KEY, "Authorization": f"Bearer {session.access_token}", "X-Supabase-Api-Version": "2024-01-01"}

    def put(body):
        return requests.put(f"{instance.url}/auth/v1/user", json=body, headers=headers)
    taken = put({"email": "theirs@example.com", "password": "another123", "current_password": "secret123"})
    assert (taken.status_code, taken.json()["code"]) == (422, "email_exists")
    assert auth.sign_in_with_password({"email": "mine@example.com", "password": "secret123"}).session is not None
    assert put({"password": "another123"}).json()["code"] == "current_password_required"
    assert put({"password": "another123", "current_password": "nope-nope"}).json()["code"] == "current_password_mismatch"
    assert put({"password": "another123", "current_password": "secret123"}).status_code == 200
