"""TOTP MFA through supabase-py's auth.mfa, with codes from pyotp as an authenticator app makes them."""
import pyotp
import pytest
from supabase import create_client
from supabase_auth.errors import AuthApiError

from test_supabase_slice import ANON_KEY


def test_enroll_challenge_and_verify_a_totp_factor(fauxth):
    auth = create_client(fauxth.url, ANON_KEY).auth
    auth.sign_in_with_password({"email": "alice@example.com", "password": "password123"})
    enrolled = auth.mfa.enroll({"factor_type": "totp", "friendly_name": "Authenticator", "issuer": "Growbro"})
    assert enrolled.type == "totp"
    assert enrolled.totp.qr_code.startswith("data:image/svg+xml;utf-8,<svg")
    # An authenticator app reads the URI as GoTrue writes it.
    scanned = pyotp.parse_uri(enrolled.totp.uri)
    assert (scanned.secret, scanned.name, scanned.issuer, scanned.digits, scanned.interval) == (enrolled.totp.secret, "alice@example.com", "Growbro", 6, 30)
    assert auth.mfa.get_authenticator_assurance_level().current_level == "aal1"

    challenge = auth.mfa.challenge({"factor_id": enrolled.id})
    with pytest.raises(AuthApiError) as error:
        auth.mfa.verify({"factor_id": enrolled.id, "challenge_id": challenge.id, "code": "000000"})
    assert error.value.code == "mfa_verification_failed"
    # The emulator's clock, not this machine's, decides which code is current.
    now = fauxth.control("GET", "/clock").json()["now"]
    import datetime
    at = datetime.datetime.fromisoformat(now.replace("Z", "+00:00"))
    code = pyotp.TOTP(enrolled.totp.secret).at(at)
    auth.mfa.verify({"factor_id": enrolled.id, "challenge_id": challenge.id, "code": code})
    level = auth.mfa.get_authenticator_assurance_level()
    assert level.current_level == "aal2"
    factors = auth.mfa.list_factors()
    assert [f.status for f in factors.totp] == ["verified"]

    assert auth.mfa.unenroll({"factor_id": enrolled.id}).id == enrolled.id
    assert auth.mfa.list_factors().all == []
    # GoTrue's DowngradeSessionsToAAL1: the session is aal1 again from its next token, its amr without the factor.
    auth.refresh_session()
    level = auth.mfa.get_authenticator_assurance_level()
    assert level.current_level == "aal1"
    assert [m.method for m in level.current_authentication_methods] == ["password"]


def test_the_qr_code_decodes_to_the_otpauth_uri(fauxth):
    import re

    import zxingcpp
    from PIL import Image

    auth = create_client(fauxth.url, ANON_KEY).auth
    auth.sign_in_with_password({"email": "carol@example.com", "password": "password123"})
    enrolled = auth.mfa.enroll({"factor_type": "totp"})
    svg = enrolled.totp.qr_code.split(",", 1)[1]
    size = int(re.search(r'viewBox="0 0 (\d+) \d+"', svg).group(1))
    image = Image.new("L", (size, size), 255)
    for x, y, w, h in re.findall(r'M(\d+),(\d+)h(\d+)v(\d+)', svg):
        for dx in range(int(w)):
            for dy in range(int(h)):
                image.putpixel((int(x) + dx, int(y) + dy), 0)
    image = image.resize((size * 8, size * 8), Image.NEAREST)
    assert zxingcpp.read_barcodes(image)[0].text == enrolled.totp.uri


def test_phone_factor_verifies_with_the_texted_code(supabase_project):
    fauxth = supabase_project({"GOTRUE_MFA_PHONE_ENROLL_ENABLED": "true", "GOTRUE_MFA_PHONE_VERIFY_ENABLED": "true"},
                              [{"email": "pat@example.com", "password": "secret123", "email_verified": True}])
    auth = create_client(fauxth.url, ANON_KEY).auth
    auth.sign_in_with_password({"email": "pat@example.com", "password": "secret123"})
    enrolled = auth.mfa.enroll({"factor_type": "phone", "phone": "+15555550142", "friendly_name": "Work phone"})
    assert enrolled.type == "phone" and enrolled.phone == "+15555550142"

    challenge = auth.mfa.challenge({"factor_id": enrolled.id})
    sms = fauxth.wait_message("+15555550142", purpose="mfa")
    assert sms["channel"] == "sms" and sms["text"] == f"Your code is {sms['codes'][0]}"
    with pytest.raises(AuthApiError) as error:
        auth.mfa.verify({"factor_id": enrolled.id, "challenge_id": challenge.id, "code": "not-it"})
    assert error.value.code == "mfa_verification_failed"
    auth.mfa.verify({"factor_id": enrolled.id, "challenge_id": challenge.id, "code": sms["codes"][0]})
    assert auth.mfa.get_authenticator_assurance_level().current_level == "aal2"
    assert [f.friendly_name for f in auth.mfa.list_factors().phone] == ["Work phone"]
    # A second challenge inside GOTRUE_MFA_PHONE_MAX_FREQUENCY is refused as GoTrue refuses it.
    with pytest.raises(AuthApiError) as error:
        auth.mfa.challenge({"factor_id": enrolled.id})
    assert error.value.code == "over_sms_send_rate_limit"


def test_a_low_assurance_session_ends_with_its_allowance(supabase_project):
    """GOTRUE_SESSIONS_ALLOW_LOW_AAL: once the user has a verified factor, a password-only session's tokens end with its
    allowance and its refresh is refused after it; the session that proved the factor goes on."""
    import datetime
    instance = supabase_project({"GOTRUE_SESSIONS_ALLOW_LOW_AAL": "15m"},
                                [{"email": "mfa@example.com", "password": "secret123", "email_verified": True}],
                                "--clock", "frozen@2026-01-01T00:00:00Z")
    raised = create_client(instance.url, ANON_KEY).auth
    assert raised.sign_in_with_password({"email": "mfa@example.com", "password": "secret123"}).session.expires_in == 3600
    enrolled = raised.mfa.enroll({"factor_type": "totp", "friendly_name": "Authenticator"})
    challenge = raised.mfa.challenge({"factor_id": enrolled.id})
    code = pyotp.TOTP(enrolled.totp.secret).at(datetime.datetime(2026, 1, 1, tzinfo=datetime.timezone.utc))
    raised.mfa.verify({"factor_id": enrolled.id, "challenge_id": challenge.id, "code": code})

    low = create_client(instance.url, ANON_KEY).auth
    assert low.sign_in_with_password({"email": "mfa@example.com", "password": "secret123"}).session.expires_in == 900
    instance.control("POST", "/clock/advance", json={"seconds": 16 * 60})
    with pytest.raises(AuthApiError) as error:
        low.refresh_session()
    assert (error.value.code, error.value.message) == ("session_expired",
                                                      "Invalid Refresh Token: Session Expired (Low AAL: User Needs MFA Verification)")
    assert raised.refresh_session().session.expires_in == 3600
