"""Firebase blocking functions (Identity Platform's beforeCreate, beforeSignIn, beforeSendEmail, beforeSendSms):
registered as the Functions emulator registers them with the Auth emulator, called with the `{"data": {"jwt": …}}`
event Identity Platform sends, their answers applied, their refusals and failures turned into Identity Toolkit's
BLOCKING_FUNCTION_ERROR_RESPONSE. The app's functions are a loopback server (hook_server)."""
import json
import urllib.parse

import requests

from conftest import FIREBASE_PROJECT, firebase_error, jwt_claims, jwt_part

OWNER = {"Authorization": "Bearer owner"}


def v2_config(firebase, method="GET", **kwargs):
    return requests.request(method, f"{firebase.url}/identitytoolkit.googleapis.com/v2/projects/{firebase.project}/config",
                            headers=OWNER, timeout=30, **kwargs)


def register(firebase, hook_server, *events, forward=None):
    """What the Functions emulator does once its functions are loaded: a v2 config PATCH with updateMask=blockingFunctions."""
    blocking = {"triggers": {event: {"functionUri": hook_server.at(f"/{event}")} for event in events}}
    if forward:
        blocking["forwardInboundCredentials"] = forward
    response = v2_config(firebase, "PATCH", params={"updateMask": "blockingFunctions"}, json={"blockingFunctions": blocking})
    assert response.status_code == 200, response.text
    return response.json()


def event(call):
    """The event a function receives: the claims of the `data.jwt` it is posted."""
    return jwt_claims(call.json["data"]["jwt"])


def events_of(hook_server, name):
    return [event(c) for c in hook_server.calls_to(f"/{name}")]


def user_record(**fields):
    """A function's answer as firebase-functions' generateResponsePayload shapes it."""
    return {"userRecord": {**fields, "updateMask": ",".join(fields)}}


def answer_by_path(mapping):
    return lambda call: mapping.get(call.path.lstrip("/"), {})


def admin_user_by_email(firebase, email):
    response = firebase.admin("POST", "/accounts:lookup", json={"email": [email]})
    assert response.status_code == 200, response.text
    return (response.json().get("users") or [None])[0]


# --- Registration ----------------------------------------------------------------------------------------------------

def test_the_functions_emulator_registration_is_kept_in_the_v2_config(firebase, hook_server):
    answered = register(firebase, hook_server, "beforeCreate", "beforeSignIn", forward={"idToken": True})
    assert answered["blockingFunctions"]["triggers"]["beforeCreate"]["functionUri"] == hook_server.at("/beforeCreate")
    got = v2_config(firebase).json()
    assert got["blockingFunctions"] == {"triggers": {"beforeCreate": {"functionUri": hook_server.at("/beforeCreate")},
                                                     "beforeSignIn": {"functionUri": hook_server.at("/beforeSignIn")}},
                                        "forwardInboundCredentials": {"idToken": True}}
    # The other config knobs are untouched by a masked update.
    assert got["signIn"] == {"allowDuplicateEmails": False}


def test_the_emulator_config_patch_sets_a_trigger_and_get_shows_it(firebase, hook_server):
    body = {"blockingFunctions": {"triggers": {"beforeSignIn": {"functionUri": hook_server.at("/beforeSignIn")}}}}
    response = firebase.emulator("PATCH", "/config", json=body)
    assert response.status_code == 200, response.text
    assert firebase.emulator("GET", "/config").json()["blockingFunctions"]["triggers"]["beforeSignIn"]["functionUri"] == hook_server.at("/beforeSignIn")
    firebase.sign_in("alice@example.com")
    assert len(hook_server.calls_to("/beforeSignIn")) == 1


def test_a_config_with_an_unknown_event_or_a_relative_uri_is_refused(firebase):
    bad_event = v2_config(firebase, "PATCH", params={"updateMask": "blockingFunctions"},
                          json={"blockingFunctions": {"triggers": {"beforeDelete": {"functionUri": "http://127.0.0.1:1/x"}}}})
    assert firebase_error(bad_event) == "INVALID_BLOCKING_FUNCTION : ((Event type is invalid.))"
    relative = v2_config(firebase, "PATCH", params={"updateMask": "blockingFunctions"},
                         json={"blockingFunctions": {"triggers": {"beforeCreate": {"functionUri": "/beforeCreate"}}}})
    assert firebase_error(relative) == "INVALID_BLOCKING_FUNCTION : ((Expected an absolute URI with valid scheme and host.))"
    assert v2_config(firebase).json()["blockingFunctions"] == {}


# --- Effects ---------------------------------------------------------------------------------------------------------

def test_before_create_on_password_sign_up_sets_the_profile_and_claims_then_before_sign_in_runs(firebase, hook_server):
    register(firebase, hook_server, "beforeCreate", "beforeSignIn")
    hook_server.answer = answer_by_path({
        "beforeCreate": user_record(displayName="Set By Create", photoURL="https://example.com/p.png", customClaims={"role": "member"}),
        "beforeSignIn": user_record(emailVerified=True),
    })
    signed_up = firebase.sign_up("new-blocking@example.com")
    assert signed_up["displayName"] == "Set By Create"
    assert [c.path for c in hook_server.calls] == ["/beforeCreate", "/beforeSignIn"]
    # beforeSignIn sees what beforeCreate set.
    [before_sign_in] = events_of(hook_server, "beforeSignIn")
    assert before_sign_in["user_record"]["display_name"] == "Set By Create"
    assert before_sign_in["user_record"]["custom_claims"] == {"role": "member"}
    claims = jwt_claims(signed_up["idToken"])
    assert claims["name"] == "Set By Create" and claims["picture"] == "https://example.com/p.png"
    assert claims["role"] == "member" and claims["email_verified"] is True
    stored = firebase.lookup(signed_up["idToken"])
    assert stored["displayName"] == "Set By Create" and stored["photoUrl"] == "https://example.com/p.png"
    assert json.loads(stored["customAttributes"]) == {"role": "member"} and stored["emailVerified"] is True


def test_before_sign_in_session_claims_go_in_the_id_token_not_the_user(firebase, hook_server):
    register(firebase, hook_server, "beforeSignIn")
    hook_server.answer = lambda call: user_record(sessionClaims={"signInIp": "loopback"}, displayName="Alice Signed In")
    signed_in = firebase.sign_in("alice@example.com")
    claims = jwt_claims(signed_in["idToken"])
    assert claims["signInIp"] == "loopback" and claims["name"] == "Alice Signed In"
    # The answer describes the profile as the function left it.
    assert signed_in["displayName"] == "Alice Signed In"
    stored = firebase.lookup(signed_in["idToken"])
    assert "signInIp" not in json.loads(stored.get("customAttributes") or "{}")
    assert stored["displayName"] == "Alice Signed In"
    # The session keeps them across a refresh, as the emulator's refresh tokens carry them.
    refreshed = firebase.refresh(signed_in["refreshToken"]).json()
    assert jwt_claims(refreshed["id_token"])["signInIp"] == "loopback"


def test_session_claims_from_before_create_are_ignored(firebase, hook_server):
    register(firebase, hook_server, "beforeCreate")
    hook_server.answer = lambda call: user_record(sessionClaims={"fromCreate": True})
    assert "fromCreate" not in jwt_claims(firebase.sign_up("session-create@example.com")["idToken"])


def test_a_user_disabled_by_before_sign_in_is_stored_disabled_then_refused(firebase, hook_server):
    register(firebase, hook_server, "beforeSignIn")
    hook_server.answer = lambda call: user_record(disabled=True)
    response = firebase.call("accounts:signInWithPassword", {"email": "bob@example.com", "password": "password123", "returnSecureToken": True})
    assert firebase_error(response) == "USER_DISABLED"
    assert admin_user_by_email(firebase, "bob@example.com")["disabled"] is True
    hook_server.answer = lambda call: {}
    again = firebase.call("accounts:signInWithPassword", {"email": "bob@example.com", "password": "password123", "returnSecureToken": True})
    assert firebase_error(again) == "USER_DISABLED"


def test_a_user_disabled_by_before_create_is_created_then_refused_without_before_sign_in(firebase, hook_server):
    register(firebase, hook_server, "beforeCreate", "beforeSignIn")
    hook_server.answer = answer_by_path({"beforeCreate": user_record(disabled=True)})
    response = firebase.call("accounts:signUp", {"email": "born-disabled@example.com", "password": "secret123", "returnSecureToken": True})
    assert firebase_error(response) == "USER_DISABLED"
    assert admin_user_by_email(firebase, "born-disabled@example.com")["disabled"] is True
    assert hook_server.calls_to("/beforeSignIn") == []


# --- Refusals and failures -------------------------------------------------------------------------------------------

def test_a_refusal_is_blocking_function_error_response_with_the_functions_message(firebase, hook_server):
    register(firebase, hook_server, "beforeCreate")
    # What firebase-functions sends for `throw new HttpsError("invalid-argument", "Unauthorized email")`.
    refusal = {"error": {"status": "INVALID_ARGUMENT", "message": "Unauthorized email \"mallory@evil.example\""}}
    hook_server.answer = lambda call: (400, refusal, "application/json")
    response = firebase.call("accounts:signUp", {"email": "mallory@evil.example", "password": "secret123", "returnSecureToken": True})
    message = firebase_error(response, 400)
    assert message == "BLOCKING_FUNCTION_ERROR_RESPONSE : HTTP Cloud Function returned an error: " + json.dumps(refusal)
    assert admin_user_by_email(firebase, "mallory@evil.example") is None


def test_an_error_body_with_a_200_is_a_refusal_too(firebase, hook_server):
    register(firebase, hook_server, "beforeSignIn")
    hook_server.answer = lambda call: {"error": {"message": "not today"}}
    response = firebase.call("accounts:signInWithPassword", {"email": "alice@example.com", "password": "password123", "returnSecureToken": True})
    assert "not today" in firebase_error(response, 400)


def test_a_timed_out_function_fails_the_sign_up_without_waiting(firebase, hook_server):
    register(firebase, hook_server, "beforeCreate")
    rule = {"match": {"operation": "firebase:hook.beforeCreate"}, "effect": {"type": "error", "error": "timeout_error"}}
    assert firebase.fauxth.control("POST", "/faults", json=rule).status_code in (200, 201)
    try:
        response = firebase.call("accounts:signUp", {"email": "slow@example.com", "password": "secret123", "returnSecureToken": True})
        url = hook_server.at("/beforeCreate")
        assert firebase_error(response, 500) == f"BLOCKING_FUNCTION_ERROR_RESPONSE : ((Deadline exceeded making request to {url}.))"
        assert response.json()["error"]["status"] == "INTERNAL"
        assert hook_server.calls == []
        assert admin_user_by_email(firebase, "slow@example.com") is None
    finally:
        firebase.fauxth.control("DELETE", "/faults")


def test_an_unreachable_function_fails_with_the_emulators_words(firebase):
    url = "http://127.0.0.1:9/beforeSignIn"
    assert v2_config(firebase, "PATCH", params={"updateMask": "blockingFunctions"},
                     json={"blockingFunctions": {"triggers": {"beforeSignIn": {"functionUri": url}}}}).status_code == 200
    response = firebase.call("accounts:signInWithPassword", {"email": "alice@example.com", "password": "password123", "returnSecureToken": True})
    assert firebase_error(response, 500) == f"BLOCKING_FUNCTION_ERROR_RESPONSE : ((Failed to make request to {url}.))"


def test_malformed_answers_are_refused(firebase, hook_server):
    register(firebase, hook_server, "beforeSignIn")
    body = {"email": "alice@example.com", "password": "password123", "returnSecureToken": True}
    hook_server.answer = lambda call: (200, "<html>oops</html>", "text/html")
    assert firebase_error(firebase.call("accounts:signInWithPassword", body), 500) == \
        "BLOCKING_FUNCTION_ERROR_RESPONSE : ((Response body is not valid JSON.))"
    hook_server.answer = lambda call: {"userRecord": {"displayName": "no mask"}}
    assert firebase_error(firebase.call("accounts:signInWithPassword", body)) == \
        "BLOCKING_FUNCTION_ERROR_RESPONSE : ((Response UserRecord is missing updateMask.))"
    hook_server.answer = lambda call: user_record(customClaims={"sub": "x"})
    assert firebase_error(firebase.call("accounts:signInWithPassword", body)) == "FORBIDDEN_CLAIM : sub"
    # An empty answer (a function that returns nothing) changes nothing.
    hook_server.answer = lambda call: (200, "", "application/json")
    assert "idToken" in firebase.ok("accounts:signInWithPassword", body)


# --- Where they are (not) called -------------------------------------------------------------------------------------

def test_admin_creation_anonymous_sign_up_and_custom_tokens_call_no_function(firebase, firebase_app, hook_server):
    from firebase_admin import auth
    register(firebase, hook_server, "beforeCreate", "beforeSignIn")
    auth.create_user(email="admin-made@example.com", password="secret123", app=firebase_app)
    assert firebase.admin("POST", "/accounts", json={"email": "admin-rest@example.com", "password": "secret123"}).status_code == 200
    firebase.ok("accounts:signUp", {"returnSecureToken": True})
    custom = auth.create_custom_token("custom-uid", app=firebase_app).decode()
    firebase.ok("accounts:signInWithCustomToken", {"token": custom, "returnSecureToken": True})
    assert hook_server.calls == []


def test_phone_sign_up_calls_before_create_and_before_sign_in(firebase, hook_server):
    register(firebase, hook_server, "beforeCreate", "beforeSignIn", "beforeSendSms")
    phone = "+15555550177"
    session_info = firebase.ok("accounts:sendVerificationCode", {"phoneNumber": phone, "recaptchaToken": "x"})["sessionInfo"]
    [sms] = events_of(hook_server, "beforeSendSms")
    assert sms["phone_number"] == phone and sms["sms_type"] == "SIGN_IN_OR_SIGN_UP" and "user_record" not in sms
    code = firebase.verification_code(session_info)
    firebase.ok("accounts:signInWithPhoneNumber", {"sessionInfo": session_info, "code": code})
    [created] = events_of(hook_server, "beforeCreate")
    assert created["sign_in_method"] == "phone" and created["user_record"]["phone_number"] == phone
    assert events_of(hook_server, "beforeSignIn")[0]["sign_in_method"] == "phone"


def test_a_refused_sms_is_not_sent(firebase, hook_server):
    register(firebase, hook_server, "beforeSendSms")
    hook_server.answer = lambda call: (403, {"error": {"status": "PERMISSION_DENIED", "message": "no texts"}}, "application/json")
    response = firebase.call("accounts:sendVerificationCode", {"phoneNumber": "+15555550178", "recaptchaToken": "x"})
    assert "no texts" in firebase_error(response)
    assert firebase.emulator("GET", "/verificationCodes").json()["verificationCodes"] == []


def test_email_link_sign_up_and_the_emails_before_send_email_sees(firebase, hook_server):
    register(firebase, hook_server, "beforeCreate", "beforeSignIn", "beforeSendEmail")
    email = "linked-in@example.com"
    firebase.ok("accounts:sendOobCode", {"requestType": "EMAIL_SIGNIN", "email": email, "continueUrl": "http://localhost/done"})
    [sent] = events_of(hook_server, "beforeSendEmail")
    assert sent["email"] == email and sent["email_type"] == "EMAIL_SIGN_IN"
    [entry] = [c for c in firebase.emulator("GET", "/oobCodes").json()["oobCodes"] if c["email"] == email]
    firebase.ok("accounts:signInWithEmailLink", {"email": email, "oobCode": entry["oobCode"]})
    assert events_of(hook_server, "beforeCreate")[0]["sign_in_method"] == "emailLink"
    assert events_of(hook_server, "beforeSignIn")[0]["sign_in_method"] == "emailLink"
    # A verification email is not an event type of beforeSendEmail; a refused reset sends nothing.
    hook_server.answer = lambda call: (400, {"error": {"message": "no resets"}}, "application/json")
    refused = firebase.call("accounts:sendOobCode", {"requestType": "PASSWORD_RESET", "email": "alice@example.com"})
    assert "no resets" in firebase_error(refused)
    assert [c for c in firebase.emulator("GET", "/oobCodes").json()["oobCodes"] if c["email"] == "alice@example.com"] == []


def test_idp_sign_up_forwards_the_providers_tokens_when_asked(firebase, hook_server):
    register(firebase, hook_server, "beforeCreate", "beforeSignIn", forward={"idToken": True})
    id_token = json.dumps({"sub": "g-123", "email": "idp-user@example.com", "email_verified": True, "name": "Idp User"})
    post_body = urllib.parse.urlencode({"id_token": id_token, "providerId": "google.com"})
    firebase.ok("accounts:signInWithIdp", {"requestUri": "http://localhost", "postBody": post_body, "returnSecureToken": True})
    [created] = events_of(hook_server, "beforeCreate")
    assert created["sign_in_method"] == "google.com" and created["oauth_id_token"] == id_token
    assert "oauth_access_token" not in created
    assert json.loads(created["raw_user_info"])["email"] == "idp-user@example.com"
    assert created["user_record"]["provider_data"][0]["provider_id"] == "google.com"
    # The same account signing in again: beforeSignIn only.
    firebase.ok("accounts:signInWithIdp", {"requestUri": "http://localhost", "postBody": post_body, "returnSecureToken": True})
    assert len(hook_server.calls_to("/beforeCreate")) == 1 and len(hook_server.calls_to("/beforeSignIn")) == 2


def test_a_saml_sign_in_tells_the_functions_its_attributes(firebase, hook_server):
    register(firebase, hook_server, "beforeCreate", "beforeSignIn")
    attributes = {"department": "R&D", "role": "admin"}
    saml_response = {"assertion": {"subject": {"nameId": "sam@example.com"}, "attributeStatements": attributes}}
    post_body = urllib.parse.urlencode({"id_token": json.dumps({"sub": "s-9"}), "providerId": "saml.acme", "SAMLResponse": json.dumps(saml_response)})
    firebase.ok("accounts:signInWithIdp", {"requestUri": "http://localhost", "postBody": post_body, "returnSecureToken": True})
    for name in ("beforeCreate", "beforeSignIn"):
        [call] = events_of(hook_server, name)
        assert call["sign_in_method"] == "saml.acme"
        assert json.loads(call["sign_in_attributes"]) == attributes and json.loads(call["raw_user_info"]) == attributes


def test_the_event_jwt_carries_identity_platforms_fields(firebase, hook_server):
    register(firebase, hook_server, "beforeCreate")
    response = requests.post(f"{firebase.url}/identitytoolkit.googleapis.com/v1/accounts:signUp", params={"key": firebase.api_key},
                             json={"email": "payload@example.com", "password": "secret123", "tenantId": "team-a", "returnSecureToken": True},
                             headers={"User-Agent": "blocking-test/1.0", "X-Firebase-Locale": "fr"}, timeout=30)
    assert response.status_code == 200, response.text
    [call] = hook_server.calls_to("/beforeCreate")
    assert call.headers["content-type"].startswith("application/json")
    assert jwt_part(call.json["data"]["jwt"], 0)["alg"] == "none"
    claims = event(call)
    assert claims["iss"] == f"https://securetoken.google.com/{FIREBASE_PROJECT}"
    assert claims["aud"] == hook_server.at("/beforeCreate")
    assert claims["event_type"] == "beforeCreate" and claims["event_id"]
    assert claims["exp"] > claims["iat"]
    assert claims["sign_in_method"] == "password"
    assert claims["user_agent"] == "blocking-test/1.0" and claims["locale"] == "fr" and claims["ip_address"]
    assert claims["tenant_id"] == "team-a"
    record = claims["user_record"]
    assert record["email"] == "payload@example.com" and record["uid"] == claims["sub"] == response.json()["localId"]
    assert record["tenant_id"] == "team-a" and record["email_verified"] is False and record["disabled"] is False
    assert record["provider_data"] == [{"provider_id": "password", "uid": "payload@example.com", "email": "payload@example.com"}]
    assert record["metadata"]["creation_time"] > 0


def test_each_call_is_a_hook_called_event(firebase, hook_server):
    register(firebase, hook_server, "beforeSignIn")
    hook_server.answer = lambda call: user_record(displayName="Evented")
    firebase.sign_in("alice@example.com")
    events = firebase.fauxth.control("GET", "/events", params={"type": "hook.called"}).json()["events"]
    [called] = [e for e in events if e["detail"]["point"] == "beforeSignIn"]
    assert called["detail"]["dialect"] == "firebase" and called["detail"]["uri"] == hook_server.at("/beforeSignIn")
    assert called["detail"]["outcome"] == "answered" and called["detail"]["response"]["status"] == 200
    assert "jwt" in called["detail"]["request"]["body"]["data"]


# --- The control API -------------------------------------------------------------------------------------------------

def test_the_control_api_sets_reads_and_clears_a_function_and_reset_restores_the_seeds_none(firebase, hook_server):
    control = firebase.fauxth.control
    put = control("PUT", f"/tenants/{FIREBASE_PROJECT}/hooks/beforeCreate", json={"uri": hook_server.at("/beforeCreate")})
    assert put.status_code == 200, put.text
    assert put.json()["hooks"]["beforeCreate"]["uri"] == hook_server.at("/beforeCreate")
    assert set(put.json()["points"]) == {"beforeCreate", "beforeSignIn", "beforeSendEmail", "beforeSendSms"}
    # It is the project config's blockingFunctions, as the v2 config API shows it.
    assert v2_config(firebase).json()["blockingFunctions"]["triggers"]["beforeCreate"]["functionUri"] == hook_server.at("/beforeCreate")
    firebase.sign_up("control-api@example.com")
    assert len(hook_server.calls_to("/beforeCreate")) == 1
    assert control("GET", f"/tenants/{FIREBASE_PROJECT}/hooks").json()["hooks"]["beforeCreate"]["uri"] == hook_server.at("/beforeCreate")
    assert control("DELETE", f"/tenants/{FIREBASE_PROJECT}/hooks/beforeCreate").json()["hooks"] == {}
    firebase.sign_up("control-api-2@example.com")
    assert len(hook_server.calls_to("/beforeCreate")) == 1
    assert control("PUT", f"/tenants/{FIREBASE_PROJECT}/hooks/beforeDelete", json={"uri": hook_server.at("/x")}).status_code == 404
    assert control("PUT", f"/tenants/{FIREBASE_PROJECT}/hooks/beforeCreate", json={"uri": "not a url"}).status_code == 400
    control("PUT", f"/tenants/{FIREBASE_PROJECT}/hooks/beforeSignIn", json={"uri": hook_server.at("/beforeSignIn")})
    assert control("POST", "/reset").status_code == 200
    assert control("GET", f"/tenants/{FIREBASE_PROJECT}/hooks").json()["hooks"] == {}
    firebase.sign_in("alice@example.com")
    assert hook_server.calls_to("/beforeSignIn") == []


def test_before_sign_in_runs_after_the_second_factor_not_before(firebase, hook_server):
    from test_firebase_mfa import enroll_phone, password_sign_in
    phone = "+15555550179"
    enroll_phone(firebase, firebase.sign_in("alice@example.com")["idToken"], phone)
    register(firebase, hook_server, "beforeSignIn", "beforeSendSms")
    hook_server.answer = answer_by_path({"beforeSignIn": user_record(sessionClaims={"mfa": "done"})})
    first = password_sign_in(firebase, "alice@example.com")
    assert "mfaPendingCredential" in first and hook_server.calls_to("/beforeSignIn") == []
    started = firebase.ok("accounts/mfaSignIn:start", {"mfaPendingCredential": first["mfaPendingCredential"],
                                                       "mfaEnrollmentId": first["mfaInfo"][0]["mfaEnrollmentId"],
                                                       "phoneSignInInfo": {"recaptchaToken": "x"}}, version="v2")
    assert events_of(hook_server, "beforeSendSms")[0]["sms_type"] == "MULTI_FACTOR_SIGN_IN"
    session_info = started["phoneResponseInfo"]["sessionInfo"]
    done = firebase.ok("accounts/mfaSignIn:finalize", {"mfaPendingCredential": first["mfaPendingCredential"],
                                                       "phoneVerificationInfo": {"sessionInfo": session_info,
                                                                                 "code": firebase.verification_code(session_info)}}, version="v2")
    [signed_in] = events_of(hook_server, "beforeSignIn")
    assert signed_in["sign_in_method"] == "password" and signed_in["sign_in_second_factor"] == "phone"
    assert signed_in["user_record"]["multi_factor"]["enrolled_factors"][0]["phone_number"] == phone
    assert jwt_claims(done["idToken"])["mfa"] == "done"
