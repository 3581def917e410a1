"""Multi-factor auth over Identity Toolkit v2: SMS second factors as the Firebase emulator has them, and TOTP
second factors as production Firebase has them (pyotp plays the authenticator app)."""
import pyotp

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
