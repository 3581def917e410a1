"""The Firebase JS SDK's REST calls (Identity Toolkit v1, securetoken, the emulator's action page) against the
default Firebase project, as they would go to the Firebase Auth Emulator."""
import json
import urllib.parse

import requests

from conftest import FIREBASE_PROJECT, Forms, firebase_error, jwt_claims, jwt_part, query

ALICE = "FAUXTHALICE00000000000000001"
BOB = "FAUXTHBOB0000000000000000001"


def test_sign_up_returns_an_unsigned_id_token_and_a_refresh_token(firebase):
    response = firebase.sign_up("newcomer@example.com")
    assert response["kind"] == "identitytoolkit#SignupNewUserResponse"
    assert response["email"] == "newcomer@example.com"
    assert response["expiresIn"] == "3600"
    assert response["refreshToken"]
    token = response["idToken"]
    assert jwt_part(token, 0)["alg"] == "none"
    assert token.endswith(".")
    claims = jwt_claims(token)
    assert claims["iss"] == f"https://securetoken.google.com/{FIREBASE_PROJECT}"
    assert claims["aud"] == FIREBASE_PROJECT
    assert claims["sub"] == claims["user_id"] == response["localId"]
    assert claims["email"] == "newcomer@example.com" and claims["email_verified"] is False
    assert claims["exp"] - claims["iat"] == 3600
    assert claims["firebase"]["sign_in_provider"] == "password"
    assert claims["firebase"]["identities"] == {"email": ["newcomer@example.com"]}
    user = firebase.lookup(token)
    assert user["localId"] == response["localId"]
    assert [p["providerId"] for p in user["providerUserInfo"]] == ["password"]


def test_sign_up_errors_are_firebase_shaped(firebase):
    taken = firebase.call("accounts:signUp", {"email": "alice@example.com", "password": "secret123", "returnSecureToken": True})
    assert taken.status_code == 400
    assert taken.json() == {"error": {"code": 400, "message": "EMAIL_EXISTS",
                                      "errors": [{"message": "EMAIL_EXISTS", "reason": "invalid", "domain": "global"}]}}
    weak = firebase.call("accounts:signUp", {"email": "weak@example.com", "password": "123", "returnSecureToken": True})
    assert firebase_error(weak).startswith("WEAK_PASSWORD")
    bad = firebase.call("accounts:signUp", {"email": "not-an-email", "password": "secret123", "returnSecureToken": True})
    assert firebase_error(bad) == "INVALID_EMAIL"


def test_a_missing_api_key_is_refused_and_an_unknown_one_maps_to_the_default_project(firebase):
    url = f"{firebase.url}/identitytoolkit.googleapis.com/v1/accounts:signInWithPassword"
    body = {"email": "alice@example.com", "password": "password123", "returnSecureToken": True}
    missing = requests.post(url, json=body)
    assert missing.status_code == 403
    assert missing.json()["error"]["status"] == "PERMISSION_DENIED"
    assert missing.json()["error"]["message"] == "The request is missing a valid API key."
    unknown = firebase.call("accounts:signInWithPassword", body, key="AIzaSyUnlistedKeyForFauxth")
    assert unknown.status_code == 200
    assert unknown.json()["localId"] == ALICE
    assert jwt_claims(unknown.json()["idToken"])["aud"] == FIREBASE_PROJECT


def test_a_seeded_user_signs_in_with_password(firebase):
    response = firebase.sign_in("alice@example.com")
    assert response["kind"] == "identitytoolkit#VerifyPasswordResponse"
    assert response["registered"] is True
    assert response["localId"] == ALICE
    assert response["displayName"] == "Alice Verified"
    claims = jwt_claims(response["idToken"])
    assert claims["email_verified"] is True
    assert claims["name"] == "Alice Verified"
    user = firebase.lookup(response["idToken"])
    assert user["email"] == "alice@example.com" and user["emailVerified"] is True
    assert "lastLoginAt" in user and "createdAt" in user


def test_email_enumeration_protection_changes_which_errors_tell_accounts_apart(firebase):
    def sign_in_error(email, password):
        return firebase_error(firebase.call("accounts:signInWithPassword", {"email": email, "password": password, "returnSecureToken": True}))

    def reset(email):
        return firebase.call("accounts:sendOobCode", {"requestType": "PASSWORD_RESET", "email": email})

    assert sign_in_error("alice@example.com", "nope-nope") == "INVALID_PASSWORD"
    assert sign_in_error("enumerated.ghost@example.com", "password123") == "EMAIL_NOT_FOUND"
    assert firebase_error(reset("enumerated.ghost@example.com")) == "EMAIL_NOT_FOUND"
    assert firebase.ok("accounts:createAuthUri", {"identifier": "alice@example.com", "continueUri": "http://localhost"})["registered"] is True
    # The emulator's createAuthUri needs the continue URI (the JS SDK always sends it) and an absolute one.
    assert firebase_error(firebase.call("accounts:createAuthUri", {"identifier": "alice@example.com"})) == "MISSING_CONTINUE_URI"
    assert firebase_error(firebase.call("accounts:createAuthUri", {"identifier": "alice@example.com", "continueUri": "/relative"})) == "INVALID_CONTINUE_URI"

    patched = firebase.emulator("PATCH", "/config", json={"emailPrivacyConfig": {"enableImprovedEmailPrivacy": True}})
    assert patched.status_code == 200
    config = firebase.emulator("GET", "/config").json()
    assert config["emailPrivacyConfig"]["enableImprovedEmailPrivacy"] is True
    assert config["signIn"]["allowDuplicateEmails"] is False  # the PATCH only touched what it named
    assert sign_in_error("alice@example.com", "nope-nope") == "INVALID_LOGIN_CREDENTIALS"
    assert sign_in_error("enumerated.ghost@example.com", "password123") == "INVALID_LOGIN_CREDENTIALS"
    quiet = reset("enumerated.ghost@example.com")
    assert quiet.status_code == 200 and quiet.json()["email"] == "enumerated.ghost@example.com"
    assert firebase.fauxth.control("GET", "/messages", params={"to": "enumerated.ghost@example.com"}).json()["messages"] == []
    methods = firebase.ok("accounts:createAuthUri", {"identifier": "alice@example.com", "continueUri": "http://localhost"})
    assert "signinMethods" not in methods and "registered" not in methods


def test_enumeration_protection_refuses_update_email_but_not_verify_before_update_email(firebase):
    """With email enumeration protection on, the SDK's `updateEmail` is refused in production's words
    (firebase-js-sdk #8009); `verifyBeforeUpdateEmail`, which proves the new address first, still works."""
    assert firebase.emulator("PATCH", "/config", json={"emailPrivacyConfig": {"enableImprovedEmailPrivacy": True}}).status_code == 200
    user = firebase.sign_up("private.changer@example.com")
    refused = firebase.call("accounts:update", {"idToken": user["idToken"], "email": "private.new@example.com", "returnSecureToken": True})
    assert firebase_error(refused) == "OPERATION_NOT_ALLOWED : Please verify the new email before changing email."
    assert firebase.lookup(user["idToken"])["email"] == "private.changer@example.com"
    sent = firebase.ok("accounts:sendOobCode", {"requestType": "VERIFY_AND_CHANGE_EMAIL", "idToken": user["idToken"],
                                                "newEmail": "private.new@example.com"})
    assert sent["email"] == "private.changer@example.com"


def test_refresh_exchanges_a_refresh_token_for_snake_case_tokens_keeping_auth_time(firebase):
    session = firebase.sign_up("refresher@example.com")
    first = jwt_claims(session["idToken"])
    firebase.advance(120)
    response = firebase.refresh(session["refreshToken"])
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["token_type"] == "Bearer"
    assert body["expires_in"] == "3600"
    assert body["access_token"] == body["id_token"]
    assert body["user_id"] == session["localId"]
    assert body["refresh_token"]
    assert "project_id" in body
    refreshed = jwt_claims(body["id_token"])
    assert refreshed["sub"] == session["localId"]
    assert refreshed["iat"] >= first["iat"] + 120 and refreshed["exp"] == refreshed["iat"] + 3600
    assert refreshed["auth_time"] == first["auth_time"]  # the sign-in time, not the refresh time
    assert firebase.lookup(body["id_token"])["email"] == "refresher@example.com"


def test_id_tokens_expire_after_an_hour_but_the_refresh_token_still_works(firebase):
    session = firebase.sign_in("alice@example.com")
    firebase.advance(3601)
    expired = firebase.call("accounts:lookup", {"idToken": session["idToken"]})
    # Identity Toolkit refuses an expired ID token; which of its two token errors is an assumption (see report).
    assert firebase_error(expired) in ("INVALID_ID_TOKEN", "TOKEN_EXPIRED")
    fresh = firebase.refresh(session["refreshToken"]).json()["id_token"]
    assert firebase.lookup(fresh)["localId"] == ALICE


def test_changing_the_password_revokes_the_tokens_issued_before(firebase):
    session = firebase.sign_up("changer@example.com")
    firebase.advance(2)  # validSince is second-granular
    changed = firebase.ok("accounts:update", {"idToken": session["idToken"], "password": "brand-new-pass", "returnSecureToken": True})
    assert changed["idToken"] and changed["refreshToken"]
    assert firebase_error(firebase.call("accounts:lookup", {"idToken": session["idToken"]})) == "TOKEN_EXPIRED"
    assert firebase_error(firebase.refresh(session["refreshToken"])) == "TOKEN_EXPIRED"
    assert firebase.lookup(changed["idToken"])["email"] == "changer@example.com"
    assert firebase.refresh(changed["refreshToken"]).status_code == 200
    assert firebase.sign_in("changer@example.com", "brand-new-pass")["localId"] == session["localId"]


def test_an_owners_password_or_email_change_revokes_the_users_tokens_too(firebase):
    """firebase-admin's update_user(password=…) is projects/{p}/accounts:update; the emulator sets validSince for a
    password or email change whoever makes it, as production's "major account change" rule says. Fauxth revoked only
    on the user's own change."""
    session = firebase.sign_up("owner-changed@example.com")
    firebase.advance(2)
    changed = firebase.admin("POST", "/accounts:update", json={"localId": session["localId"], "password": "set-by-owner-1"})
    assert changed.status_code == 200 and "idToken" not in changed.json()
    assert firebase_error(firebase.refresh(session["refreshToken"])) == "TOKEN_EXPIRED"
    assert firebase_error(firebase.call("accounts:lookup", {"idToken": session["idToken"]})) == "TOKEN_EXPIRED"


def test_a_users_own_update_keeps_to_the_users_fields(firebase):
    """The emulator's setAccountInfo for an idToken caller: disableUser is OPERATION_NOT_ALLOWED, emailVerified is
    not theirs to set (ignored), and validSince revokes as of now, answering fresh tokens."""
    session = firebase.sign_up("own-update@example.com")
    refused = firebase.call("accounts:update", {"idToken": session["idToken"], "disableUser": True})
    assert firebase_error(refused) == "OPERATION_NOT_ALLOWED"
    kept = firebase.ok("accounts:update", {"idToken": session["idToken"], "emailVerified": True, "displayName": "Own"})
    assert kept["emailVerified"] is False and kept["displayName"] == "Own"
    firebase.advance(2)
    revoked = firebase.ok("accounts:update", {"idToken": session["idToken"], "validSince": "1", "returnSecureToken": True})
    assert firebase.refresh(revoked["refreshToken"]).status_code == 200
    assert firebase_error(firebase.refresh(session["refreshToken"])) == "TOKEN_EXPIRED"


def test_password_sign_in_checks_the_address_then_the_account(firebase):
    """The emulator's signInWithPassword: MISSING_EMAIL, INVALID_EMAIL (auth/invalid-email, where Fauxth said
    EMAIL_NOT_FOUND), then a disabled account is USER_DISABLED whatever the password."""
    assert firebase_error(firebase.call("accounts:signInWithPassword", {"password": "x"})) == "MISSING_EMAIL"
    assert firebase_error(firebase.call("accounts:signInWithPassword", {"email": "nobody", "password": "x"})) == "INVALID_EMAIL"
    session = firebase.sign_up("to-disable@example.com")
    assert firebase.admin("POST", "/accounts:update", json={"localId": session["localId"], "disableUser": True}).status_code == 200
    wrong = firebase.call("accounts:signInWithPassword", {"email": "to-disable@example.com", "password": "not-the-password"})
    assert firebase_error(wrong) == "USER_DISABLED"


def test_verify_email_link_from_the_outbox_verifies_the_address(firebase):
    session = firebase.sign_up("verify.me@example.com")
    sent = firebase.ok("accounts:sendOobCode", {"requestType": "VERIFY_EMAIL", "idToken": session["idToken"]})
    assert sent["email"] == "verify.me@example.com"
    assert "oobCode" not in sent and "oobLink" not in sent  # only admin callers get the link back
    message, link = firebase.email("verify.me@example.com", "verify_email")
    assert link.startswith(f"{firebase.url}/emulator/action?")
    params = query(link)
    assert params["mode"] == "verifyEmail" and params["apiKey"] == "fake-api-key" and params["lang"] == "en"
    listed = firebase.emulator("GET", "/oobCodes").json()["oobCodes"]
    assert {"email": "verify.me@example.com", "requestType": "VERIFY_EMAIL", "oobCode": params["oobCode"], "oobLink": link} in [
        {k: entry.get(k) for k in ("email", "requestType", "oobCode", "oobLink")} for entry in listed]

    page = requests.get(link)
    assert page.status_code == 200
    assert "text/html" in page.headers["Content-Type"]
    assert firebase.lookup(session["idToken"])["emailVerified"] is True


def test_verify_email_with_a_continue_url_redirects_there(firebase):
    session = firebase.sign_up("continue@example.com")
    firebase.ok("accounts:sendOobCode", {"requestType": "VERIFY_EMAIL", "idToken": session["idToken"],
                                         "continueUrl": "http://localhost:3000/verified?from=email"})
    _, link = firebase.email("continue@example.com", "verify_email")
    assert query(link)["continueUrl"] == "http://localhost:3000/verified?from=email"
    response = requests.get(link, allow_redirects=False)
    assert response.status_code == 303
    assert response.headers["Location"] == "http://localhost:3000/verified?from=email"
    assert firebase.lookup(session["idToken"])["emailVerified"] is True


def test_password_reset_through_the_action_page_form(firebase):
    firebase.sign_up("forgetful@example.com", "old-password")
    sent = firebase.ok("accounts:sendOobCode", {"requestType": "PASSWORD_RESET", "email": "forgetful@example.com"})
    assert sent["email"] == "forgetful@example.com"
    _, link = firebase.email("forgetful@example.com", "reset_password")
    assert query(link)["mode"] == "resetPassword"

    page = requests.get(link)
    assert page.status_code == 200 and "text/html" in page.headers["Content-Type"]
    [form] = [f for f in Forms(page.text).forms if "newPassword" in f["fields"]]
    assert form["method"] == "post"
    target = urllib.parse.urljoin(link, form["action"])
    assert urllib.parse.urlsplit(target).path == "/emulator/action"
    submitted = requests.post(target, data={**form["fields"], "newPassword": "fresh-password"})
    assert submitted.ok, submitted.text

    assert firebase.sign_in("forgetful@example.com", "fresh-password")["email"] == "forgetful@example.com"
    old = firebase.call("accounts:signInWithPassword", {"email": "forgetful@example.com", "password": "old-password", "returnSecureToken": True})
    assert firebase_error(old) == "INVALID_PASSWORD"


def test_password_reset_link_accepts_the_new_password_in_the_url(firebase):
    firebase.sign_up("urlreset@example.com", "old-password")
    firebase.ok("accounts:sendOobCode", {"requestType": "PASSWORD_RESET", "email": "urlreset@example.com"})
    _, link = firebase.email("urlreset@example.com", "reset_password")
    response = requests.get(link + "&newPassword=" + urllib.parse.quote("via-the-url"))
    assert response.status_code == 200, response.text
    assert firebase.sign_in("urlreset@example.com", "via-the-url")["email"] == "urlreset@example.com"


def test_reset_password_rest_call_checks_then_consumes_the_code(firebase):
    session = firebase.sign_up("resetter@example.com", "old-password")
    firebase.ok("accounts:sendOobCode", {"requestType": "PASSWORD_RESET", "email": "resetter@example.com"})
    _, link = firebase.email("resetter@example.com", "reset_password")
    code = query(link)["oobCode"]
    firebase.advance(2)  # validSince is second-granular
    checked = firebase.ok("accounts:resetPassword", {"oobCode": code})  # verifyPasswordResetCode: does not use it up
    assert checked["requestType"] == "PASSWORD_RESET" and checked["email"] == "resetter@example.com"
    done = firebase.ok("accounts:resetPassword", {"oobCode": code, "newPassword": "new-password"})
    assert done["email"] == "resetter@example.com"
    again = firebase.call("accounts:resetPassword", {"oobCode": code, "newPassword": "third-password"})
    assert firebase_error(again) == "INVALID_OOB_CODE"
    assert firebase.sign_in("resetter@example.com", "new-password")["localId"] == session["localId"]
    assert firebase_error(firebase.refresh(session["refreshToken"])) == "TOKEN_EXPIRED"


def test_reset_codes_expire_after_an_hour(firebase):
    firebase.sign_up("slowpoke@example.com", "old-password")
    firebase.ok("accounts:sendOobCode", {"requestType": "PASSWORD_RESET", "email": "slowpoke@example.com"})
    code = query(firebase.email("slowpoke@example.com", "reset_password")[1])["oobCode"]
    firebase.advance(3500)
    assert firebase.ok("accounts:resetPassword", {"oobCode": code})["email"] == "slowpoke@example.com"
    firebase.advance(101)
    expired = firebase.call("accounts:resetPassword", {"oobCode": code, "newPassword": "too-late-now"})
    assert firebase_error(expired) == "EXPIRED_OOB_CODE"
    assert firebase.sign_in("slowpoke@example.com", "old-password")["email"] == "slowpoke@example.com"


def test_email_link_sign_in_creates_a_verified_user(firebase):
    firebase.ok("accounts:sendOobCode", {"requestType": "EMAIL_SIGNIN", "email": "linky@example.com",
                                         "continueUrl": "http://localhost:3000/finish", "canHandleCodeInApp": True})
    _, link = firebase.email("linky@example.com", "magic_link")
    params = query(link)
    assert params["mode"] == "signIn" and params["continueUrl"] == "http://localhost:3000/finish"
    signed_in = firebase.ok("accounts:signInWithEmailLink", {"email": "linky@example.com", "oobCode": params["oobCode"]})
    assert signed_in["isNewUser"] is True
    assert signed_in["email"] == "linky@example.com"
    assert firebase.lookup(signed_in["idToken"])["emailVerified"] is True
    reused = firebase.call("accounts:signInWithEmailLink", {"email": "linky@example.com", "oobCode": params["oobCode"]})
    assert firebase_error(reused) == "INVALID_OOB_CODE"


def test_google_id_token_signs_in_a_federated_user(firebase):
    profile = {"sub": "108765432100000000001", "email": "gina@example.com", "email_verified": True, "name": "Gina Google"}
    post_body = urllib.parse.urlencode({"providerId": "google.com", "id_token": json.dumps(profile)})
    body = {"requestUri": "http://localhost", "postBody": post_body, "returnSecureToken": True, "returnIdpCredential": True}
    first = firebase.ok("accounts:signInWithIdp", body)
    assert first["isNewUser"] is True
    assert first["providerId"] == "google.com"
    assert first["federatedId"] == "https://accounts.google.com/108765432100000000001"
    assert first["email"] == "gina@example.com"
    claims = jwt_claims(first["idToken"])
    assert claims["firebase"]["sign_in_provider"] == "google.com"
    assert claims["firebase"]["identities"]["google.com"] == ["108765432100000000001"]
    user = firebase.lookup(first["idToken"])
    assert [(p["providerId"], p["rawId"]) for p in user["providerUserInfo"]] == [("google.com", "108765432100000000001")]
    again = firebase.ok("accounts:signInWithIdp", body)
    assert again.get("isNewUser", False) is False
    assert again["localId"] == first["localId"]


def test_create_auth_uri_lists_the_sign_in_methods_of_an_email(firebase):
    alice = firebase.ok("accounts:createAuthUri", {"identifier": "alice@example.com", "continueUri": "http://localhost"})
    assert alice["registered"] is True
    assert alice["signinMethods"] == ["password"]
    profile = json.dumps({"sub": "77", "email": "gus@example.com", "email_verified": True})
    firebase.ok("accounts:signInWithIdp", {"requestUri": "http://localhost", "returnSecureToken": True,
                                           "postBody": urllib.parse.urlencode({"providerId": "google.com", "id_token": profile})})
    assert firebase.ok("accounts:createAuthUri", {"identifier": "gus@example.com", "continueUri": "http://localhost"})["signinMethods"] == ["google.com"]
    nobody = firebase.ok("accounts:createAuthUri", {"identifier": "no.one@example.com", "continueUri": "http://localhost"})
    assert nobody["registered"] is False
    assert nobody.get("signinMethods", []) == []


def test_deleting_the_account_with_its_id_token(firebase):
    session = firebase.sign_up("leaver@example.com")
    deleted = firebase.ok("accounts:delete", {"idToken": session["idToken"]})
    assert deleted["kind"] == "identitytoolkit#DeleteAccountResponse"
    gone = firebase.call("accounts:signInWithPassword", {"email": "leaver@example.com", "password": "secret123", "returnSecureToken": True})
    assert firebase_error(gone) == "EMAIL_NOT_FOUND"
    assert firebase_error(firebase.refresh(session["refreshToken"])) == "USER_NOT_FOUND"


def test_the_emulator_can_wipe_the_projects_accounts(firebase):
    assert firebase.emulator("DELETE", "/accounts").status_code == 200
    gone = firebase.call("accounts:signInWithPassword", {"email": "alice@example.com", "password": "password123", "returnSecureToken": True})
    assert firebase_error(gone) == "EMAIL_NOT_FOUND"
    assert "users" not in firebase.admin("POST", "/accounts:lookup", json={"localId": [ALICE, BOB]}).json()
    # The Supabase project on the same server keeps its users.
    assert requests.post(f"{firebase.url}/auth/v1/token?grant_type=password",
                         json={"email": "alice@example.com", "password": "password123"}).status_code == 200


def test_numbers_no_integer_holds_are_refused_not_fatal(firebase):
    # A JSON number where a string goes is read as its text; 1e300 was converted to an Int first, which ended the
    # process. validSince is an int64 string: "1e300" was read as a Double, kept, and ended it at the next lookup.
    weird = firebase.call("accounts:signInWithPassword", {"email": 1e300, "password": "x"})
    assert weird.status_code == 400 and firebase_error(weird)
    refused = firebase.admin("POST", "/accounts:update", json={"localId": "FAUXTHALICE00000000000000001", "validSince": "1e300"})
    assert refused.status_code == 400
    assert refused.json()["error"]["message"] == "Invalid value at 'valid_since' (TYPE_INT64), \"1e300\""
    assert firebase.admin("POST", "/accounts:lookup", json={"localId": ["FAUXTHALICE00000000000000001"]}).status_code == 200
    # An import's int64s are mapped before anyone is imported: one bad value refuses the whole request, naming its user.
    batch = firebase.admin("POST", "/accounts:batchCreate", json={"users": [{"localId": "importok"}, {"localId": "importbad", "createdAt": "1e300"}]})
    assert batch.status_code == 400
    assert batch.json()["error"]["message"] == "Invalid value at 'users[1].created_at' (TYPE_INT64), \"1e300\""
    assert "users" not in firebase.admin("POST", "/accounts:lookup", json={"localId": ["importok"]}).json()
