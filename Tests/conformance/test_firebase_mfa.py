"""Multi-factor auth over Identity Toolkit v2: SMS second factors as the Firebase emulator has them, and TOTP
second factors as production Firebase has them (pyotp plays the authenticator app)."""
import pyotp
import requests

from conftest import firebase_error, jwt_claims

ALICE = "FAUXTHALICE00000000000000001"


def totp_code(firebase, secret):
    """The code an authenticator shows at the emulator's current time (the tests freeze the clock first)."""
    return pyotp.TOTP(secret).at(firebase.now())


def enroll_phone(firebase, id_token, phone, name="Work phone"):
    started = firebase.ok("accounts/mfaEnrollment:start", {"idToken": id_token, "phoneEnrollmentInfo": {"phoneNumber": phone, "recaptchaToken": "x"}}, version="v2")
    session_info = started["phoneSessionInfo"]["sessionInfo"]
    code = firebase.verification_code(session_info)
    return firebase.ok("accounts/mfaEnrollment:finalize", {"idToken": id_token, "displayName": name,
                                                           "phoneVerificationInfo": {"sessionInfo": session_info, "code": code}}, version="v2")


def enroll_totp(firebase, id_token, name="Authenticator"):
    started = firebase.ok("accounts/mfaEnrollment:start", {"idToken": id_token, "totpEnrollmentInfo": {}}, version="v2")["totpSessionInfo"]
    assert (started["verificationCodeLength"], started["hashingAlgorithm"], started["periodSec"]) == (6, "SHA1", 30)
    assert started["sessionInfo"] and started["finalizeEnrollmentTime"]
    finalized = firebase.ok("accounts/mfaEnrollment:finalize", {
        "idToken": id_token, "displayName": name,
        "totpVerificationInfo": {"sessionInfo": started["sessionInfo"], "verificationCode": totp_code(firebase, started["sharedSecretKey"])},
    }, version="v2")
    return started["sharedSecretKey"], finalized


def password_sign_in(firebase, email):
    return firebase.ok("accounts:signInWithPassword", {"email": email, "password": "password123", "returnSecureToken": True})


def test_phone_second_factor_enrollment_then_sign_in(firebase):
    enrolled = enroll_phone(firebase, firebase.sign_in("alice@example.com")["idToken"], "+15555550142")
    assert enrolled["idToken"] and enrolled["refreshToken"]
    [factor] = firebase.lookup(enrolled["idToken"])["mfaInfo"]
    assert factor["phoneInfo"] == "+15555550142" and factor["displayName"] == "Work phone"
    assert factor["mfaEnrollmentId"] and factor["enrolledAt"]

    first = password_sign_in(firebase, "alice@example.com")
    assert "idToken" not in first
    [hint] = first["mfaInfo"]
    assert hint["mfaEnrollmentId"] == factor["mfaEnrollmentId"]
    assert hint["phoneInfo"] == "+*******0142"
    started = firebase.ok("accounts/mfaSignIn:start", {"mfaPendingCredential": first["mfaPendingCredential"], "mfaEnrollmentId": hint["mfaEnrollmentId"],
                                                       "phoneSignInInfo": {"recaptchaToken": "x"}}, version="v2")
    session_info = started["phoneResponseInfo"]["sessionInfo"]
    code = firebase.verification_code(session_info)
    sms = firebase.fauxth.wait_message("+15555550142", purpose="mfa", tenant=firebase.project)
    assert sms["channel"] == "sms" and code in sms["codes"]
    wrong = firebase.call("accounts/mfaSignIn:finalize", {"mfaPendingCredential": first["mfaPendingCredential"],
                                                          "phoneVerificationInfo": {"sessionInfo": session_info, "code": "000000" if code != "000000" else "111111"}}, version="v2")
    assert firebase_error(wrong) == "INVALID_CODE"
    done = firebase.ok("accounts/mfaSignIn:finalize", {"mfaPendingCredential": first["mfaPendingCredential"],
                                                       "phoneVerificationInfo": {"sessionInfo": session_info, "code": code}}, version="v2")
    claims = jwt_claims(done["idToken"])
    assert claims["sub"] == ALICE
    assert claims["firebase"]["sign_in_second_factor"] == "phone"
    assert claims["firebase"]["second_factor_identifier"] == factor["mfaEnrollmentId"]
    assert firebase.refresh(done["refreshToken"]).status_code == 200


def test_enrolling_a_second_factor_needs_a_verified_email(firebase):
    id_token = firebase.sign_in("bob@example.com")["idToken"]
    phone = firebase.call("accounts/mfaEnrollment:start", {"idToken": id_token, "phoneEnrollmentInfo": {"phoneNumber": "+15555550143"}}, version="v2")
    assert firebase_error(phone).startswith("UNVERIFIED_EMAIL")
    totp = firebase.call("accounts/mfaEnrollment:start", {"idToken": id_token, "totpEnrollmentInfo": {}}, version="v2")
    assert firebase_error(totp).startswith("UNVERIFIED_EMAIL")


def test_totp_enrollment_then_sign_in_with_the_authenticator_code(firebase):
    firebase.freeze()
    secret, enrolled = enroll_totp(firebase, firebase.sign_in("alice@example.com")["idToken"])
    [factor] = firebase.lookup(enrolled["idToken"])["mfaInfo"]
    assert factor["displayName"] == "Authenticator" and factor["totpInfo"] == {}
    assert "phoneInfo" not in factor

    firebase.advance(30)  # the next time step, so the sign-in code is not the enrollment code again
    first = password_sign_in(firebase, "alice@example.com")
    assert "idToken" not in first and first["mfaPendingCredential"]
    [hint] = first["mfaInfo"]
    assert hint == {"mfaEnrollmentId": factor["mfaEnrollmentId"], "displayName": "Authenticator",
                    "enrolledAt": factor["enrolledAt"], "totpInfo": {}}
    done = firebase.ok("accounts/mfaSignIn:finalize", {"mfaPendingCredential": first["mfaPendingCredential"], "mfaEnrollmentId": hint["mfaEnrollmentId"],
                                                       "totpVerificationInfo": {"verificationCode": totp_code(firebase, secret)}}, version="v2")
    claims = jwt_claims(done["idToken"])
    assert claims["sub"] == ALICE
    assert claims["firebase"]["sign_in_second_factor"] == "totp"
    assert claims["firebase"]["second_factor_identifier"] == factor["mfaEnrollmentId"]


def test_a_wrong_totp_code_is_refused(firebase):
    firebase.freeze()
    id_token = firebase.sign_in("alice@example.com")["idToken"]
    info = firebase.ok("accounts/mfaEnrollment:start", {"idToken": id_token, "totpEnrollmentInfo": {}}, version="v2")["totpSessionInfo"]
    right = totp_code(firebase, info["sharedSecretKey"])
    wrong = str((int(right) + 1) % 1_000_000).zfill(6)
    refused = firebase.call("accounts/mfaEnrollment:finalize", {"idToken": id_token, "totpVerificationInfo": {"sessionInfo": info["sessionInfo"], "verificationCode": wrong}}, version="v2")
    assert firebase_error(refused).startswith("INVALID_CODE")
    assert firebase.lookup(id_token).get("mfaInfo", []) == []

    secret, _ = enroll_totp(firebase, firebase.sign_in("alice@example.com")["idToken"])
    firebase.advance(30)
    first = password_sign_in(firebase, "alice@example.com")
    right = totp_code(firebase, secret)
    refused = firebase.call("accounts/mfaSignIn:finalize", {"mfaPendingCredential": first["mfaPendingCredential"], "mfaEnrollmentId": first["mfaInfo"][0]["mfaEnrollmentId"],
                                                            "totpVerificationInfo": {"verificationCode": str((int(right) + 1) % 1_000_000).zfill(6)}}, version="v2")
    assert firebase_error(refused).startswith("INVALID_CODE")
    assert "idToken" not in refused.json()


def test_withdrawing_the_second_factor_restores_single_factor_sign_in(firebase):
    enrolled = enroll_phone(firebase, firebase.sign_in("alice@example.com")["idToken"], "+15555550144")
    [factor] = firebase.lookup(enrolled["idToken"])["mfaInfo"]
    withdrawn = firebase.ok("accounts/mfaEnrollment:withdraw", {"idToken": enrolled["idToken"], "mfaEnrollmentId": factor["mfaEnrollmentId"]}, version="v2")
    assert withdrawn["idToken"]
    assert firebase.lookup(withdrawn["idToken"]).get("mfaInfo", []) == []
    assert password_sign_in(firebase, "alice@example.com")["idToken"]


def test_an_enrolment_answers_tokens_naming_the_factor_and_ends_other_sessions(firebase):
    """The SDK's `enroll` keeps the tokens the finalize answers ("the user tokens are updated to reflect the change"):
    they name the factor, as the emulator's do. The user's other sessions end ("existing Firebase sessions (refresh
    tokens) are revoked")."""
    firebase.freeze()
    other = firebase.sign_in("alice@example.com")
    session = firebase.sign_in("alice@example.com")
    firebase.advance(5)
    enrolled = enroll_phone(firebase, session["idToken"], "+15555550145")
    [factor] = firebase.lookup(enrolled["idToken"])["mfaInfo"]
    claims = jwt_claims(enrolled["idToken"])["firebase"]
    assert (claims["sign_in_second_factor"], claims["second_factor_identifier"]) == ("phone", factor["mfaEnrollmentId"])
    refreshed = firebase.refresh(enrolled["refreshToken"])
    assert refreshed.status_code == 200
    assert jwt_claims(refreshed.json()["id_token"])["firebase"]["sign_in_second_factor"] == "phone"
    for ended in (other, session):
        assert firebase_error(firebase.call("accounts:lookup", {"idToken": ended["idToken"]})) == "TOKEN_EXPIRED"
        assert firebase_error(firebase.refresh(ended["refreshToken"])) == "TOKEN_EXPIRED"


def test_enrolling_and_withdrawing_need_a_recent_sign_in(firebase):
    """"Recent re-authentication is required" for `enroll` and `unenroll` (the JS SDK's docs): the SDK surfaces
    `auth/requires-recent-login` and the app re-authenticates."""
    firebase.freeze()
    stale = firebase.sign_in("alice@example.com")["idToken"]
    firebase.advance(301)
    refused = firebase.call("accounts/mfaEnrollment:start", {"idToken": stale, "totpEnrollmentInfo": {}}, version="v2")
    assert firebase_error(refused) == "CREDENTIAL_TOO_OLD_LOGIN_AGAIN"
    started = firebase.ok("accounts/mfaEnrollment:start", {"idToken": stale, "phoneEnrollmentInfo": {"phoneNumber": "+15555550146"}}, version="v2")
    session_info = started["phoneSessionInfo"]["sessionInfo"]
    late = firebase.call("accounts/mfaEnrollment:finalize", {"idToken": stale, "phoneVerificationInfo": {
        "sessionInfo": session_info, "code": firebase.verification_code(session_info)}}, version="v2")
    assert firebase_error(late) == "CREDENTIAL_TOO_OLD_LOGIN_AGAIN"
    enrolled = enroll_phone(firebase, firebase.sign_in("alice@example.com")["idToken"], "+15555550146")
    [factor] = firebase.lookup(enrolled["idToken"])["mfaInfo"]
    firebase.advance(301)
    late = firebase.call("accounts/mfaEnrollment:withdraw", {"idToken": enrolled["idToken"], "mfaEnrollmentId": factor["mfaEnrollmentId"]}, version="v2")
    assert firebase_error(late) == "CREDENTIAL_TOO_OLD_LOGIN_AGAIN"


def test_sms_and_totp_second_factors_are_switched_on_apart_in_a_tenant(firebase):
    """Identity Platform's `mfaConfig`: SMS by `state` with `PHONE_SMS`, TOTP by a `providerConfigs` entry with a
    `totpProviderConfig` (Firebase's "Enable TOTP MFA" guide)."""
    def tenant(mfa_config):
        made = requests.post(f"{firebase.url}/identitytoolkit.googleapis.com/v2/projects/{firebase.project}/tenants",
                             headers={"Authorization": "Bearer owner"}, timeout=30,
                             json={"displayName": "mfa-tenant", "allowPasswordSignup": True, "mfaConfig": mfa_config})
        assert made.status_code == 200, made.text
        tenant_id = made.json()["name"].rsplit("/", 1)[-1]
        signed_up = firebase.ok("accounts:signUp", {"email": "mfa@example.com", "password": "secret123", "tenantId": tenant_id,
                                                    "returnSecureToken": True})
        verified = requests.post(f"{firebase.url}/identitytoolkit.googleapis.com/v1/projects/{firebase.project}/tenants/{tenant_id}/accounts:update",
                                 headers={"Authorization": "Bearer owner"}, timeout=30,
                                 json={"localId": signed_up["localId"], "emailVerified": True})
        assert verified.status_code == 200, verified.text
        return tenant_id, signed_up["idToken"]

    def start(tenant_id, id_token, info):
        return firebase.call("accounts/mfaEnrollment:start", {"idToken": id_token, "tenantId": tenant_id, **info}, version="v2")

    sms_tenant, sms_token = tenant({"state": "ENABLED", "enabledProviders": ["PHONE_SMS"]})
    assert firebase_error(start(sms_tenant, sms_token, {"totpEnrollmentInfo": {}})) == "OPERATION_NOT_ALLOWED : TOTP based MFA not enabled."
    totp_tenant, totp_token = tenant({"providerConfigs": [{"state": "ENABLED", "totpProviderConfig": {"adjacentIntervals": 5}}]})
    phone = {"phoneEnrollmentInfo": {"phoneNumber": "+15555550147"}}
    assert firebase_error(start(totp_tenant, totp_token, phone)) == "OPERATION_NOT_ALLOWED : SMS based MFA not enabled."
    started = start(totp_tenant, totp_token, {"totpEnrollmentInfo": {}})
    assert started.status_code == 200 and started.json()["totpSessionInfo"]["sharedSecretKey"]
