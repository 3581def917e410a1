"""Phone sign-in as the Firebase JS SDK does it: sendVerificationCode, then signInWithPhoneNumber with the texted code."""
from conftest import firebase_error, jwt_claims

CAROL = "FAUXTHCAROL00000000000000001"


def send_code(firebase, phone):
    response = firebase.ok("accounts:sendVerificationCode", {"phoneNumber": phone, "recaptchaToken": "x"})
    return response["sessionInfo"]


def test_phone_sign_in_with_the_texted_code_creates_a_user(firebase):
    session_info = send_code(firebase, "+15555550177")
    code = firebase.verification_code(session_info)
    assert len(code) == 6 and code.isdigit()
    listed = [c for c in firebase.emulator("GET", "/verificationCodes").json()["verificationCodes"] if c["sessionInfo"] == session_info]
    assert listed[0]["phoneNumber"] == "+15555550177"
    sms = firebase.fauxth.wait_message("+15555550177", channel="sms", tenant=firebase.project)
    assert code in sms["text"] and sms["codes"] == [code]

    response = firebase.ok("accounts:signInWithPhoneNumber", {"sessionInfo": session_info, "code": code})
    assert response["isNewUser"] is True
    assert response["phoneNumber"] == "+15555550177"
    claims = jwt_claims(response["idToken"])
    assert claims["phone_number"] == "+15555550177"
    assert claims["firebase"]["sign_in_provider"] == "phone"
    assert claims["firebase"]["identities"] == {"phone": ["+15555550177"]}
    assert firebase.lookup(response["idToken"])["phoneNumber"] == "+15555550177"


def test_a_seeded_phone_number_signs_in_to_its_user(firebase):
    session_info = send_code(firebase, "+15555550100")
    response = firebase.ok("accounts:signInWithPhoneNumber", {"sessionInfo": session_info, "code": firebase.verification_code(session_info)})
    assert response["localId"] == CAROL
    assert response.get("isNewUser", False) is False


def test_a_wrong_code_is_refused_and_the_right_one_still_works(firebase):
    session_info = send_code(firebase, "+15555550178")
    code = firebase.verification_code(session_info)
    wrong = "000000" if code != "000000" else "111111"
    assert firebase_error(firebase.call("accounts:signInWithPhoneNumber", {"sessionInfo": session_info, "code": wrong})) == "INVALID_CODE"
    assert firebase.ok("accounts:signInWithPhoneNumber", {"sessionInfo": session_info, "code": code})["phoneNumber"] == "+15555550178"


def test_the_test_number_takes_its_fixed_code_and_its_text_is_suppressed(firebase):
    session_info = send_code(firebase, "+15555550123")
    wrong = firebase.call("accounts:signInWithPhoneNumber", {"sessionInfo": session_info, "code": "654321"})
    assert firebase_error(wrong) == "INVALID_CODE"
    response = firebase.ok("accounts:signInWithPhoneNumber", {"sessionInfo": session_info, "code": "123456"})
    assert response["phoneNumber"] == "+15555550123"
    sms = firebase.fauxth.wait_message("+15555550123", channel="sms", tenant=firebase.project)
    assert sms["status"] == "suppressed"


def test_codes_expire_after_five_minutes(firebase):
    early = send_code(firebase, "+15555550179")
    early_code = firebase.verification_code(early)
    firebase.advance(290)
    assert firebase.ok("accounts:signInWithPhoneNumber", {"sessionInfo": early, "code": early_code})["phoneNumber"] == "+15555550179"

    late = send_code(firebase, "+15555550179")
    late_code = firebase.verification_code(late)
    firebase.advance(6 * 60)
    expired = firebase.call("accounts:signInWithPhoneNumber", {"sessionInfo": late, "code": late_code})
    assert firebase_error(expired) == "SESSION_EXPIRED"


def test_a_malformed_phone_number_is_refused(firebase):
    response = firebase.call("accounts:sendVerificationCode", {"phoneNumber": "5555550100", "recaptchaToken": "x"})
    assert firebase_error(response).startswith("INVALID_PHONE_NUMBER")


def test_linking_with_the_proof_of_another_accounts_number_is_refused(firebase):
    """The emulator's signInWithPhoneNumber: linking a number another account has answers a temporary proof once, and
    linking again with that proof is PHONE_NUMBER_EXISTS (the JS SDK's auth/phone-number-exists), so an app retrying
    with credentialFromError cannot loop; a proof without its number is MISSING_PHONE_NUMBER."""
    alice = firebase.sign_in("alice@example.com", "password123")
    session_info = send_code(firebase, "+15555550100")  # carol's number
    conflict = firebase.ok("accounts:signInWithPhoneNumber", {"idToken": alice["idToken"], "sessionInfo": session_info,
                                                              "code": firebase.verification_code(session_info)})
    proof = conflict["temporaryProof"]
    relink = firebase.call("accounts:signInWithPhoneNumber", {"idToken": alice["idToken"], "phoneNumber": "+15555550100", "temporaryProof": proof})
    assert firebase_error(relink) == "PHONE_NUMBER_EXISTS"
    assert firebase_error(firebase.call("accounts:signInWithPhoneNumber", {"temporaryProof": proof})) == "MISSING_PHONE_NUMBER"
    assert firebase.ok("accounts:signInWithPhoneNumber", {"phoneNumber": "+15555550100", "temporaryProof": proof})["localId"] == CAROL


def test_reauthenticating_with_an_unknown_number_signs_nobody_up(firebase):
    """reauthenticateWithPhoneNumber sends `operation: REAUTH` (verifyPhoneNumberForExisting) and maps USER_NOT_FOUND to
    auth/user-mismatch: the number must be a user's. Fauxth signed a new user up, whose token the SDK then refused."""
    session_info = send_code(firebase, "+15555550188")
    refused = firebase.call("accounts:signInWithPhoneNumber",
                            {"sessionInfo": session_info, "code": firebase.verification_code(session_info), "operation": "REAUTH"})
    assert firebase_error(refused) == "USER_NOT_FOUND"
    assert firebase.fauxth.control("GET", f"/tenants/{firebase.project}/users", params={"phone": "+15555550188"}).json()["users"] == []
    known = send_code(firebase, "+15555550100")
    reauthenticated = firebase.ok("accounts:signInWithPhoneNumber",
                                  {"sessionInfo": known, "code": firebase.verification_code(known), "operation": "REAUTH"})
    assert reauthenticated["localId"] == CAROL
