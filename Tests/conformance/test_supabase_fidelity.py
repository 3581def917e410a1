"""GoTrue's answers where Fauxth used to differ, found with supabase-js and supabase-swift: each test sends
what those clients send (or drives supabase-py) and checks GoTrue's own status, code and effect."""
import json
import time
import urllib.parse
import uuid

import jwt as pyjwt
import pyotp
import pytest
import requests
from supabase import create_client
from supabase_auth.errors import AuthApiError

from test_supabase_admin import SERVICE_ROLE_KEY
from test_supabase_slice import ANON_KEY, claims

JWT_SECRET = "super-secret-jwt-token-with-at-least-32-characters-long"
ALICE = "00000000-0000-4000-8000-00000000a11c"


def headers(token=None):
    """What supabase-js sends on every auth call (supabase-swift sends the same apikey, version and bearer)."""
    return {
        "apikey": ANON_KEY, "Authorization": f"Bearer {token or ANON_KEY}", "Content-Type": "application/json;charset=UTF-8",
        "X-Client-Info": "supabase-js-node/2.58.0", "X-Supabase-Api-Version": "2024-01-01",
    }


def admin_headers():
    return {**headers(SERVICE_ROLE_KEY), "apikey": SERVICE_ROLE_KEY}


def auth_post(fauxth, path, body, token=None, **params):
    return requests.post(f"{fauxth.url}/auth/v1/{path}", json=body, headers=headers(token), params=params)


def sign_in(fauxth, email="alice@example.com", password="password123"):
    response = auth_post(fauxth, "token", {"email": email, "password": password}, grant_type="password")
    assert response.status_code == 200, response.text
    return response.json()


def error(response, status, code):
    assert response.status_code == status, response.text
    assert response.json()["code"] == code, response.text
    return response.json()["message"]


def enroll_verified_totp(fauxth, session):
    """A verified TOTP factor for the session's user; answers the factor id, its secret and the aal2 session."""
    token = session["access_token"]
    factor = auth_post(fauxth, "factors", {"factor_type": "totp", "friendly_name": "phone"}, token).json()
    challenge = auth_post(fauxth, f"factors/{factor['id']}/challenge", {}, token).json()
    # The emulator's clock, which an earlier test may have moved: not the wall clock.
    code = pyotp.TOTP(factor["totp"]["secret"]).at(fauxth.now())
    verified = auth_post(fauxth, f"factors/{factor['id']}/verify", {"challenge_id": challenge["id"], "code": code}, token)
    assert verified.status_code == 200, verified.text
    return factor["id"], factor["totp"]["secret"], verified.json()


# 1. Assurance level


@pytest.mark.parametrize("change", [{"password": "a-new-password-1"}, {"email": "alice.new@example.com"}])
def test_an_aal1_session_cannot_change_the_credentials_of_a_user_with_a_verified_factor(fauxth, change):
    enroll_verified_totp(fauxth, sign_in(fauxth))
    aal1 = sign_in(fauxth)
    assert claims(aal1["access_token"])["aal"] == "aal1"
    response = requests.put(f"{fauxth.url}/auth/v1/user", json=change, headers=headers(aal1["access_token"]))
    assert error(response, 401, "insufficient_aal") == "AAL2 session is required to update email or password when MFA is enabled."
    # Metadata alone needs no second factor.
    assert requests.put(f"{fauxth.url}/auth/v1/user", json={"data": {"x": 1}}, headers=headers(aal1["access_token"])).status_code == 200


def test_an_aal2_session_changes_the_password(fauxth):
    _, _, aal2 = enroll_verified_totp(fauxth, sign_in(fauxth))
    response = requests.put(f"{fauxth.url}/auth/v1/user", json={"password": "a-new-password-1"}, headers=headers(aal2["access_token"]))
    assert response.status_code == 200, response.text


def test_supabase_py_sees_insufficient_aal_as_an_api_error(fauxth):
    enroll_verified_totp(fauxth, sign_in(fauxth))
    auth = create_client(fauxth.url, ANON_KEY).auth
    auth.sign_in_with_password({"email": "alice@example.com", "password": "password123"})
    with pytest.raises(AuthApiError) as raised:
        auth.update_user({"password": "a-new-password-1"})
    assert raised.value.status == 401 and raised.value.code == "insufficient_aal"


# 16 (as Supabase answers it). GoTrue's verifyTOTPFactor keeps no record of used codes


def test_a_totp_code_already_used_answers_a_new_challenge(fauxth):
    """A suite under a frozen clock signs in twice with one code: GoTrue checks the code against the step and its
    neighbours and nothing else, so the code the enrolment used is good for a later challenge in the same window."""
    fauxth.control("POST", "/clock/freeze")
    factor_id, secret, aal2 = enroll_verified_totp(fauxth, sign_in(fauxth))
    session = sign_in(fauxth)
    challenge = auth_post(fauxth, f"factors/{factor_id}/challenge", {}, session["access_token"]).json()
    code = pyotp.TOTP(secret).at(fauxth.now())
    response = auth_post(fauxth, f"factors/{factor_id}/verify", {"challenge_id": challenge["id"], "code": code}, session["access_token"])
    assert response.status_code == 200, response.text
    assert claims(response.json()["access_token"])["aal"] == "aal2"
    # The challenge itself is spent: GoTrue stamps verified_at, and validateChallenge answers a stamped one so.
    again = auth_post(fauxth, f"factors/{factor_id}/verify", {"challenge_id": challenge["id"], "code": code}, session["access_token"])
    assert error(again, 422, "mfa_ip_address_mismatch") == "Challenge and verify IP addresses mismatch."


def test_proving_a_factor_again_keeps_one_amr_entry_per_method(fauxth):
    """GoTrue keys mfa_amr_claims by (session, method) and bumps updated_at on a repeat (models/amr.go), so an aal2
    session that verifies its TOTP factor again carries one totp entry, newest first; Fauxth carried two."""
    fauxth.control("POST", "/clock/freeze")
    factor_id, secret, aal2 = enroll_verified_totp(fauxth, sign_in(fauxth))
    first = claims(aal2["access_token"])["amr"]
    fauxth.control("POST", "/clock/advance", json={"seconds": 30})
    challenge = auth_post(fauxth, f"factors/{factor_id}/challenge", {}, aal2["access_token"]).json()
    again = auth_post(fauxth, f"factors/{factor_id}/verify", {"challenge_id": challenge["id"], "code": pyotp.TOTP(secret).at(fauxth.now())},
                      aal2["access_token"])
    assert again.status_code == 200, again.text
    amr = claims(again.json()["access_token"])["amr"]
    assert [entry["method"] for entry in amr] == ["totp", "password"]
    assert amr[0]["timestamp"] == first[0]["timestamp"] + 30


def test_an_unknown_logout_scope_is_quoted_as_go_quotes_it(fauxth):
    session = sign_in(fauxth)
    response = requests.post(f"{fauxth.url}/auth/v1/logout", params={"scope": 'bo"gus'}, headers=headers(session["access_token"]))
    assert error(response, 400, "validation_failed") == 'Unsupported logout scope "bo\\"gus"'


def test_a_sign_in_stamps_the_user_but_not_its_identities(fauxth):
    """GoTrue sets an identity's last_sign_in_at when it makes it and never after (models.NewIdentity); only the user's
    moves with each sign-in. Fauxth stamped both."""
    first = sign_in(fauxth)["user"]
    fauxth.control("POST", "/clock/advance", json={"seconds": 120})
    second = sign_in(fauxth)["user"]
    assert second["last_sign_in_at"] != first["last_sign_in_at"]
    assert [i["last_sign_in_at"] for i in second["identities"]] == [i["last_sign_in_at"] for i in first["identities"]]


# 2. Refresh tokens of a logged-out session


@pytest.mark.parametrize("scope", ["local", "global", "others"])
def test_the_refresh_token_of_a_logged_out_session_is_not_found(fauxth, scope):
    ended = sign_in(fauxth)
    caller = ended if scope != "others" else sign_in(fauxth)
    logout = requests.post(f"{fauxth.url}/auth/v1/logout", params={"scope": scope}, headers=headers(caller["access_token"]))
    assert logout.status_code == 204
    response = auth_post(fauxth, "token", {"refresh_token": ended["refresh_token"]}, grant_type="refresh_token")
    assert error(response, 400, "refresh_token_not_found") == "Invalid Refresh Token: Refresh Token Not Found"


def test_supabase_py_signs_out_on_the_missing_refresh_token(fauxth):
    auth = create_client(fauxth.url, ANON_KEY).auth
    session = auth.sign_in_with_password({"email": "alice@example.com", "password": "password123"}).session
    requests.post(f"{fauxth.url}/auth/v1/logout", params={"scope": "global"}, headers=headers(session.access_token))
    with pytest.raises(AuthApiError) as raised:
        auth.refresh_session(session.refresh_token)
    assert raised.value.code == "refresh_token_not_found"


def test_a_family_revoked_for_reuse_stays_reuse(fauxth):
    first = sign_in(fauxth)
    second = auth_post(fauxth, "token", {"refresh_token": first["refresh_token"]}, grant_type="refresh_token").json()
    auth_post(fauxth, "token", {"refresh_token": second["refresh_token"]}, grant_type="refresh_token")
    reused = auth_post(fauxth, "token", {"refresh_token": first["refresh_token"]}, grant_type="refresh_token")
    assert error(reused, 400, "refresh_token_already_used") == "Invalid Refresh Token: Already Used"
    again = auth_post(fauxth, "token", {"refresh_token": second["refresh_token"]}, grant_type="refresh_token")
    error(again, 400, "refresh_token_already_used")


def test_a_retry_with_the_token_just_replaced_gets_the_live_token_again(fauxth):
    """A client that lost a refresh's answer retries with the token it still has: GoTrue answers with the session's live
    token itself and issues none, however many refreshes came before (Fauxth answers those from memory after the first)."""
    def refresh(token):
        answer = auth_post(fauxth, "token", {"refresh_token": token}, grant_type="refresh_token")
        assert answer.status_code == 200, answer.text
        return answer.json()["refresh_token"]

    first = sign_in(fauxth)["refresh_token"]
    second = refresh(first)
    third = refresh(second)
    assert refresh(second) == third
    assert refresh(second) == third
    fourth = refresh(third)
    assert len({first, second, third, fourth}) == 4
    assert refresh(third) == fourth
    reused = auth_post(fauxth, "token", {"refresh_token": second}, grant_type="refresh_token")
    error(reused, 400, "refresh_token_already_used")
    error(auth_post(fauxth, "token", {"refresh_token": fourth}, grant_type="refresh_token"), 400, "refresh_token_already_used")


# 3. Anonymous users


ANONYMOUS = {"GOTRUE_EXTERNAL_ANONYMOUS_USERS_ENABLED": "true", "GOTRUE_SMTP_MAX_FREQUENCY": "1s"}


def anonymous_session(fauxth):
    response = auth_post(fauxth, "signup", {"data": {}})
    assert response.status_code == 200, response.text
    session = response.json()
    assert session["user"]["is_anonymous"] is True
    return session


def test_an_anonymous_user_cannot_set_a_password_without_an_address(supabase_project):
    fauxth = supabase_project(ANONYMOUS)
    session = anonymous_session(fauxth)
    response = requests.put(f"{fauxth.url}/auth/v1/user", json={"password": "secret123"}, headers=headers(session["access_token"]))
    message = error(response, 422, "validation_failed")
    assert message == "Updating password of an anonymous user without an email or phone is not allowed"


def assert_permanent(fauxth, answer_user, session, email):
    assert answer_user["is_anonymous"] is False
    assert answer_user["app_metadata"]["providers"] == ["email"] and answer_user["app_metadata"]["provider"] == "email"
    assert answer_user["email"] == email and answer_user["email_confirmed_at"]
    user = requests.get(f"{fauxth.url}/auth/v1/user", headers=headers(session["access_token"])).json()
    assert user["is_anonymous"] is False and user["app_metadata"]["providers"] == ["email"]
    refreshed = auth_post(fauxth, "token", {"refresh_token": session["refresh_token"]}, grant_type="refresh_token").json()
    token = claims(refreshed["access_token"])
    assert token["is_anonymous"] is False and token["app_metadata"]["providers"] == ["email"] and token["email"] == email


def test_an_anonymous_user_adding_an_email_under_autoconfirm_becomes_permanent(supabase_project):
    fauxth = supabase_project({**ANONYMOUS, "GOTRUE_MAILER_AUTOCONFIRM": "true"})
    session = anonymous_session(fauxth)
    response = requests.put(f"{fauxth.url}/auth/v1/user", json={"email": "Keeper@Example.com"}, headers=headers(session["access_token"]))
    assert response.status_code == 200, response.text
    assert_permanent(fauxth, response.json(), session, "keeper@example.com")
    # models.NewIdentity stamps last_sign_in_at when it makes an identity.
    assert response.json()["identities"][0]["last_sign_in_at"] == response.json()["identities"][0]["created_at"]


def test_an_anonymous_user_confirming_an_email_change_becomes_permanent(supabase_project):
    fauxth = supabase_project(ANONYMOUS)
    session = anonymous_session(fauxth)
    response = requests.put(f"{fauxth.url}/auth/v1/user", json={"email": "later@example.com"}, headers=headers(session["access_token"]))
    assert response.status_code == 200 and response.json()["is_anonymous"] is True and response.json()["new_email"] == "later@example.com"
    code = fauxth.wait_message("later@example.com", purpose="email_change")["codes"][0]
    verified = auth_post(fauxth, "verify", {"type": "email_change", "email": "later@example.com", "token": code})
    assert verified.status_code == 200, verified.text
    assert_permanent(fauxth, verified.json()["user"], session, "later@example.com")


def test_an_anonymous_user_confirming_a_phone_becomes_permanent(supabase_project):
    fauxth = supabase_project({**ANONYMOUS, "GOTRUE_EXTERNAL_PHONE_ENABLED": "true", "GOTRUE_SMS_MAX_FREQUENCY": "1s"})
    session = anonymous_session(fauxth)
    assert requests.put(f"{fauxth.url}/auth/v1/user", json={"phone": "+15555550142"}, headers=headers(session["access_token"])).status_code == 200
    code = fauxth.wait_message("+15555550142", purpose="phone_change")["codes"][0]
    verified = auth_post(fauxth, "verify", {"type": "phone_change", "phone": "15555550142", "token": code})
    assert verified.status_code == 200, verified.text
    user = verified.json()["user"]
    assert user["is_anonymous"] is False and user["phone"] == "15555550142" and user["app_metadata"]["providers"] == ["phone"]
    # GoTrue's verify.go writes the number into the new identity's data; the identity has no email, so no `email` key.
    [identity] = user["identities"]
    assert identity["identity_data"] == {"sub": user["id"], "phone": "15555550142", "phone_verified": True, "email_verified": False}
    assert "email" not in identity and identity["last_sign_in_at"]


# 4. A token without `sub`


def test_an_access_token_without_sub_is_a_bad_jwt(fauxth):
    token = pyjwt.encode({"aud": "authenticated", "role": "authenticated", "exp": int(time.time()) + 3600,
                          "session_id": str(uuid.uuid4())}, JWT_SECRET, algorithm="HS256")
    response = requests.get(f"{fauxth.url}/auth/v1/user", headers=headers(token))
    assert error(response, 403, "bad_jwt") == "invalid claim: missing sub claim"
    not_uuid = pyjwt.encode({"sub": "alice", "aud": "authenticated", "exp": int(time.time()) + 3600}, JWT_SECRET, algorithm="HS256")
    response = requests.get(f"{fauxth.url}/auth/v1/user", headers=headers(not_uuid))
    assert error(response, 400, "bad_jwt") == "invalid claim: sub claim must be a UUID"


# 5. GoTrue's email check


BAD_EMAIL = "xx:;x@x.x"


@pytest.mark.parametrize("path, body, admin", [
    ("signup", {"email": BAD_EMAIL, "password": "secret123"}, False),
    ("admin/users", {"email": BAD_EMAIL, "password": "secret123"}, True),
    ("invite", {"email": BAD_EMAIL}, True),
    ("admin/generate_link", {"type": "magiclink", "email": BAD_EMAIL}, True),
    ("otp", {"email": BAD_EMAIL}, False),
    ("recover", {"email": BAD_EMAIL}, False),
])
def test_an_invalid_email_is_refused_with_validation_failed(fauxth, path, body, admin):
    response = requests.post(f"{fauxth.url}/auth/v1/{path}", json=body, headers=admin_headers() if admin else headers())
    assert error(response, 400, "validation_failed") == "Unable to validate email address: invalid format"


def test_the_client_sees_the_invalid_email_as_an_api_error(fauxth):
    with pytest.raises(AuthApiError) as raised:
        create_client(fauxth.url, ANON_KEY).auth.sign_up({"email": BAD_EMAIL, "password": "secret123"})
    assert raised.value.status == 400 and raised.value.code == "validation_failed"


# 6. Ids compare as UUIDs


def test_admin_routes_find_a_user_by_an_upper_case_id(fauxth):
    upper = ALICE.upper()  # what supabase-swift sends: Foundation's UUID prints upper-case hex
    got = requests.get(f"{fauxth.url}/auth/v1/admin/users/{upper}", headers=admin_headers())
    assert got.status_code == 200 and got.json()["id"] == ALICE
    put = requests.put(f"{fauxth.url}/auth/v1/admin/users/{upper}", json={"user_metadata": {"seen": True}}, headers=admin_headers())
    assert put.status_code == 200 and put.json()["user_metadata"]["seen"] is True
    deleted = requests.delete(f"{fauxth.url}/auth/v1/admin/users/{upper}", headers=admin_headers())
    assert deleted.status_code == 200
    assert requests.get(f"{fauxth.url}/auth/v1/admin/users/{ALICE}", headers=admin_headers()).status_code == 404


def test_unlinking_an_identity_by_its_upper_case_id(supabase_project):
    fauxth = supabase_project({"GOTRUE_SECURITY_MANUAL_LINKING_ENABLED": "true", "GOTRUE_MAILER_AUTOCONFIRM": "true",
                               "GOTRUE_EXTERNAL_PHONE_ENABLED": "true", "GOTRUE_SMS_AUTOCONFIRM": "true"})
    session = auth_post(fauxth, "signup", {"email": "two@example.com", "password": "secret123"}).json()
    updated = requests.put(f"{fauxth.url}/auth/v1/user", json={"phone": "+15555550177"}, headers=headers(session["access_token"])).json()
    phone = next(i for i in updated["identities"] if i["provider"] == "phone")
    response = requests.delete(f"{fauxth.url}/auth/v1/user/identities/{phone['identity_id'].upper()}", headers=headers(session["access_token"]))
    assert response.status_code == 200, response.text
    user = requests.get(f"{fauxth.url}/auth/v1/user", headers=headers(session["access_token"])).json()
    assert [i["provider"] for i in user["identities"]] == ["email"]


# 7. The admin list


def test_admin_list_users_is_newest_first(fauxth):
    fauxth.control("POST", "/clock/freeze")
    for name in ["first", "second"]:
        fauxth.control("POST", "/clock/advance", json={"seconds": 5})
        requests.post(f"{fauxth.url}/auth/v1/admin/users", json={"email": f"{name}@example.com", "password": "secret123"},
                      headers=admin_headers())
    users = requests.get(f"{fauxth.url}/auth/v1/admin/users", headers=admin_headers()).json()["users"]
    assert [u["email"] for u in users[:2]] == ["second@example.com", "first@example.com"]
    oldest = requests.get(f"{fauxth.url}/auth/v1/admin/users", params={"sort": "created_at asc"}, headers=admin_headers()).json()["users"]
    assert oldest[-1]["email"] == "second@example.com"
    listed = create_client(fauxth.url, SERVICE_ROLE_KEY).auth.admin.list_users()
    assert listed[0].email == "second@example.com"


@pytest.mark.parametrize("params", [{"page": "-1"}, {"per_page": "-5"}, {"page": "x"}])
def test_admin_list_users_refuses_bad_pagination(fauxth, params):
    response = requests.get(f"{fauxth.url}/auth/v1/admin/users", params=params, headers=admin_headers())
    value = next(iter(params.values()))
    assert error(response, 400, "validation_failed") == f'Bad Pagination Parameters: strconv.ParseUint: parsing "{value}": invalid syntax'


# 8. Invitations


def test_an_invited_user_has_invited_at_and_keeps_it(fauxth):
    response = requests.post(f"{fauxth.url}/auth/v1/invite", json={"email": "guest@example.com"}, headers=admin_headers())
    assert response.status_code == 200, response.text
    user = response.json()
    assert user["invited_at"]
    again = requests.get(f"{fauxth.url}/auth/v1/admin/users/{user['id']}", headers=admin_headers()).json()
    assert again["invited_at"] == user["invited_at"]
    invited = create_client(fauxth.url, SERVICE_ROLE_KEY).auth.admin.invite_user_by_email("guest2@example.com").user
    assert invited.invited_at is not None


# 9. Verify checks the phone first


def test_verify_with_a_malformed_phone_is_refused_before_any_lookup(fauxth):
    response = auth_post(fauxth, "verify", {"type": "sms", "phone": "0123-abc", "token": "123456"})
    assert error(response, 400, "validation_failed") == "Invalid phone number format (E.164 required)"


# 10. Email change links from generate_link


@pytest.mark.parametrize("types", [["email_change_current", "email_change_new"], ["email_change_new"]])
def test_generate_link_email_change_links_apply_the_change(fauxth, types):
    links = []
    for kind in types:
        response = requests.post(f"{fauxth.url}/auth/v1/admin/generate_link", headers=admin_headers(),
                                 json={"type": kind, "email": "alice@example.com", "new_email": "alice.moved@example.com"})
        assert response.status_code == 200, response.text
        body = response.json()
        assert body["verification_type"] == kind and body["new_email"] == "alice.moved@example.com"
        assert "type=email_change" in body["action_link"]
        links.append(body["hashed_token"])
    for hashed in links:
        verified = auth_post(fauxth, "verify", {"type": "email_change", "token_hash": hashed})
        assert verified.status_code == 200, verified.text
    assert sign_in(fauxth, "alice.moved@example.com")["user"]["email"] == "alice.moved@example.com"


def test_generate_link_email_change_for_an_unknown_user(fauxth):
    response = requests.post(f"{fauxth.url}/auth/v1/admin/generate_link", headers=admin_headers(),
                             json={"type": "email_change_new", "email": "nobody@example.com", "new_email": "x@example.com"})
    assert error(response, 404, "user_not_found") == "User with this email not found"


def test_supabase_py_generates_an_email_change_link(fauxth):
    admin = create_client(fauxth.url, SERVICE_ROLE_KEY).auth.admin
    response = admin.generate_link({"type": "email_change_new", "email": "alice@example.com", "new_email": "alice.py@example.com"})
    assert response.properties.verification_type == "email_change_new"
    link = urllib.parse.urlsplit(response.properties.action_link)
    assert urllib.parse.parse_qs(link.query)["type"] == ["email_change"]


# 11. GoTrue configurations over one database


def test_projects_naming_the_same_database_share_users_but_not_settings(start_fauxth, tmp_path):
    from test_supabase_projects import free_port

    database = "postgresql://supabase_auth_admin:root@localhost:54322/postgres"
    web, admin = tmp_path / "web.env", tmp_path / "admin.env"
    web.write_text(f"FAUXTH_PROJECT_ID=web\nGOTRUE_JWT_SECRET={JWT_SECRET}\nGOTRUE_MAILER_AUTOCONFIRM=true\nDATABASE_URL={database}\n")
    admin.write_text(f"FAUXTH_PROJECT_ID=admin\nGOTRUE_JWT_SECRET=a-second-secret-of-at-least-32-characters!\n"
                     f"GOTRUE_DISABLE_SIGNUP=true\nGOTRUE_DB_DATABASE_URL={database}\n")
    web_port, admin_port = free_port(), free_port()
    instance = start_fauxth("--supabase-env", str(web), "--supabase-port", str(web_port),
                            "--supabase-env", str(admin), "--supabase-port", str(admin_port))
    web_url, admin_url = f"http://127.0.0.1:{web_port}", f"http://127.0.0.1:{admin_port}"
    signed_up = requests.post(f"{web_url}/signup", json={"email": "shared@example.com", "password": "secret123"}, headers=headers())
    assert signed_up.status_code == 200, signed_up.text
    # The other configuration signs the same user in, with its own key…
    session = requests.post(f"{admin_url}/token", params={"grant_type": "password"}, headers=headers(),
                            json={"email": "shared@example.com", "password": "secret123"})
    assert session.status_code == 200, session.text
    assert session.json()["user"]["id"] == signed_up.json()["user"]["id"]
    pyjwt.decode(session.json()["access_token"], "a-second-secret-of-at-least-32-characters!", algorithms=["HS256"], audience="authenticated")
    # …and keeps its own settings: sign-ups are off there.
    refused = requests.post(f"{admin_url}/signup", json={"email": "other@example.com", "password": "secret123"}, headers=headers())
    assert error(refused, 422, "signup_disabled")
    assert requests.get(f"{admin_url}/settings").json()["disable_signup"] is True
    assert requests.get(f"{web_url}/settings").json()["disable_signup"] is False
    users = instance.control("GET", "/tenants/web/users", params={"email": "shared@example.com"}).json()["users"]
    assert len(users) == 1


# Resending a pending change's confirmation


def test_resend_email_change_sends_the_pending_change_again(supabase_project):
    fauxth = supabase_project({"GOTRUE_SMTP_MAX_FREQUENCY": "1s", "GOTRUE_MAILER_AUTOCONFIRM": "true"})
    fauxth.control("POST", "/clock/freeze")
    session = auth_post(fauxth, "signup", {"email": "mover@example.com", "password": "secret123"}).json()
    assert requests.put(f"{fauxth.url}/auth/v1/user", json={"email": "moved@example.com"}, headers=headers(session["access_token"])).status_code == 200
    fauxth.control("POST", "/clock/advance", json={"seconds": 2})
    assert auth_post(fauxth, "resend", {"type": "email_change", "email": "mover@example.com"}).json() == {}
    sent = fauxth.control("GET", "/messages", params={"purpose": "email_change"}).json()["messages"]
    assert sorted(m["to"] for m in sent) == ["moved@example.com", "moved@example.com", "mover@example.com", "mover@example.com"]
    code = fauxth.wait_message("moved@example.com", purpose="email_change")["codes"][0]
    # Within GOTRUE_SMTP_MAX_FREQUENCY it is refused.
    assert error(auth_post(fauxth, "resend", {"type": "email_change", "email": "mover@example.com"}), 429, "over_email_send_rate_limit")
    # The resent code confirms; under autoconfirm GoTrue's emailChangeVerify asks for no second link.
    verified = auth_post(fauxth, "verify", {"type": "email_change", "email": "moved@example.com", "token": code})
    assert verified.status_code == 200 and verified.json()["user"]["email"] == "moved@example.com"
    # Nothing pending answers {}.
    assert auth_post(fauxth, "resend", {"type": "email_change", "email": "moved@example.com"}).json() == {}
    assert auth_post(fauxth, "resend", {"type": "email_change", "email": "nobody@example.com"}).json() == {}


def test_generate_link_magiclink_for_an_unknown_address_is_a_signup(fauxth):
    response = requests.post(f"{fauxth.url}/auth/v1/admin/generate_link", headers=admin_headers(),
                             json={"type": "magiclink", "email": "newbie@example.com"})
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["verification_type"] == "signup" and "type=signup" in body["action_link"]
    verified = auth_post(fauxth, "verify", {"type": "signup", "token_hash": body["hashed_token"]})
    assert verified.status_code == 200 and verified.json()["user"]["email"] == "newbie@example.com"


def test_the_refresh_token_of_a_deleted_user_is_not_found(fauxth):
    session = sign_in(fauxth)
    assert requests.delete(f"{fauxth.url}/auth/v1/admin/users/{ALICE}", headers=admin_headers()).status_code == 200
    response = auth_post(fauxth, "token", {"refresh_token": session["refresh_token"]}, grant_type="refresh_token")
    assert error(response, 400, "refresh_token_not_found") == "Invalid Refresh Token: Refresh Token Not Found"


# GoTrue's configuration, read as GoTrue reads it


def test_gotrue_settings_get_gotrues_defaults_and_floors(supabase_project):
    # GoTrue's ApplyDefaults: an OTP length outside 6-10 is 6, and a 0 frequency is a minute between emails.
    fauxth = supabase_project({"GOTRUE_MAILER_OTP_LENGTH": "12", "GOTRUE_SMTP_MAX_FREQUENCY": "0", "GOTRUE_MAILER_AUTOCONFIRM": "true"})
    fauxth.control("POST", "/clock/freeze")
    auth = create_client(fauxth.url, ANON_KEY).auth
    auth.sign_in_with_otp({"email": "otp-length@example.com"})
    code = fauxth.wait_message("otp-length@example.com")["codes"][0]
    assert len(code) == 6 and code.isdigit()
    fauxth.control("POST", "/clock/advance", json={"seconds": 30})
    with pytest.raises(AuthApiError) as refused:
        auth.sign_in_with_otp({"email": "otp-length@example.com"})
    assert refused.value.status == 429 and refused.value.code == "over_email_send_rate_limit"
    fauxth.control("POST", "/clock/advance", json={"seconds": 31})
    auth.sign_in_with_otp({"email": "otp-length@example.com"})


def refused_at_start_up(start_fauxth, tmp_path, gotrue_env):
    """Starts Fauxth with the default project's `gotrue_env` replaced, expects it to stop, and answers its stderr."""
    seed = tmp_path / "refused.json"
    seed.write_text(json.dumps({"tenants": [{"id": "default", "dialect": "supabase", "gotrue_env": gotrue_env}]}))
    refused = start_fauxth("--seed", str(seed), expect_ready=False)
    assert refused.process.wait(timeout=30) != 0
    refused.stop()
    return refused.stderr


def test_a_gotrue_setting_gotrue_would_not_start_with_is_refused(fauxth, start_fauxth, tmp_path):
    # A duration without a unit: GoTrue stops at start-up ("missing unit"), and so does Fauxth, naming the variable.
    stderr = refused_at_start_up(start_fauxth, tmp_path, {"GOTRUE_SMS_MAX_FREQUENCY": "60"})
    assert "GOTRUE_SMS_MAX_FREQUENCY" in stderr and 'missing unit in duration "60"' in stderr
    # A project made at run time is checked the same way: a 400 naming it, and no project left behind.
    made = fauxth.control("POST", "/tenants", json={"id": "unitless", "dialect": "supabase",
                                                    "gotrue_env": {"GOTRUE_SESSIONS_TIMEBOX": "0s"}})
    assert made.status_code == 400 and "GOTRUE_SESSIONS_TIMEBOX" in made.json()["error"]["message"]
    assert fauxth.control("GET", "/tenants/unitless").status_code == 404


def test_gotrue_booleans_are_gos_and_a_setting_set_to_nothing_is_not_unset(fauxth, start_fauxth, tmp_path):
    # Go's strconv.ParseBool is all GoTrue reads a boolean with: "yes" stops it, for a provider's switch as for the rest.
    for variable, value, words in (("GOTRUE_EXTERNAL_GOOGLE_ENABLED", "yes", 'strconv.ParseBool: parsing "yes": invalid syntax'),
                                   ("GOTRUE_HOOK_SEND_EMAIL_ENABLED", "on", 'strconv.ParseBool: parsing "on": invalid syntax'),
                                   ("GOTRUE_DISABLE_SIGNUP", "", 'strconv.ParseBool: parsing "": invalid syntax'),
                                   ("GOTRUE_SMTP_MAX_FREQUENCY", "", 'time: invalid duration ""')):
        made = fauxth.control("POST", "/tenants", json={"id": "go-values", "dialect": "supabase", "gotrue_env": {variable: value}})
        assert made.status_code == 400, (variable, value)
        message = made.json()["error"]["message"]
        assert variable in message and words in message, message
        assert fauxth.control("GET", "/tenants/go-values").status_code == 404
    # An empty placeholder in a seed stops the process at start-up, as it stops GoTrue.
    stderr = refused_at_start_up(start_fauxth, tmp_path, {"GOTRUE_EXTERNAL_PHONE_ENABLED": ""})
    assert "GOTRUE_EXTERNAL_PHONE_ENABLED" in stderr and "set but empty" in stderr
    # GoTrue's own spellings are taken: "True" turns the provider on.
    made = fauxth.control("POST", "/tenants", json={"id": "go-values", "dialect": "supabase", "gotrue_env": {
        "GOTRUE_EXTERNAL_GOOGLE_ENABLED": "True", "GOTRUE_EXTERNAL_GOOGLE_CLIENT_ID": "id", "GOTRUE_EXTERNAL_GOOGLE_SECRET": "s"}})
    assert made.status_code == 201, made.text
    settings = requests.get(f"{fauxth.url}/projects/go-values/auth/v1/settings", headers={"apikey": "anon"}, timeout=10).json()
    assert settings["external"]["google"] is True
    assert fauxth.control("DELETE", "/tenants/go-values").status_code in (200, 204)


def test_a_rate_limit_is_read_by_its_go_type_and_a_huge_one_does_not_end_the_process(fauxth):
    # A count no integer holds ended the process when the project was made; GoTrue takes it, as no limit in practice.
    made = fauxth.control("POST", "/tenants", json={"id": "huge-limit", "dialect": "supabase",
                                                    "gotrue_env": {"GOTRUE_RATE_LIMIT_VERIFY": "1e300"}})
    assert made.status_code == 201, made.text
    assert fauxth.control("GET", "/health").status_code == 200
    assert fauxth.control("DELETE", "/tenants/huge-limit").status_code in (200, 204)
    # Only the two send limits take N/duration: the others are a float64 in GoTrue, which "10/1m" is not.
    made = fauxth.control("POST", "/tenants", json={"id": "burst-limit", "dialect": "supabase",
                                                    "gotrue_env": {"GOTRUE_RATE_LIMIT_VERIFY": "10/1m"}})
    assert made.status_code == 400
    assert 'strconv.ParseFloat: parsing "10/1m": invalid syntax' in made.json()["error"]["message"]
    made = fauxth.control("POST", "/tenants", json={"id": "burst-limit", "dialect": "supabase",
                                                    "gotrue_env": {"GOTRUE_RATE_LIMIT_EMAIL_SENT": "10/1m"}})
    assert made.status_code == 201, made.text
    assert fauxth.control("DELETE", "/tenants/burst-limit").status_code in (200, 204)


def test_gotrue_numbers_are_go_literals_so_a_leading_zero_is_octal(supabase_project):
    # envconfig reads an int with strconv.ParseInt(s, 0, 64): GoTrue mints 384-second tokens from GOTRUE_JWT_EXP=0600.
    fauxth = supabase_project({"GOTRUE_JWT_EXP": "0600", "GOTRUE_MAILER_AUTOCONFIRM": "true"})
    auth = create_client(fauxth.url, ANON_KEY).auth
    session = auth.sign_up({"email": "octal@example.com", "password": "octal-password-1"}).session
    assert session.expires_in == 384
    claims = pyjwt.decode(session.access_token, options={"verify_signature": False})
    assert claims["exp"] - claims["iat"] == 384
    # A finite number past a float64 stops GoTrue at start-up; Fauxth answers 400 with Go's words.
    made = fauxth.control("POST", "/tenants", json={"id": "too-large", "dialect": "supabase",
                                                    "gotrue_env": {"GOTRUE_RATE_LIMIT_OTP": "1e400"}})
    assert made.status_code == 400
    assert 'strconv.ParseFloat: parsing "1e400": value out of range' in made.json()["error"]["message"]


# When each message went out, and what a new password retires


def test_each_message_stamps_when_it_went_and_a_new_password_retires_the_codes_sent_before_it(fauxth):
    """GoTrue's `*_sent_at` (mail.go) in the user supabase-py reads, and its `UpdatePassword`: the recovery, email change
    and reauthentication codes sent before a new password stop working, and the stamps are cleared."""
    fauxth.freeze()
    client = create_client(fauxth.url, ANON_KEY)
    client.auth.sign_in_with_password({"email": "alice@example.com", "password": "password123"})
    client.auth.reset_password_for_email("alice@example.com")
    fauxth.advance(61)
    client.auth.update_user({"email": "alice.moved@example.com"})
    fauxth.advance(61)
    client.auth.reauthenticate()
    user = client.auth.get_user().user
    assert user.confirmation_sent_at is None
    assert (user.email_change_sent_at - user.recovery_sent_at).total_seconds() == 61
    token = client.auth.get_session().access_token
    raw = requests.get(f"{fauxth.url}/auth/v1/user", headers=headers(token)).json()
    assert raw["reauthentication_sent_at"] > raw["email_change_sent_at"]
    recovery = fauxth.wait_message("alice@example.com", purpose="reset_password")["codes"][0]
    new_address = fauxth.wait_message("alice.moved@example.com", purpose="email_change")["codes"][0]

    updated = client.auth.update_user({"password": "a-new-password"}).user
    assert (updated.recovery_sent_at, updated.email_change_sent_at, updated.confirmation_sent_at) == (None, None, None)
    assert updated.new_email == "alice.moved@example.com"
    assert error(auth_post(fauxth, "verify", {"type": "recovery", "email": "alice@example.com", "token": recovery}), 403, "otp_expired")
    assert error(auth_post(fauxth, "verify", {"type": "email_change", "email": "alice.moved@example.com", "token": new_address}),
                 403, "otp_expired")
    # A code sent after the change works: the email change sent again confirms.
    fauxth.advance(61)
    assert auth_post(fauxth, "resend", {"type": "email_change", "email": "alice@example.com"}).status_code == 200
    resent = fauxth.wait_message("alice.moved@example.com", purpose="email_change")["codes"][0]
    verified = auth_post(fauxth, "verify", {"type": "email_change", "email": "alice.moved@example.com", "token": resent})
    assert verified.status_code == 200, verified.text


def test_required_characters_keep_an_escaped_colon_in_its_set(supabase_project):
    """The dashboard's "letters, digits and symbols" value escapes the colon among the symbols; GoTrue's
    PasswordRequiredCharacters.Decode keeps it in one set (configuration.go). Fauxth split the symbols in two."""
    symbols = "abcdefghijklmnopqrstuvwxyz:ABCDEFGHIJKLMNOPQRSTUVWXYZ:0123456789:!@#$%^&*()_+-=[]{};'\\:\"|<>?,./`~"
    fauxth = supabase_project({"GOTRUE_PASSWORD_REQUIRED_CHARACTERS": symbols, "GOTRUE_MAILER_AUTOCONFIRM": "true"})
    accepted = auth_post(fauxth, "signup", {"email": "strong@example.com", "password": "Abcdef1!"})
    assert accepted.status_code == 200, accepted.text
    refused = auth_post(fauxth, "signup", {"email": "weak@example.com", "password": "Abcdefg1"})
    assert refused.status_code == 422 and refused.json()["code"] == "weak_password"


def test_the_password_grant_checks_in_gotrues_order(supabase_project):
    """GoTrue's ResourceOwnerPasswordGrant: one identifier (validation_failed for both or neither), the provider switched
    on (email_provider_disabled), and a banned user told so before the password is checked."""
    fauxth = supabase_project({"GOTRUE_MAILER_AUTOCONFIRM": "true"},
                              [{"email": "banned@example.com", "password": "secret123", "email_verified": True}])
    both = auth_post(fauxth, "token", {"email": "banned@example.com", "phone": "+15555550100", "password": "x"}, grant_type="password")
    assert error(both, 400, "validation_failed") == "Only an email address or phone number should be provided on login."
    assert error(auth_post(fauxth, "token", {"password": "x"}, grant_type="password"), 400, "validation_failed") == "missing email or phone"
    user_id = next(u["id"] for u in fauxth.control("GET", "/tenants/default/users").json()["users"] if u["email"] == "banned@example.com")
    requests.put(f"{fauxth.url}/auth/v1/admin/users/{user_id}", json={"ban_duration": "24h"}, headers=admin_headers())
    wrong = auth_post(fauxth, "token", {"email": "banned@example.com", "password": "wrong-password"}, grant_type="password")
    assert error(wrong, 400, "user_banned") == "User is banned"


def test_a_disabled_email_provider_refuses_email_logins(supabase_project):
    fauxth = supabase_project({"GOTRUE_EXTERNAL_EMAIL_ENABLED": "false"},
                              [{"email": "old@example.com", "password": "secret123", "email_verified": True}])
    refused = auth_post(fauxth, "token", {"email": "old@example.com", "password": "secret123"}, grant_type="password")
    assert error(refused, 422, "email_provider_disabled") == "Email logins are disabled"


def test_sms_autoconfirm_also_tells_that_a_confirmed_email_is_registered(supabase_project):
    """signup.go answers user_already_exists when either autoconfirm is on (Mailer.Autoconfirm || Sms.Autoconfirm)."""
    fauxth = supabase_project({"GOTRUE_SMS_AUTOCONFIRM": "true"}, [{"email": "taken@example.com", "password": "secret123", "email_verified": True}])
    again = auth_post(fauxth, "signup", {"email": "taken@example.com", "password": "secret123"})
    assert error(again, 422, "user_already_exists") == "User already registered"


def test_an_invited_user_signing_up_does_not_see_the_invitations_data(fauxth):
    """signup.go removes an invited user's metadata and identities from the answer ("Remove sensitive fields")."""
    assert requests.post(f"{fauxth.url}/auth/v1/invite", json={"email": "invited@example.com", "data": {"secret": "s"}},
                         headers=admin_headers()).status_code == 200
    fauxth.control("POST", "/clock/advance", json={"seconds": 61})
    answer = auth_post(fauxth, "signup", {"email": "invited@example.com", "password": "secret123", "data": {"mine": 1}})
    assert answer.status_code == 200, answer.text
    assert answer.json()["user_metadata"] == {} and answer.json()["identities"] == []


def test_a_password_sign_in_tells_of_a_password_the_policy_now_refuses(supabase_project):
    """token.go's ResourceOwnerPasswordGrant checks a right password against the policy and answers weak_password
    beside the session (auth-js's data.weakPassword); Fauxth said nothing."""
    fauxth = supabase_project({"GOTRUE_PASSWORD_MIN_LENGTH": "10"}, [{"email": "old@example.com", "password": "secret123", "email_verified": True}])
    answer = auth_post(fauxth, "token", {"email": "old@example.com", "password": "secret123"}, grant_type="password")
    assert answer.status_code == 200, answer.text
    assert answer.json()["weak_password"] == {"message": "Password should be at least 10 characters.", "reasons": ["length"]}
    strong = supabase_project({}, [{"email": "fine@example.com", "password": "secret123", "email_verified": True}])
    assert "weak_password" not in auth_post(strong, "token", {"email": "fine@example.com", "password": "secret123"}, grant_type="password").json()
