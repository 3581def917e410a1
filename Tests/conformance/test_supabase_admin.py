"""The admin API through supabase-py's `auth.admin`, with the well-known local service_role key."""
import base64
import hashlib

import pytest
import requests
from supabase import create_client
from supabase_auth.errors import AuthApiError

from conftest import jwt_claims
from test_supabase_slice import ANON_KEY

SERVICE_ROLE_KEY = (
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJpc3MiOiJzdXBhYmFzZS1kZW1vIiwicm9sZSI6InNlcnZpY2Vfcm9sZSIsImV4cCI6MTk4MzgxMjk5Nn0."
    "EGIM96RAZx35lJzdJsyH-qQwv8Hdp7fsn3W0YpN81IU"
)


def admin(fauxth):
    return create_client(fauxth.url, SERVICE_ROLE_KEY).auth.admin


def test_create_get_update_and_delete_a_user(fauxth):
    api = admin(fauxth)
    created = api.create_user({"email": "admin-made@example.com", "password": "secret123", "email_confirm": True,
                               "user_metadata": {"name": "Made"}}).user
    assert created.email_confirmed_at is not None
    assert api.get_user_by_id(created.id).user.email == "admin-made@example.com"
    updated = api.update_user_by_id(created.id, {"user_metadata": {"team": "red"}, "app_metadata": {"plan": "pro"}}).user
    assert updated.user_metadata["team"] == "red" and updated.user_metadata["name"] == "Made"
    assert updated.app_metadata["plan"] == "pro"
    session = create_client(fauxth.url, ANON_KEY).auth.sign_in_with_password(
        {"email": "admin-made@example.com", "password": "secret123"}).session
    assert session.user.id == created.id
    api.delete_user(created.id)
    with pytest.raises(AuthApiError) as error:
        api.get_user_by_id(created.id)
    assert error.value.code == "user_not_found"


def obfuscated(user_id, value):
    """GoTrue's obfuscateValue (models/user.go): base64url, unpadded, of SHA-256 of the id's text followed by the value."""
    return base64.urlsafe_b64encode(hashlib.sha256((user_id + value).encode()).digest()).decode().rstrip("=")


def test_a_soft_deleted_user_stays_obfuscated_and_signs_in_no_more(fauxth):
    """GoTrue's soft delete (adminUserDelete with should_soft_delete, SoftDeleteUser, SoftDeleteUserIdentities): the user
    stays readable and listed with deleted_at, every name a hash of the id and the name, metadata emptied, identities
    kept empty under new subjects, and nothing left to sign in with. Fauxth deleted the user outright."""
    api = admin(fauxth)
    carol = "00000000-0000-4000-8000-0000000ca201"  # the seed's carol@example.com, +15555550100, with a password
    auth = create_client(fauxth.url, ANON_KEY).auth
    session = auth.sign_in_with_password({"email": "carol@example.com", "password": "password123"}).session
    api.delete_user(carol, should_soft_delete=True)
    user = requests.get(f"{fauxth.url}/auth/v1/admin/users/{carol}", timeout=10,
                        headers={"apikey": SERVICE_ROLE_KEY, "Authorization": f"Bearer {SERVICE_ROLE_KEY}"}).json()
    assert user["deleted_at"]
    assert user["email"] == obfuscated(carol, "carol@example.com")
    assert user["phone"] == obfuscated(carol, "15555550100")[:15]
    assert user["new_email"] == obfuscated(carol, "") and user["new_phone"] == obfuscated(carol, "")[:15]
    assert user["user_metadata"] == {} and user["app_metadata"] == {}
    assert {identity["provider"]: identity["id"] for identity in user["identities"]} == {
        "email": obfuscated(carol, f"email:{carol}"), "phone": obfuscated(carol, f"phone:{carol}")}
    assert all(identity["identity_data"] == {"email_verified": False, "phone_verified": False} and "email" not in identity
               for identity in user["identities"])
    assert carol in [listed.id for listed in api.list_users(page=1, per_page=50)]
    # Nothing signs in as the user again: not the password, not the old session's refresh token.
    with pytest.raises(AuthApiError) as refused:
        auth.sign_in_with_password({"email": "carol@example.com", "password": "password123"})
    assert refused.value.code == "invalid_credentials"
    refreshed = requests.post(f"{fauxth.url}/auth/v1/token", params={"grant_type": "refresh_token"}, headers={"apikey": ANON_KEY},
                              json={"refresh_token": session.refresh_token}, timeout=10)
    assert refreshed.status_code == 400 and refreshed.json()["error_code"] == "refresh_token_not_found", refreshed.text
    # The address is free again, a repeat answers {} and changes nothing, and a hard delete still removes the row.
    assert api.create_user({"email": "carol@example.com", "password": "secret123", "email_confirm": True}).user.id != carol
    repeat = requests.delete(f"{fauxth.url}/auth/v1/admin/users/{carol}", json={"should_soft_delete": True}, timeout=10,
                             headers={"apikey": SERVICE_ROLE_KEY, "Authorization": f"Bearer {SERVICE_ROLE_KEY}"})
    assert repeat.status_code == 200 and repeat.json() == {}
    again = requests.get(f"{fauxth.url}/auth/v1/admin/users/{carol}", timeout=10,
                         headers={"apikey": SERVICE_ROLE_KEY, "Authorization": f"Bearer {SERVICE_ROLE_KEY}"}).json()
    assert again["deleted_at"] == user["deleted_at"] and again["email"] == user["email"]
    api.delete_user(carol)
    with pytest.raises(AuthApiError) as gone:
        api.get_user_by_id(carol)
    assert gone.value.code == "user_not_found"


def test_an_administrators_role_reaches_the_users_tokens(fauxth):
    """GoTrue's admin `role` (AdminUserParams.Role, SetRole trims it) is the role claim of the user's tokens, the
    Postgres role row-level security sees; Fauxth ignored it."""
    api = admin(fauxth)
    made = api.create_user({"email": "editor@example.com", "password": "secret123", "email_confirm": True, "role": "editor"}).user
    assert made.role == "editor"
    auth = create_client(fauxth.url, ANON_KEY).auth
    session = auth.sign_in_with_password({"email": "editor@example.com", "password": "secret123"}).session
    assert jwt_claims(session.access_token)["role"] == "editor"
    assert api.update_user_by_id(made.id, {"role": "  moderator "}).user.role == "moderator"
    refreshed = auth.refresh_session().session
    assert jwt_claims(refreshed.access_token)["role"] == "moderator"


def test_an_administrators_new_email_keeps_the_confirmation(fauxth):
    """GoTrue's adminUserUpdate writes the new address alone (SetEmail) and puts it, with email_verified as the call
    said, in the email identity; Fauxth unconfirmed the user, whose sign-in then failed email_not_confirmed."""
    api = admin(fauxth)
    made = api.create_user({"email": "moving@example.com", "password": "secret123", "email_confirm": True}).user
    moved = api.update_user_by_id(made.id, {"email": "moved@example.com"}).user
    assert moved.email == "moved@example.com" and moved.email_confirmed_at == made.email_confirmed_at
    [identity] = moved.identities
    assert identity.identity_data["email"] == "moved@example.com" and identity.identity_data["email_verified"] is False
    session = create_client(fauxth.url, ANON_KEY).auth.sign_in_with_password({"email": "moved@example.com", "password": "secret123"}).session
    assert session.user.id == made.id


def test_list_users_pages(fauxth):
    api = admin(fauxth)
    everyone = api.list_users()
    assert {u.email for u in everyone} >= {"alice@example.com", "bob@example.com", "carol@example.com"}
    first_page = api.list_users(page=1, per_page=2)
    second_page = api.list_users(page=2, per_page=2)
    assert len(first_page) == 2 and len(second_page) == 1
    assert {u.id for u in first_page}.isdisjoint({u.id for u in second_page})
    # The Link header as GoTrue writes it: the request's own query (supabase-js sends page= and per_page= empty), re-encoded.
    raw = requests.get(f"{fauxth.url}/auth/v1/admin/users?page=&per_page=", headers={"apikey": SERVICE_ROLE_KEY,
                                                                                     "Authorization": f"Bearer {SERVICE_ROLE_KEY}"})
    assert raw.headers["Link"] == '</admin/users?page=1&per_page=>; rel="last"'


def test_the_admin_filter_is_gotrues(fauxth):
    """The dashboard's search (GET /admin/users?filter=): GoTrue's `email LIKE` keeps case, `full_name ILIKE` does not,
    and neither reads the phone (Fauxth's searched the phone and ignored case everywhere)."""
    api = admin(fauxth)
    api.create_user({"email": "Searched.Person@example.com", "user_metadata": {"full_name": "Searchable Person"}})
    api.create_user({"phone": "+15550009876", "phone_confirm": True})

    def emails(text):
        raw = requests.get(f"{fauxth.url}/auth/v1/admin/users", params={"filter": text},
                           headers={"apikey": SERVICE_ROLE_KEY, "Authorization": f"Bearer {SERVICE_ROLE_KEY}"})
        assert raw.status_code == 200 and raw.headers["X-Total-Count"] == str(len(raw.json()["users"]))
        return [u["email"] for u in raw.json()["users"]]
    # GoTrue keeps addresses in lower case, so a capital never finds one; the full name is found in any case.
    assert emails("searched.") == ["searched.person@example.com"]
    assert emails("Searched.") == []
    assert emails("SEARCHABLE") == ["searched.person@example.com"]
    assert emails("0009876") == []


def test_generate_link_gives_a_working_otp_without_sending_mail(fauxth):
    api = admin(fauxth)
    link = api.generate_link({"type": "magiclink", "email": "alice@example.com", "options": {"redirect_to": "myapp://in"}})
    properties = link.properties
    assert properties.verification_type == "magiclink"
    assert properties.hashed_token == hashlib.sha224(("alice@example.com" + properties.email_otp).encode()).hexdigest()
    assert properties.action_link.endswith("type=magiclink&redirect_to=myapp://in")
    assert link.user.email == "alice@example.com"
    assert fauxth.control("GET", "/messages", params={"to": "alice@example.com"}).json()["messages"] == []
    session = create_client(fauxth.url, ANON_KEY).auth.verify_otp(
        {"email": "alice@example.com", "token": properties.email_otp, "type": "magiclink"}).session
    assert session.user.email == "alice@example.com"


def test_generate_link_signs_up_as_gotrue_does(fauxth):
    """A sign-up link for a new address needs a password (supabase-py's generate_link, GoTrue's validateSignupParams);
    the body's redirect_to, as GoTrue's docs send it with curl, is read; a second link merges data into the metadata."""
    api = admin(fauxth)
    with pytest.raises(AuthApiError) as error:
        api.generate_link({"type": "signup", "email": "linked@example.com", "password": ""})
    assert (error.value.code, error.value.message) == ("validation_failed", "Signup requires a valid password")
    raw = requests.post(f"{fauxth.url}/auth/v1/admin/generate_link",
                        json={"type": "signup", "email": "linked@example.com", "password": "secret123", "data": {"plan": "free"},
                              "redirect_to": "myapp://welcome"},
                        headers={"apikey": SERVICE_ROLE_KEY, "Authorization": f"Bearer {SERVICE_ROLE_KEY}"})
    assert raw.status_code == 200 and raw.json()["redirect_to"] == "myapp://welcome"
    assert raw.json()["action_link"].endswith("type=signup&redirect_to=myapp://welcome")
    again = api.generate_link({"type": "signup", "email": "linked@example.com", "password": "ignored1",
                               "options": {"data": {"plan": "pro", "team": "red"}}})
    assert again.user.user_metadata == {"plan": "pro", "team": "red"}


def test_invite_user_by_email_sends_an_invitation(fauxth):
    user = admin(fauxth).invite_user_by_email("invitee@example.com", {"data": {"team": "blue"}}).user
    assert user.email == "invitee@example.com"
    message = fauxth.wait_message("invitee@example.com", purpose="invite")
    session = create_client(fauxth.url, ANON_KEY).auth.verify_otp(
        {"email": "invitee@example.com", "token": message["codes"][0], "type": "invite"}).session
    assert session.user.id == user.id


def test_the_anon_key_is_not_an_admin(fauxth):
    with pytest.raises(AuthApiError) as error:
        create_client(fauxth.url, ANON_KEY).auth.admin.list_users()
    assert error.value.code == "not_admin"


def test_a_bcrypt_hash_from_another_system_signs_in_with_its_password(fauxth):
    # "password123" at bcrypt cost 10, the cost most exporters use: the import keeps it.
    bcrypt_hash = "$2b$10$ZC44FOUoxdHcUiGzi.NXleekWxpbJyXSfOm84OuYpzHljUIDHKY0e"
    created = admin(fauxth).create_user({"email": "imported@example.com", "password_hash": bcrypt_hash,
                                         "email_confirm": True}).user
    auth = create_client(fauxth.url, ANON_KEY).auth
    session = auth.sign_in_with_password({"email": "imported@example.com", "password": "password123"}).session
    assert session.user.id == created.id
    with pytest.raises(AuthApiError) as error:
        auth.sign_in_with_password({"email": "imported@example.com", "password": "password124"})
    assert error.value.code == "invalid_credentials"


def test_a_password_is_measured_in_bytes_and_over_72_is_refused_on_the_admin_api_too(fauxth):
    # GoTrue's checkPasswordStrength, on every path that sets a password: Go's len counts bytes, and bcrypt stops at 72.
    api = admin(fauxth)
    with pytest.raises(AuthApiError) as refused:
        api.create_user({"email": "long@example.com", "password": "é" * 37, "email_confirm": True})
    assert refused.value.status == 400
    assert refused.value.message == "Password cannot be longer than 72 characters"
    assert api.create_user({"email": "bytes@example.com", "password": "ééé", "email_confirm": True}).user.email == "bytes@example.com"


def test_a_ban_duration_is_read_as_go_reads_it(fauxth):
    # GoTrue passes ban_duration to Go's time.ParseDuration and quotes its error. A number of 400 digits (an infinite
    # duration) and another script's digits each ended the process.
    api = admin(fauxth)
    user = api.create_user({"email": "banned@example.com", "password": "secret123", "email_confirm": True}).user
    for duration, go_error in (("9" * 400 + "h", f'time: invalid duration "{"9" * 400}h"'),
                               ("١h", r'time: invalid duration "\xd9\xa1h"'), ("24", 'time: missing unit in duration "24"')):
        with pytest.raises(AuthApiError) as refused:
            api.update_user_by_id(user.id, {"ban_duration": duration})
        assert refused.value.status == 400
        assert refused.value.message == f"invalid format for ban duration: {go_error}"
    assert api.update_user_by_id(user.id, {"ban_duration": "-1h"}).user.banned_until is not None
    assert api.update_user_by_id(user.id, {"ban_duration": "0"}).user.banned_until is None


def test_admin_users_are_made_and_read_as_gotrue_does(fauxth):
    """GoTrue's adminUserCreate checks no password strength (a test suite's "123" is fine), get_user_by_id answers the
    user's factors (apps check MFA there), and email_confirm records email_verified in the metadata."""
    api = admin(fauxth)
    made = api.create_user({"email": "weak@example.com", "password": "123", "email_confirm": True}).user
    auth = create_client(fauxth.url, ANON_KEY).auth
    auth.sign_in_with_password({"email": "weak@example.com", "password": "123"})
    auth.mfa.enroll({"factor_type": "totp", "friendly_name": "Authenticator"})
    assert [f.friendly_name for f in api.get_user_by_id(made.id).user.factors] == ["Authenticator"]
    later = api.create_user({"email": "confirm-later@example.com"}).user
    assert api.update_user_by_id(later.id, {"email_confirm": True}).user.user_metadata["email_verified"] is True
