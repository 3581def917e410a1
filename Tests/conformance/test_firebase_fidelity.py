"""Where Fauxth's Firebase dialect must answer as the Firebase Auth Emulator (and the SDKs that talk to it) expect:
credentials the JS SDK builds from an access token, a password change in the second of the sign-in, the emulator's
(absent) SMS send interval and its accounts-clearing endpoint, and the banner's API keys."""
import json
import queue
import subprocess
import threading
import urllib.parse

import requests
from firebase_admin import auth

from conftest import BINARY, FIREBASE_PROJECT, firebase_error, jwt_claims


def idp_credential(firebase, **post_body):
    """accounts:signInWithIdp as the JS SDK sends an OAuthCredential: requestUri http://localhost and a postBody built
    with encodeURIComponent, id_token, access_token and oauth_token_secret first, then providerId."""
    order = ["id_token", "access_token", "oauth_token_secret", "providerId"]
    body = "&".join(f"{k}={urllib.parse.quote(post_body[k], safe='')}" for k in order if k in post_body)
    return firebase.call("accounts:signInWithIdp", {"requestUri": "http://localhost", "postBody": body, "returnSecureToken": True})


# --- signInWithIdp with an access token (GithubAuthProvider.credential(token), FacebookAuthProvider.credential(token)) --


def test_an_access_token_carrying_claims_signs_in_as_the_emulator_takes_it(firebase, firebase_app):
    token = json.dumps({"sub": "octo-1", "email": "octo@example.com", "email_verified": True, "name": "Octo"})
    response = idp_credential(firebase, access_token=token, providerId="github.com")
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["isNewUser"] is True and body["providerId"] == "github.com" and body["federatedId"] == "octo-1"
    # GithubAuthProvider.credentialFromResult reads the access token back from here.
    assert body["oauthAccessToken"] == token and "oauthIdToken" not in body
    assert jwt_claims(body["idToken"])["firebase"]["sign_in_provider"] == "github.com"
    user = auth.get_user(body["localId"], app=firebase_app)
    assert [(p.provider_id, p.uid) for p in user.provider_data] == [("github.com", "octo-1")]
    again = idp_credential(firebase, access_token=token, providerId="github.com").json()
    assert again["localId"] == body["localId"] and again["isNewUser"] is False


def test_an_opaque_access_token_is_refused_with_the_emulators_message(firebase):
    facebook = idp_credential(firebase, access_token="EAAopaque", providerId="facebook.com")
    assert firebase_error(facebook) == "The Auth Emulator does not support facebook.com sign-in with credentials."
    google = idp_credential(firebase, access_token="ya29.opaque", providerId="google.com")
    assert firebase_error(google) == ("The Auth Emulator only support sign-in with google.com using id_token, not access_token. "
                                      "Please update your code to use id_token.")
    no_sub = idp_credential(firebase, access_token='{"email":"x@example.com"}', providerId="github.com")
    assert firebase_error(no_sub).startswith("INVALID_IDP_RESPONSE : Invalid Idp Response: id_token missing required fields.")


# --- updatePassword in the second of the sign-in --------------------------------------------------------------------


def test_update_password_in_the_sign_ins_second_keeps_the_js_sdk_signed_in(firebase):
    firebase.freeze()
    older = firebase.sign_up("mover@example.com")
    firebase.advance(2)
    held = firebase.sign_in("mover@example.com", "secret123")
    response = firebase.ok("accounts:update", {"idToken": held["idToken"], "password": "changed-pw", "returnSecureToken": True})
    # The JS SDK's _updateTokensIfNecessary: new tokens only when the ID token differs from the one it holds.
    if response["idToken"] != held["idToken"]:
        held = response
    refreshed = firebase.refresh(held["refreshToken"])
    assert refreshed.status_code == 200, refreshed.text
    assert firebase.lookup(refreshed.json()["id_token"])["email"] == "mover@example.com"
    # The session from the earlier second ends, as Firebase ends it.
    assert firebase_error(firebase.refresh(older["refreshToken"])) == "TOKEN_EXPIRED"
    assert firebase_error(firebase.call("accounts:lookup", {"idToken": older["idToken"]})) == "TOKEN_EXPIRED"


# --- the SMS send interval, and what clearing accounts forgets -----------------------------------------------------


def send_code(firebase, phone, tenant=None):
    body = {"phoneNumber": phone, "recaptchaToken": "x"}
    if tenant:
        body["tenantId"] = tenant
    return firebase.call("accounts:sendVerificationCode", body)


def wrong_password(firebase, email, tenant=None):
    body = {"email": email, "password": "not-it", "returnSecureToken": True}
    if tenant:
        body["tenantId"] = tenant
    assert firebase.call("accounts:signInWithPassword", body).status_code == 400


def lockouts(firebase, tenant):
    return firebase.fauxth.control("GET", f"/tenants/{tenant}/lockouts").json()["lockouts"]


def test_a_number_may_be_sent_codes_back_to_back_as_with_the_emulator(firebase):
    for _ in range(3):
        assert send_code(firebase, "+15555550171").status_code == 200


def test_clearing_the_projects_accounts_forgets_its_send_windows_and_lockouts(firebase):
    lockout = {"lockout": {"max_attempts": 1, "durations": [3600]}}
    tenant = f"{FIREBASE_PROJECT}:acme"
    # A request naming an unknown tenant creates it (everything on), as the emulator does.
    assert firebase.call("accounts:signUp", {"tenantId": "acme", "email": "tess@example.com", "password": "secret123"}).status_code == 200
    for core_tenant, policies in ((FIREBASE_PROJECT, {**lockout, "rate_limits": {"resend_cooldown": 30}}), (tenant, lockout)):
        assert firebase.fauxth.control("PUT", f"/tenants/{core_tenant}/policies", json=policies).status_code == 200
    assert send_code(firebase, "+15555550172").status_code == 200
    assert firebase_error(send_code(firebase, "+15555550172")) == "TOO_MANY_ATTEMPTS_TRY_LATER"
    wrong_password(firebase, "alice@example.com")
    wrong_password(firebase, "tess@example.com", tenant="acme")
    assert len(lockouts(firebase, FIREBASE_PROJECT)) == 1 and len(lockouts(firebase, tenant)) == 1

    assert firebase.emulator("DELETE", "/accounts").status_code == 200
    assert send_code(firebase, "+15555550172").status_code == 200
    assert lockouts(firebase, FIREBASE_PROJECT) == []
    # The emulator's project-level clear leaves the project's tenants (each has its own store, and its own clear).
    assert len(lockouts(firebase, tenant)) == 1
    assert firebase.emulator("DELETE", "/tenants/acme/accounts").status_code == 200
    assert lockouts(firebase, tenant) == []


def test_a_tenant_reset_forgets_that_tenants_lockouts_only(firebase):
    lockout = {"lockout": {"max_attempts": 1, "durations": [3600]}}
    assert firebase.fauxth.control("PUT", f"/tenants/{FIREBASE_PROJECT}/policies", json=lockout).status_code == 200
    assert firebase.fauxth.control("PUT", "/tenants/default/policies", json=lockout).status_code == 200
    wrong_password(firebase, "alice@example.com")
    supabase = firebase.fauxth.url + "/auth/v1/token?grant_type=password"
    import requests
    assert requests.post(supabase, json={"email": "alice@example.com", "password": "not-it"}, timeout=30).status_code == 400
    assert len(lockouts(firebase, FIREBASE_PROJECT)) == 1 and len(lockouts(firebase, "default")) == 1
    assert firebase.fauxth.control("POST", "/reset", params={"tenant": FIREBASE_PROJECT}).status_code == 200
    assert firebase.fauxth.control("PUT", f"/tenants/{FIREBASE_PROJECT}/policies", json=lockout).status_code == 200
    assert lockouts(firebase, FIREBASE_PROJECT) == []
    assert len(lockouts(firebase, "default")) == 1


# --- the banner -----------------------------------------------------------------------------------------------------


def banner(*args):
    """The lines fauxth prints before its ready line."""
    process = subprocess.Popen([BINARY, "serve", "--port", "0", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    lines = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line.rstrip("\n")) for line in process.stdout], daemon=True).start()
    printed = []
    try:
        while not printed or not printed[-1].startswith("ready "):
            printed.append(lines.get(timeout=30))
    finally:
        process.terminate()
        process.wait(timeout=15)
    return printed


def project_lines(printed, project):
    """The banner lines under `firebase tenant "<project>":`."""
    start = printed.index(f'  firebase tenant "{project}":')
    block = []
    for line in printed[start + 1:]:
        if not line.startswith("    "):
            break
        block.append(line.strip())
    return block


def test_the_banner_prints_only_keys_that_reach_their_project(tmp_path):
    seed = tmp_path / "projects.json"
    seed.write_text(json.dumps({"tenants": [{"id": "keyless", "dialect": "firebase"},
                                            {"id": "shop", "dialect": "firebase", "api_keys": ["shop-key"]}]}))
    printed = banner("--seed", str(seed))
    assert "FIREBASE_API_KEY=fake-api-key" in project_lines(printed, FIREBASE_PROJECT)
    assert "FIREBASE_API_KEY=shop-key" in project_lines(printed, "shop")
    keyless = project_lines(printed, "keyless")
    # fake-api-key is demo-fauxth's: the key-less project gets a line saying how to reach it instead.
    assert not any(line.startswith("FIREBASE_API_KEY=") for line in keyless)
    assert any("--firebase-project keyless" in line for line in keyless)

    as_default = project_lines(banner("--seed", str(seed), "--firebase-project", "keyless"), "keyless")
    [key_line] = [line for line in as_default if line.startswith("FIREBASE_API_KEY=")]
    assert key_line.split("=", 1)[1] not in ("fake-api-key", "shop-key")


# --- found with the Firebase JS SDK: checkActionCode, a profile cleared with null, the v2 endpoints it calls -----------


def oob_code(link):
    return urllib.parse.parse_qs(urllib.parse.urlsplit(link).query)["oobCode"][0]


def test_check_action_code_names_both_addresses_of_an_email_change(firebase):
    """checkActionCode (accounts:resetPassword with the oobCode alone) asserts `newEmail` for VERIFY_AND_CHANGE_EMAIL and
    takes `email` as the previous address; for RECOVER_EMAIL, `newEmail` is the address the account has now."""
    user = firebase.sign_up("before@example.com")
    firebase.ok("accounts:sendOobCode", {"requestType": "VERIFY_AND_CHANGE_EMAIL", "idToken": user["idToken"],
                                         "newEmail": "after@example.com"})
    _, link = firebase.email("after@example.com", "email_change")
    checked = firebase.ok("accounts:resetPassword", {"oobCode": oob_code(link)})
    assert (checked["requestType"], checked["email"], checked["newEmail"]) == (
        "VERIFY_AND_CHANGE_EMAIL", "before@example.com", "after@example.com")
    firebase.ok("accounts:update", {"oobCode": oob_code(link)})
    _, recover = firebase.email("before@example.com", "recover_email")
    undo = firebase.ok("accounts:resetPassword", {"oobCode": oob_code(recover)})
    assert (undo["requestType"], undo["email"], undo["newEmail"]) == ("RECOVER_EMAIL", "before@example.com", "after@example.com")
    # A reset's code names its address alone.
    firebase.ok("accounts:sendOobCode", {"requestType": "PASSWORD_RESET", "email": "after@example.com"})
    _, reset = firebase.email("after@example.com", "reset_password")
    assert "newEmail" not in firebase.ok("accounts:resetPassword", {"oobCode": oob_code(reset)})


def test_update_profile_with_null_clears_the_name_and_photo(firebase):
    """updateProfile(user, {displayName: null, photoURL: null}) sends the nulls; Identity Toolkit clears both."""
    user = firebase.sign_up("named@example.com")
    firebase.ok("accounts:update", {"idToken": user["idToken"], "displayName": "Ann", "photoUrl": "https://example.com/a.png"})
    kept = firebase.ok("accounts:update", {"idToken": user["idToken"], "displayName": "Ann B", "returnSecureToken": True})
    assert (kept["displayName"], kept["photoUrl"]) == ("Ann B", "https://example.com/a.png")
    cleared = firebase.ok("accounts:update", {"idToken": user["idToken"], "displayName": None, "photoUrl": None, "returnSecureToken": True})
    assert "displayName" not in cleared and "photoUrl" not in cleared
    looked_up = firebase.lookup(user["idToken"])
    assert "displayName" not in looked_up and "photoUrl" not in looked_up


def test_the_v2_endpoints_the_js_sdk_calls_answer(firebase):
    """validatePassword's policy, the reCAPTCHA Enterprise configuration asked before email and phone flows, and
    revokeAccessToken: each was a 404 (`auth/not-found` in the SDK)."""
    policy = requests.get(f"{firebase.url}/identitytoolkit.googleapis.com/v2/passwordPolicy", params={"key": firebase.api_key}, timeout=30)
    assert policy.status_code == 200, policy.text
    assert policy.json() == {"customStrengthOptions": {"minPasswordLength": 6}, "enforcementState": "OFF",
                             "forceUpgradeOnSignin": False, "schemaVersion": 1}
    recaptcha = requests.get(f"{firebase.url}/identitytoolkit.googleapis.com/v2/recaptchaConfig",
                             params={"key": firebase.api_key, "clientType": "CLIENT_TYPE_WEB", "version": "RECAPTCHA_ENTERPRISE"}, timeout=30)
    assert recaptcha.status_code == 200, recaptcha.text
    assert recaptcha.json()["recaptchaKey"].startswith(f"projects/{firebase.project}/keys/")
    assert {s["enforcementState"] for s in recaptcha.json()["recaptchaEnforcementState"]} == {"OFF"}
    user = firebase.sign_up("apple@example.com")
    revoke = {"providerId": "apple.com", "tokenType": "ACCESS_TOKEN", "token": "apple-access-token"}
    assert firebase.ok("accounts:revokeToken", {**revoke, "idToken": user["idToken"]}, version="v2") == {}
    assert firebase_error(firebase.call("accounts:revokeToken", {**revoke, "idToken": "not-a-token"}, version="v2")) == "INVALID_ID_TOKEN"
    assert firebase_error(firebase.call("accounts:revokeToken", {**revoke, "token": "", "idToken": user["idToken"]}, version="v2")).startswith(
        "INVALID_ARGUMENT")


def test_a_verified_provider_vouches_for_the_address_and_brings_its_profile(firebase, firebase_app):
    """The emulator's handleLinkIdp verifies the account's own address when a linked provider vouches for it, and
    handleIdpSigninEmailRequired takes a verified provider's profile over a verified account, "discarding any old data".
    createAuthUri echoes the caller's sessionId."""
    session = firebase.sign_up("vouched@example.com")
    token = json.dumps({"sub": "vouch-1", "email": "vouched@example.com", "email_verified": True, "name": "Vouched"})
    body = "access_token=" + urllib.parse.quote(token, safe="") + "&providerId=github.com"
    linked = firebase.call("accounts:signInWithIdp", {"requestUri": "http://localhost", "postBody": body, "idToken": session["idToken"],
                                                      "returnSecureToken": True})
    assert linked.status_code == 200, linked.text
    assert auth.get_user(session["localId"], app=firebase_app).email_verified is True

    auth.update_user(session["localId"], display_name="Old Name", app=firebase_app)
    google = json.dumps({"sub": "vouch-g", "email": "vouched@example.com", "email_verified": True, "name": "New Name"})
    assert idp_credential(firebase, access_token=google, providerId="google.com").status_code == 200
    assert auth.get_user(session["localId"], app=firebase_app).display_name == "New Name"

    uri = firebase.ok("accounts:createAuthUri", {"identifier": "vouched@example.com", "continueUri": "http://localhost", "sessionId": "mine-123"})
    assert uri["sessionId"] == "mine-123"


def test_create_auth_uri_finds_an_address_a_linked_provider_has(firebase):
    """The emulator's createAuthUri looks users up by email or provider email (getUsersByEmailOrProviderEmail), so
    fetchSignInMethodsForEmail finds the account by its Facebook address too."""
    session = firebase.sign_up("primary@example.com")
    token = json.dumps({"sub": "fb-linked-1", "email": "linked.fb@example.com", "email_verified": False})
    body = "access_token=" + urllib.parse.quote(token, safe="") + "&providerId=facebook.com"
    assert firebase.call("accounts:signInWithIdp", {"requestUri": "http://localhost", "postBody": body, "idToken": session["idToken"],
                                                    "returnSecureToken": True}).status_code == 200
    uri = firebase.ok("accounts:createAuthUri", {"identifier": "linked.fb@example.com", "continueUri": "http://localhost"})
    assert uri["registered"] is True and uri["signinMethods"] == ["password", "facebook.com"]


# --- out-of-band codes as the emulator's sendOobCode and resetPassword treat them ----------------------------------


def test_an_admin_verify_and_change_email_link_names_the_account_by_its_address(firebase):
    """The Node Admin SDK's generateVerifyAndChangeEmailLink sends email, newEmail and returnOobLink, no idToken or
    localId; Fauxth answered MISSING_LOCAL_ID."""
    firebase.sign_up("changer@example.com")
    body = {"requestType": "VERIFY_AND_CHANGE_EMAIL", "email": "changer@example.com", "newEmail": "changed@example.com", "returnOobLink": True}
    response = firebase.admin("POST", "/accounts:sendOobCode", json=body)
    assert response.status_code == 200, response.text
    code = response.json()["oobCode"]
    assert "mode=verifyAndChangeEmail" in response.json()["oobLink"]
    applied = firebase.call("accounts:update", {"oobCode": code})
    assert applied.status_code == 200 and applied.json()["email"] == "changed@example.com"


def test_a_verification_code_sent_before_the_address_changed_verifies_nothing(firebase):
    session = firebase.sign_up("mover@example.com")
    firebase.ok("accounts:sendOobCode", {"requestType": "VERIFY_EMAIL", "idToken": session["idToken"]})
    [code] = [c["oobCode"] for c in firebase.emulator("GET", "/oobCodes").json()["oobCodes"] if c["email"] == "mover@example.com"]
    moved = firebase.admin("POST", "/accounts:update", json={"localId": session["localId"], "email": "moved@example.com"})
    assert moved.status_code == 200, moved.text
    assert firebase_error(firebase.call("accounts:update", {"oobCode": code})) == "INVALID_OOB_CODE"
