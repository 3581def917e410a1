"""Lockout and rate-limit policies through each vendor's official client: supabase-py's AuthApiError with GoTrue's
codes, Identity Toolkit's TOO_MANY_ATTEMPTS_TRY_LATER over REST, botocore's and pycognito's Cognito exceptions; a
lockout escalating through its schedule and lifting as the emulator clock moves; refused messages kept as suppressed."""
import pytest
import requests
from botocore.exceptions import ClientError
from pycognito.aws_srp import AWSSRP
from supabase import create_client
from supabase_auth.errors import AuthApiError

from conftest import COGNITO_CLIENT, COGNITO_POOL, FIREBASE_API_KEY, FIREBASE_PROJECT, firebase_error

ANON_KEY = (
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJpc3MiOiJzdXBhYmFzZS1kZW1vIiwicm9sZSI6ImFub24iLCJleHAiOjE5ODM4MTI5OTZ9."
    "CRXP1A7WOeoJeXxjNni43kdQwgnWNReilDMblYTn_I0"
)


def set_policies(fauxth, tenant, policies):
    response = fauxth.control("PUT", f"/tenants/{tenant}/policies", json=policies)
    assert response.status_code == 200, response.text
    return response.json()


def advance(fauxth, seconds):
    assert fauxth.control("POST", "/clock/advance", json={"seconds": seconds}).status_code == 200


def test_supabase_py_meets_a_lockout_that_escalates_through_its_schedule(fauxth):
    fauxth.control("POST", "/clock/freeze")
    set_policies(fauxth, "default", {"lockout": {"max_attempts": 3, "window": 600, "durations": [60, 300, 900]}})
    auth = create_client(fauxth.url, ANON_KEY).auth

    def sign_in(password):
        return auth.sign_in_with_password({"email": "alice@example.com", "password": password})

    def refused(password):
        with pytest.raises(AuthApiError) as raised:
            sign_in(password)
        return raised.value.status, raised.value.code

    assert [refused("wrong-one") for _ in range(3)] == [(400, "invalid_credentials")] * 3
    for duration in (60, 300, 900):
        # Locked: the right password is refused unchecked with GoTrue's rate-limit answer, until the clock passes the lockout.
        assert refused("password123") == (429, "over_request_rate_limit")
        [lockout] = fauxth.control("GET", "/tenants/default/lockouts").json()["lockouts"]
        assert lockout["kind"] == "password" and lockout["locked"] and lockout["user_id"] == "00000000-0000-4000-8000-00000000a11c"
        advance(fauxth, duration - 1)
        assert refused("password123") == (429, "over_request_rate_limit")
        advance(fauxth, 1)
        if duration != 900:
            # One more failure while the earlier ones still count: the next, longer lockout.
            assert refused("wrong-one") == (400, "invalid_credentials")
    assert sign_in("password123").session
    started = fauxth.control("GET", "/events", params={"type": "lockout.started"}).json()["events"]
    assert sorted(e["detail"]["duration"] for e in started) == [60, 300, 900]


def test_the_control_api_lifts_a_lockout_and_a_generic_one_notifies_the_user(fauxth):
    set_policies(fauxth, "default", {"lockout": {"max_attempts": 1, "durations": [3600], "error": "generic", "notify": True}})
    auth = create_client(fauxth.url, ANON_KEY).auth
    for _ in range(2):
        with pytest.raises(AuthApiError) as raised:
            auth.sign_in_with_password({"email": "alice@example.com", "password": "wrong-one"})
        assert raised.value.code == "invalid_credentials"
    notice = fauxth.wait_message("alice@example.com", purpose="notification")
    assert notice["subject"] == "Your account has been temporarily locked"
    assert fauxth.control("DELETE", "/tenants/default/lockouts", params={"kind": "password"}).json() == {"lifted": 1}
    assert auth.sign_in_with_password({"email": "alice@example.com", "password": "password123"}).session
    assert fauxth.control("GET", "/events", params={"type": "lockout.cleared"}).json()["events"][0]["detail"]["reason"] == "control_api"


def test_policies_are_checked_and_shown_with_the_vendor_defaults(fauxth):
    bad = fauxth.control("PUT", f"/tenants/{COGNITO_POOL}/policies", json={"lockout": {"max_attempts": 0}})
    assert bad.status_code == 400 and "policies.lockout.max_attempts" in bad.text
    cognito = fauxth.control("GET", f"/tenants/{COGNITO_POOL}/policies").json()["effective"]
    assert cognito["lockout"]["max_attempts"] == 5 and cognito["lockout"]["durations"][:3] == [1, 2, 4]
    assert cognito["rate_limits"]["code_deliveries"] == {"count": 5, "window": 3600}
    supabase = fauxth.control("GET", "/tenants/default/policies").json()["effective"]
    assert supabase["lockout"] is None and supabase["rate_limits"]["email_sent"]["count"] == 360000
    assert fauxth.control("PUT", "/tenants/default/policies", json={"rate_limits": {"resend_cooldown": 30}}).status_code == 400


def firebase_call(fauxth, method, body):
    return requests.post(f"{fauxth.url}/identitytoolkit.googleapis.com/v1/accounts:{method}", params={"key": FIREBASE_API_KEY},
                         json=body, timeout=30)


def test_firebase_answers_too_many_attempts_for_a_lockout_and_a_send_limit(fauxth):
    fauxth.control("POST", "/clock/freeze")
    set_policies(fauxth, FIREBASE_PROJECT, {"lockout": {"max_attempts": 2, "durations": [120]},
                                            "rate_limits": {"code_deliveries": {"count": 1, "window": 3600}}})

    def sign_in(password):
        return firebase_call(fauxth, "signInWithPassword", {"email": "alice@example.com", "password": password, "returnSecureToken": True})

    assert [firebase_error(sign_in("wrong-one")) for _ in range(2)] == ["INVALID_PASSWORD"] * 2
    locked = sign_in("password123")
    assert locked.json()["error"]["message"].startswith("TOO_MANY_ATTEMPTS_TRY_LATER : Access to this account has been temporarily disabled")
    assert locked.headers["Retry-After"] == "120"
    advance(fauxth, 120)
    assert sign_in("password123").status_code == 200
    reset = {"requestType": "PASSWORD_RESET", "email": "alice@example.com"}
    assert firebase_call(fauxth, "sendOobCode", reset).status_code == 200
    assert firebase_error(firebase_call(fauxth, "sendOobCode", reset)) == "TOO_MANY_ATTEMPTS_TRY_LATER"
    messages = fauxth.control("GET", "/messages", params={"to": "alice@example.com", "tenant": FIREBASE_PROJECT}).json()["messages"]
    assert [(m["status"], m["reason"]) for m in messages][0] == ("suppressed", "code_deliveries: 1 codes per 3600 s reached for this recipient")


def test_cognito_locks_out_after_five_failures_with_boto3_and_pycognito(cognito):
    cognito.freeze()
    for _ in range(5):
        error = cognito.fails("initiate_auth", ClientId=COGNITO_CLIENT, AuthFlow="USER_PASSWORD_AUTH",
                              AuthParameters={"USERNAME": "alice@example.com", "PASSWORD": "wrong-password1"})
        assert error == {"Code": "NotAuthorizedException", "Message": "Incorrect username or password."}
    # SRP with the right password, as pycognito (and Amplify) does it, meets the lockout too.
    srp = AWSSRP(username="alice@example.com", password="password123", pool_id=COGNITO_POOL, client_id=COGNITO_CLIENT,
                 client=cognito.boto3_client())
    with pytest.raises(ClientError) as raised:
        srp.authenticate_user()
    assert raised.value.response["Error"] == {"Code": "NotAuthorizedException", "Message": "Password attempts exceeded"}
    cognito.advance(1)
    assert srp.authenticate_user()["AuthenticationResult"]["AccessToken"]


def test_cognito_resends_beyond_the_limit_are_limit_exceeded(cognito):
    cognito.freeze()
    user = "limit-tester@example.com"
    cognito.idp.sign_up(ClientId=COGNITO_CLIENT, Username=user, Password="password123",
                        UserAttributes=[{"Name": "email", "Value": user}])
    for _ in range(4):
        cognito.idp.resend_confirmation_code(ClientId=COGNITO_CLIENT, Username=user)
    with pytest.raises(cognito.idp.exceptions.LimitExceededException):
        cognito.idp.resend_confirmation_code(ClientId=COGNITO_CLIENT, Username=user)
    kept = cognito.fauxth.control("GET", "/messages", params={"to": user}).json()["messages"]
    assert kept[0]["status"] == "suppressed" and kept[0]["codes"] == []
    cognito.advance(3600)
    cognito.idp.resend_confirmation_code(ClientId=COGNITO_CLIENT, Username=user)


def test_three_wrong_totp_codes_lock_mfa_for_five_minutes_with_supabase_py(fauxth):
    import datetime

    import pyotp
    fauxth.control("POST", "/clock/freeze")
    set_policies(fauxth, "default", {"mfa_lockout": {"max_attempts": 3, "durations": [300]}})
    auth = create_client(fauxth.url, ANON_KEY).auth
    auth.sign_in_with_password({"email": "alice@example.com", "password": "password123"})
    enrolled = auth.mfa.enroll({"factor_type": "totp"})

    def verify(code):
        challenge = auth.mfa.challenge({"factor_id": enrolled.id})
        return auth.mfa.verify({"factor_id": enrolled.id, "challenge_id": challenge.id, "code": code})

    def current_code():
        now = fauxth.control("GET", "/clock").json()["now"]
        return pyotp.TOTP(enrolled.totp.secret).at(datetime.datetime.fromisoformat(now.replace("Z", "+00:00")))

    for _ in range(3):
        with pytest.raises(AuthApiError) as raised:
            verify("000000")
        assert raised.value.code == "mfa_verification_failed"
    with pytest.raises(AuthApiError) as raised:
        verify(current_code())
    assert (raised.value.status, raised.value.code) == (429, "over_request_rate_limit")
    advance(fauxth, 300)
    verify(current_code())
    assert auth.mfa.get_authenticator_assurance_level().current_level == "aal2"
