"""Phone sign-up and SMS codes through supabase-py, against a project with the phone provider on."""
import json

import pytest
from supabase import create_client
from supabase_auth.errors import AuthApiError

from test_supabase_slice import ANON_KEY

SECRET = "super-secret-jwt-token-with-at-least-32-characters-long"


@pytest.fixture
def phone_project(start_fauxth, tmp_path):
    seed = tmp_path / "phone.json"
    seed.write_text(json.dumps({"tenants": [{"id": "default", "dialect": "supabase", "gotrue_env": {
        "GOTRUE_JWT_SECRET": SECRET, "GOTRUE_EXTERNAL_PHONE_ENABLED": "true", "GOTRUE_SMS_MAX_FREQUENCY": "1s",
        "GOTRUE_SMS_TEST_OTP": "15555550123:424242",
    }}]}))
    return start_fauxth("--seed", str(seed))


def test_phone_sign_up_and_verify_by_sms_code(phone_project):
    auth = create_client(phone_project.url, ANON_KEY).auth
    response = auth.sign_up({"phone": "+15555550177", "password": "secret123"})
    assert response.user.phone == "15555550177" and response.session is None
    sms = phone_project.wait_message("+15555550177", channel="sms")
    assert sms["text"] == f"Your code is {sms['codes'][0]}"
    with pytest.raises(AuthApiError) as error:
        auth.sign_in_with_password({"phone": "+15555550177", "password": "secret123"})
    assert error.value.code == "phone_not_confirmed"
    session = auth.verify_otp({"phone": "+15555550177", "token": sms["codes"][0], "type": "sms"}).session
    assert session.user.phone_confirmed_at is not None
    assert auth.sign_in_with_password({"phone": "+15555550177", "password": "secret123"}).session


def test_sign_in_with_otp_for_a_test_number_uses_the_fixed_code(phone_project):
    auth = create_client(phone_project.url, ANON_KEY).auth
    response = auth.sign_in_with_otp({"phone": "+15555550123"})
    assert response.message_id == "test-otp"
    sms = phone_project.wait_message("+15555550123", channel="sms")
    assert sms["status"] == "suppressed" and sms["codes"] == ["424242"]
    session = auth.verify_otp({"phone": "+15555550123", "token": "424242", "type": "sms"}).session
    assert session.user.phone == "15555550123"


def test_reauthenticate_sends_the_nonce_a_password_update_needs(start_fauxth, tmp_path):
    from supabase_auth.errors import AuthApiError as Error

    seed = tmp_path / "reauth.json"
    seed.write_text(json.dumps({"tenants": [{"id": "default", "dialect": "supabase", "gotrue_env": {
        "GOTRUE_JWT_SECRET": SECRET, "GOTRUE_SECURITY_UPDATE_PASSWORD_REQUIRE_REAUTHENTICATION": "true",
    }, "users": [{"email": "re@example.com", "password": "secret123", "email_verified": True}]}]}))
    instance = start_fauxth("--seed", str(seed), "--clock", "frozen@2026-01-01T00:00:00Z")
    auth = create_client(instance.url, ANON_KEY).auth
    auth.sign_in_with_password({"email": "re@example.com", "password": "secret123"})
    instance.control("POST", "/clock/advance", json={"seconds": 2 * 86400})
    auth.refresh_session()
    with pytest.raises(Error) as error:
        auth.update_user({"password": "brand-new-pass"})
    assert error.value.code == "reauthentication_needed"
    auth.reauthenticate()
    nonce = instance.wait_message("re@example.com", purpose="reauthentication")["codes"][0]
    assert auth.update_user({"password": "brand-new-pass", "nonce": nonce}).user.email == "re@example.com"


def test_update_user_phone_waits_for_the_phone_change_code(phone_project):
    auth = create_client(phone_project.url, ANON_KEY).auth
    auth.sign_up({"phone": "+15555550188", "password": "secret123"})
    first = phone_project.wait_message("+15555550188", channel="sms")
    auth.verify_otp({"phone": "+15555550188", "token": first["codes"][0], "type": "sms"})
    user = auth.update_user({"phone": "+15555550199"}).user
    assert user.new_phone == "15555550199" and user.phone == "15555550188"
    code = phone_project.wait_message("+15555550199", purpose="phone_change")["codes"][0]
    session = auth.verify_otp({"phone": "+15555550199", "token": code, "type": "phone_change"}).session
    assert session.user.phone == "15555550199"


def test_an_idle_session_expires_on_the_emulator_clock(start_fauxth, tmp_path):
    from supabase_auth.errors import AuthApiError as Error

    seed = tmp_path / "idle.json"
    seed.write_text(json.dumps({"tenants": [{"id": "default", "dialect": "supabase", "gotrue_env": {
        "GOTRUE_JWT_SECRET": SECRET, "GOTRUE_SESSIONS_INACTIVITY_TIMEOUT": "8h",
    }, "users": [{"email": "idle@example.com", "password": "secret123", "email_verified": True}]}]}))
    instance = start_fauxth("--seed", str(seed), "--clock", "frozen@2026-01-01T00:00:00Z")
    auth = create_client(instance.url, ANON_KEY).auth
    auth.sign_in_with_password({"email": "idle@example.com", "password": "secret123"})
    instance.control("POST", "/clock/advance", json={"seconds": 7 * 3600})
    assert auth.refresh_session().session is not None
    instance.control("POST", "/clock/advance", json={"seconds": 9 * 3600})
    with pytest.raises(Error) as error:
        auth.refresh_session()
    assert error.value.code == "session_expired"
