"""Phone sign-up and SMS codes through supabase-py, against a project with the phone provider on."""
import pytest
from supabase import create_client
from supabase_auth.errors import AuthApiError

from test_supabase_slice import ANON_KEY


@pytest.fixture
def phone_project(supabase_project):
    return supabase_project({"GOTRUE_EXTERNAL_PHONE_ENABLED": "true", "GOTRUE_SMS_MAX_FREQUENCY": "1s",
                             "GOTRUE_SMS_TEST_OTP": "15555550123:424242"})


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
    assert response.message_id is None  # GoTrue's sign-up path answers {} for a new number
    sms = phone_project.wait_message("+15555550123", channel="sms")
    assert sms["status"] == "suppressed" and sms["codes"] == ["424242"]
    session = auth.verify_otp({"phone": "+15555550123", "token": "424242", "type": "sms"}).session
    assert session.user.phone == "15555550123"
    # The fixed code signs in again, later, as often as a suite asks (GoTrue's verifyUserAndToken).
    phone_project.control("POST", "/clock/advance", json={"seconds": 3600})
    assert auth.verify_otp({"phone": "+15555550123", "token": "424242", "type": "sms"}).session.user.phone == "15555550123"
    assert auth.sign_in_with_otp({"phone": "+15555550123"}).message_id == "test-otp"


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

