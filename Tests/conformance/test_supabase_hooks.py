"""Supabase Auth Hooks: GoTrue calls the project's own code over HTTP, signed with Standard Webhooks, at
each hook point; supabase-py sees GoTrue's answers, and the hook server checks the signatures."""
import base64
import datetime
import hashlib
import json

import pyotp
import pytest
import requests
from standardwebhooks.webhooks import Webhook
from supabase import create_client
from supabase_auth.errors import AuthApiError

from conftest import jwt_claims
from test_supabase_slice import ANON_KEY

SECRET = "v1,whsec_" + base64.b64encode(b"fauxth-hook-secret-0123456789abc").decode()


def set_hook(fauxth, point, uri, secrets=SECRET, tenant="default"):
    response = fauxth.control("PUT", f"/tenants/{tenant}/hooks/{point}", json={"uri": uri, "secrets": secrets})
    assert response.status_code == 200, response.text
    return response.json()


def verified(call):
    """The payload, after checking the Standard Webhooks signature as a hook written with the
    standardwebhooks library does (it raises on a bad signature or a stale timestamp)."""
    return Webhook(SECRET.removeprefix("v1,")).verify(call.raw, call.headers)


def auth(fauxth):
    return create_client(fauxth.url, ANON_KEY).auth


def test_custom_access_token_hook_replaces_the_claims_and_is_told_the_method(fauxth, hook_server):
    def answer(call):
        claims = verified(call)["claims"]
        claims["app_metadata"]["plan"] = "pro"
        claims["user_role"] = "gardener"
        return {"claims": claims}
    hook_server.answer = answer
    set_hook(fauxth, "custom_access_token", hook_server.at("/claims"))
    client = auth(fauxth)
    session = client.sign_in_with_password({"email": "alice@example.com", "password": "password123"}).session
    claims = jwt_claims(session.access_token)
    assert claims["user_role"] == "gardener" and claims["app_metadata"]["plan"] == "pro"
    payload = hook_server.calls[0].json
    assert payload["authentication_method"] == "password"
    assert payload["user_id"] == claims["sub"] and payload["claims"]["session_id"] == claims["session_id"]
    assert payload["metadata"]["name"] == "customize-access-token" and payload["metadata"]["ip_address"]
    assert hook_server.calls[0].headers["content-type"] == "application/json"
    # A refresh asks again, as token_refresh.
    refreshed = client.refresh_session().session
    assert jwt_claims(refreshed.access_token)["user_role"] == "gardener"
    assert hook_server.calls[-1].json["authentication_method"] == "token_refresh"


def test_a_custom_token_missing_a_required_claim_is_refused_and_no_session_is_left(fauxth, hook_server):
    def answer(call):
        claims = call.json["claims"]
        del claims["session_id"]
        return {"claims": claims}
    hook_server.answer = answer
    set_hook(fauxth, "custom_access_token", hook_server.at("/claims"))
    with pytest.raises(AuthApiError) as error:
        auth(fauxth).sign_in_with_password({"email": "alice@example.com", "password": "password123"})
    assert error.value.status == 500 and error.value.code == "unexpected_failure"
    assert "output claims do not conform to the expected schema" in error.value.message and "session_id is required" in error.value.message
    alice = next(u for u in fauxth.control("GET", "/tenants/default/users").json()["users"] if u["email"] == "alice@example.com")
    sessions = fauxth.control("GET", f"/tenants/default/users/{alice['id']}/sessions").json()["sessions"]
    assert sessions and not any(s["active"] for s in sessions)


def test_a_hook_error_object_becomes_the_answer(fauxth, hook_server):
    hook_server.answer = lambda call: {"error": {"http_code": 403, "message": "Accounts in this region are paused"}}
    set_hook(fauxth, "custom_access_token", hook_server.at("/claims"))
    response = requests.post(f"{fauxth.url}/auth/v1/token?grant_type=password", headers={"apikey": ANON_KEY},
                             json={"email": "alice@example.com", "password": "password123"})
    assert response.status_code == 403
    assert response.json() == {"code": 403, "error_code": "unknown", "msg": "Accounts in this region are paused"}
    # GoTrue makes the hook's refusal without a code, so it sends no x-sb-error-code (handleResponseErrorHTTP).
    assert "x-sb-error-code" not in response.headers


@pytest.mark.parametrize("answer, status, code, message", [
    (lambda call: (200, "not json", "application/json"), 500, "unexpected_failure", "Error unmarshaling JSON output."),
    (lambda call: (200, "{}", "text/plain"), 400, "hook_payload_invalid_content_type", "Invalid JSON response. Received content-type: text/plain"),
    (lambda call: (500, "boom", "text/plain"), 500, "unexpected_failure", "Unexpected status code returned from hook: 500"),
    (lambda call: (401, "", "text/plain"), 500, "unexpected_failure", "Hook requires authorization token"),
    (lambda call: {"claims": "not an object"}, 500, "unexpected_failure", "Error unmarshaling JSON output."),
    (lambda call: {}, 500, "unexpected_failure", "output claims field is missing"),
    # No output (204) and null claims both reach GoTrue's schema check as nil claims.
    (lambda call: (204, None, None), 500, "unexpected_failure",
     "output claims do not conform to the expected schema: \n- (root): Invalid type. Expected: object, given: null\n"),
    (lambda call: {"claims": None}, 500, "unexpected_failure",
     "output claims do not conform to the expected schema: \n- (root): Invalid type. Expected: object, given: null\n"),
])
def test_bad_hook_answers_give_gotrues_errors(fauxth, hook_server, answer, status, code, message):
    hook_server.answer = answer
    set_hook(fauxth, "custom_access_token", hook_server.at("/claims"))
    with pytest.raises(AuthApiError) as error:
        auth(fauxth).sign_in_with_password({"email": "alice@example.com", "password": "password123"})
    assert (error.value.status, error.value.code, error.value.message) == (status, code, message)


def test_a_hook_that_times_out_under_a_fault_rule_gives_hook_timeout_and_an_event(fauxth, hook_server):
    set_hook(fauxth, "custom_access_token", hook_server.at("/claims"))
    rule = fauxth.control("POST", "/faults", json={"match": {"operation": "supabase:hook.custom_access_token"},
                                                   "effect": {"type": "error", "error": "timeout_error"}})
    assert rule.status_code in (200, 201), rule.text
    with pytest.raises(AuthApiError) as error:
        auth(fauxth).sign_in_with_password({"email": "alice@example.com", "password": "password123"})
    assert (error.value.status, error.value.code) == (422, "hook_timeout")
    assert error.value.message == "Failed to reach hook within maximum time of 5.000000 seconds"
    assert hook_server.calls == []
    event = fauxth.control("GET", "/events?type=hook.called").json()["events"][0]
    assert event["detail"]["outcome"] == "timeout" and event["detail"]["point"] == "custom_access_token"
    assert event["detail"]["fault"] == rule.json()["rules"][0]["id"]


def test_an_unreachable_hook_is_tried_three_times_then_hook_timeout_after_retry(fauxth):
    set_hook(fauxth, "custom_access_token", "http://127.0.0.1:9/claims")
    with pytest.raises(AuthApiError) as error:
        auth(fauxth).sign_in_with_password({"email": "alice@example.com", "password": "password123"})
    assert (error.value.status, error.value.code, error.value.message) == (422, "hook_timeout_after_retry", "Failed to reach hook after maximum retries")
    events = fauxth.control("GET", "/events?type=hook.called").json()["events"]
    assert [e["detail"]["outcome"] for e in events[:3]] == ["unreachable"] * 3


def test_send_email_hook_delivers_instead_and_the_inbox_keeps_what_it_was_handed(fauxth, hook_server):
    hook_server.answer = lambda call: (204, None, None) if verified(call) else (400, "", "text/plain")
    set_hook(fauxth, "send_email", hook_server.at("/email"))
    auth(fauxth).sign_up({"email": "new@example.com", "password": "password123"})
    payload = hook_server.calls[0].json
    data = payload["email_data"]
    assert data["email_action_type"] == "signup" and payload["user"]["email"] == "new@example.com"
    assert len(data["token"]) == 6 and data["token_hash"] and data["site_url"].endswith("/auth/v1")
    message = fauxth.control("GET", "/messages?to=new@example.com").json()["messages"][0]
    assert message["status"] == "hook" and "send_email hook" in message["reason"]
    assert message["codes"] == [data["token"]]
    # The token the hook was given confirms the address, as the hook's own email would.
    verify = requests.post(f"{fauxth.url}/auth/v1/verify", headers={"apikey": ANON_KEY},
                           json={"type": "signup", "token_hash": data["token_hash"]})
    assert verify.status_code == 200, verify.text


def test_an_email_change_is_one_send_email_call_carrying_both_addresses_tokens(fauxth, hook_server):
    """GoTrue's sendEmailChange makes one hook call for a secure email change, with the user's new_email set: token the
    current address's code, token_new the new address's, token_hash the new address's hash and token_hash_new the
    current's (mail.go keeps that crossing). Fauxth made two calls that could not be told apart."""
    hook_server.answer = lambda call: (204, None, None) if verified(call) else (400, "", "text/plain")
    client = auth(fauxth)
    client.sign_in_with_password({"email": "alice@example.com", "password": "password123"})
    set_hook(fauxth, "send_email", hook_server.at("/email"))
    client.update_user({"email": "alice.moved@example.com"})
    [call] = hook_server.calls
    data, user = call.json["email_data"], call.json["user"]
    assert data["email_action_type"] == "email_change"
    assert user["email"] == "alice@example.com" and user["new_email"] == "alice.moved@example.com"
    current = fauxth.control("GET", "/messages?to=alice@example.com").json()["messages"][0]
    moved = fauxth.control("GET", "/messages?to=alice.moved@example.com").json()["messages"][0]
    assert (data["token"], data["token_new"]) == (current["codes"][0], moved["codes"][0])
    # supabase-py is a PKCE client, so the change is a PKCE flow and both hashes carry GoTrue's pkce_ prefix.
    assert data["token_hash"] == "pkce_" + hashlib.sha224(("alice.moved@example.com" + moved["codes"][0]).encode()).hexdigest()
    assert data["token_hash_new"] == "pkce_" + hashlib.sha224(("alice@example.com" + current["codes"][0]).encode()).hexdigest()


def test_a_failing_send_email_hook_fails_the_request(fauxth, hook_server):
    hook_server.answer = lambda call: {"error": {"http_code": 502, "message": "mail provider down"}}
    set_hook(fauxth, "send_email", hook_server.at("/email"))
    response = requests.post(f"{fauxth.url}/auth/v1/recover", headers={"apikey": ANON_KEY}, json={"email": "alice@example.com"})
    assert response.status_code == 502
    assert response.json() == {"code": 502, "error_code": "unknown", "msg": "mail provider down"}


def test_send_sms_hook_gets_the_code_for_a_phone_otp(supabase_project, hook_server):
    fauxth = supabase_project({"GOTRUE_EXTERNAL_PHONE_ENABLED": "true", "GOTRUE_HOOK_SEND_SMS_ENABLED": "true",
                               "GOTRUE_HOOK_SEND_SMS_URI": hook_server.at("/sms"), "GOTRUE_HOOK_SEND_SMS_SECRETS": SECRET})
    hook_server.answer = lambda call: {} if verified(call) else (400, "", "text/plain")
    auth(fauxth).sign_in_with_otp({"phone": "+15555550100"})
    sms = hook_server.calls[0].json["sms"]
    assert sms["phone"] == "15555550100" and len(sms["otp"]) == 6
    session = auth(fauxth).verify_otp({"phone": "+15555550100", "token": sms["otp"], "type": "sms"}).session
    assert session.access_token
    message = fauxth.control("GET", "/messages").json()["messages"][0]
    assert message["status"] == "hook" and message["codes"] == [sms["otp"]]


def test_password_verification_hook_can_reject_and_log_the_user_out(fauxth, hook_server):
    client = auth(fauxth)
    client.sign_in_with_password({"email": "alice@example.com", "password": "password123"})
    hook_server.answer = lambda call: ({"decision": "reject", "message": "Too many attempts", "should_logout_user": True}
                                       if not call.json["valid"] else {"decision": "continue"})
    set_hook(fauxth, "password_verification_attempt", hook_server.at("/password"))
    with pytest.raises(AuthApiError) as error:
        auth(fauxth).sign_in_with_password({"email": "alice@example.com", "password": "wrong-password"})
    assert (error.value.status, error.value.code, error.value.message) == (400, "invalid_credentials", "Too many attempts")
    assert hook_server.calls[0].json["valid"] is False
    # The earlier session was ended by should_logout_user.
    with pytest.raises(AuthApiError):
        client.refresh_session()
    assert auth(fauxth).sign_in_with_password({"email": "alice@example.com", "password": "password123"}).session
    assert hook_server.calls[-1].json["valid"] is True


def test_mfa_verification_hook_can_reject_a_right_code(fauxth, hook_server):
    client = auth(fauxth)
    client.sign_in_with_password({"email": "alice@example.com", "password": "password123"})
    factor = client.mfa.enroll({"factor_type": "totp"})
    at = datetime.datetime.fromisoformat(fauxth.control("GET", "/clock").json()["now"].replace("Z", "+00:00"))
    hook_server.answer = lambda call: {"decision": "reject", "message": "Not from this device"}
    set_hook(fauxth, "mfa_verification_attempt", hook_server.at("/mfa"))
    challenge = client.mfa.challenge({"factor_id": factor.id})
    with pytest.raises(AuthApiError) as error:
        client.mfa.verify({"factor_id": factor.id, "challenge_id": challenge.id, "code": pyotp.TOTP(factor.totp.secret).at(at)})
    assert (error.value.status, error.value.code, error.value.message) == (403, "mfa_verification_rejected", "Not from this device")
    payload = hook_server.calls[0].json
    assert payload["valid"] is True and payload["factor_id"] == factor.id and payload["factor_type"] == "totp"
    # GoTrue asks the hook before it records anything: the factor stays unverified (Fauxth had verified it).
    from test_supabase_admin import SERVICE_ROLE_KEY
    listed = requests.get(f"{fauxth.url}/auth/v1/admin/users/{payload['user_id']}/factors",
                          headers={"apikey": SERVICE_ROLE_KEY, "Authorization": f"Bearer {SERVICE_ROLE_KEY}"}).json()
    assert [f["status"] for f in listed] == ["unverified"]


def test_before_user_created_can_refuse_a_sign_up_and_sees_the_user(fauxth, hook_server):
    def answer(call):
        if call.json["user"]["email"].endswith("@example.com"):
            return {}
        return {"error": {"http_code": 400, "message": "Only example.com addresses may sign up"}}
    hook_server.answer = answer
    set_hook(fauxth, "before_user_created", hook_server.at("/before"))
    with pytest.raises(AuthApiError) as error:
        auth(fauxth).sign_up({"email": "mallory@elsewhere.test", "password": "password123"})
    assert (error.value.status, error.value.message) == (400, "Only example.com addresses may sign up")
    users = fauxth.control("GET", "/tenants/default/users").json()["users"]
    assert not any(u["email"] == "mallory@elsewhere.test" for u in users)
    created = auth(fauxth).sign_up({"email": "dora@example.com", "password": "password123"}).user
    # The hook saw the id the user was then created with.
    assert hook_server.calls[-1].json["user"]["id"] == created.id
    assert hook_server.calls[-1].json["user"]["app_metadata"] == {"provider": "email", "providers": ["email"]}
    # Not saved yet: Go's zero time, as GoTrue's models.NewUser leaves the stamps.
    assert hook_server.calls[-1].json["user"]["created_at"] == "0001-01-01T00:00:00Z"


def test_admin_created_users_skip_the_user_created_hooks(fauxth, hook_server):
    hook_server.answer = lambda call: {"error": {"http_code": 400, "message": "no"}}
    set_hook(fauxth, "before_user_created", hook_server.at("/before"))
    from test_supabase_admin import SERVICE_ROLE_KEY
    admin = create_client(fauxth.url, SERVICE_ROLE_KEY).auth.admin
    admin.create_user({"email": "staff@example.com", "password": "password123"})
    assert hook_server.calls == []


def test_hooks_are_set_read_and_cleared_through_the_control_api_and_reset_restores_the_seed(fauxth, hook_server):
    answer = set_hook(fauxth, "send_sms", hook_server.at("/sms"))
    assert answer["hooks"]["send_sms"]["uri"] == hook_server.at("/sms")
    assert "custom_access_token" in answer["points"]
    env = fauxth.control("GET", "/tenants/default").json()["settings"]["gotrue_env"]
    assert env["GOTRUE_HOOK_SEND_SMS_ENABLED"] == "true" and env["GOTRUE_HOOK_SEND_SMS_URI"] == hook_server.at("/sms")
    assert fauxth.control("DELETE", "/tenants/default/hooks/send_sms").json()["hooks"] == {}
    set_hook(fauxth, "send_sms", hook_server.at("/sms"))
    fauxth.control("POST", "/reset")
    assert fauxth.control("GET", "/tenants/default/hooks").json()["hooks"] == {}


@pytest.mark.parametrize("uri, secrets, expected", [
    ("pg-functions://postgres/public/custom_access_token", SECRET, "needs the project's database"),
    ("http://hooks.example.com/claims", SECRET, "only localhost, 127.0.0.1, and ::1 are supported with http"),
    ("https://hooks.example.com/claims", "whsec_nope", "invalid secret format"),
])
def test_hooks_gotrue_would_refuse_are_refused(fauxth, uri, secrets, expected):
    response = fauxth.control("PUT", "/tenants/default/hooks/custom_access_token", json={"uri": uri, "secrets": secrets})
    assert response.status_code == 400 and expected in response.text
    assert fauxth.control("PUT", "/tenants/default/hooks/custom_acces_token", json={"uri": "http://127.0.0.1:1/"}).status_code == 404


def test_a_pg_functions_hook_in_the_environment_stops_start_up_saying_how_to_serve_it(tmp_path):
    import subprocess
    from conftest import BINARY
    seed = tmp_path / "seed.json"
    seed.write_text(json.dumps({"tenants": [{"id": "default", "dialect": "supabase", "gotrue_env": {
        "GOTRUE_JWT_SECRET": "super-secret-jwt-token-with-at-least-32-characters-long",
        "GOTRUE_HOOK_CUSTOM_ACCESS_TOKEN_ENABLED": "true",
        "GOTRUE_HOOK_CUSTOM_ACCESS_TOKEN_URI": "pg-functions://postgres/public/custom_access_token"}}]}))
    result = subprocess.run([BINARY, "serve", "--port", "0", "--seed", str(seed)], capture_output=True, text=True, timeout=30)
    assert result.returncode != 0
    assert "GOTRUE_HOOK_CUSTOM_ACCESS_TOKEN_URI" in result.stderr and "over HTTP" in result.stderr


def test_a_recorded_hook_call_can_be_replayed(fauxth, hook_server):
    hook_server.answer = lambda call: {"claims": call.json["claims"]}
    set_hook(fauxth, "custom_access_token", hook_server.at("/claims"))
    auth(fauxth).sign_in_with_password({"email": "alice@example.com", "password": "password123"})
    event = fauxth.control("GET", "/events?type=hook.called").json()["events"][0]
    assert event["detail"]["request"]["headers"]["webhook-signature"].startswith("v1,")
    assert event["detail"]["response"]["status"] == 200
    replay = fauxth.control("POST", f"/events/{event['id']}/replay").json()["event"]
    assert replay["detail"]["replay_of"] == event["id"] and replay["detail"]["outcome"] == "answered"
    assert len(hook_server.calls) == 2
    # Signed afresh: the replay verifies like the first call.
    assert verified(hook_server.calls[1])["user_id"] == event["detail"]["request"]["body"]["user_id"]
    assert fauxth.control("POST", "/events/nope/replay").status_code == 404


def users_with_email(fauxth, email):
    return fauxth.control("GET", "/tenants/default/users", params={"email": email}).json()["users"]


def test_a_sign_up_whose_confirmation_cannot_be_sent_leaves_no_user(fauxth, hook_server):
    # GoTrue creates the user and sends the confirmation in one transaction.
    hook_server.answer = lambda call: {"error": {"http_code": 502, "message": "mail provider down"}}
    set_hook(fauxth, "send_email", hook_server.at("/email"))
    response = requests.post(f"{fauxth.url}/auth/v1/signup", headers={"apikey": ANON_KEY},
                             json={"email": "rolled-back@example.com", "password": "password123"})
    assert response.status_code == 502 and response.json()["msg"] == "mail provider down"
    assert users_with_email(fauxth, "rolled-back@example.com") == []
    # So the same sign-up works once the mail goes out.
    hook_server.answer = lambda call: (204, None, None)
    assert auth(fauxth).sign_up({"email": "rolled-back@example.com", "password": "password123"}).user.email == "rolled-back@example.com"


def test_after_user_created_is_told_once_the_confirmation_is_sent(fauxth, hook_server):
    hook_server.answer = lambda call: (204, None, None) if verified(call) else (400, "", "text/plain")
    set_hook(fauxth, "send_email", hook_server.at("/email"))
    set_hook(fauxth, "after_user_created", hook_server.at("/after"))
    user = auth(fauxth).sign_up({"email": "after@example.com", "password": "password123", "options": {"data": {"team": "red"}}}).user
    assert [call.path for call in hook_server.calls] == ["/email", "/after"]
    payload = hook_server.calls[1].json
    assert payload["user"]["id"] == user.id and payload["user"]["email"] == "after@example.com"
    assert payload["user"]["user_metadata"]["team"] == "red" and payload["metadata"]["name"] == "after-user-created"


def test_after_user_created_failing_is_gotrues_500_and_the_user_stays(fauxth, hook_server):
    hook_server.answer = lambda call: {"error": {"http_code": 409, "message": "profile row exists"}}
    set_hook(fauxth, "after_user_created", hook_server.at("/after"))
    with pytest.raises(AuthApiError) as error:
        auth(fauxth).sign_up({"email": "stays@example.com", "password": "password123"})
    assert (error.value.status, error.value.code, error.value.message) == (500, "unexpected_failure", "Error invoking hook")
    assert [u["email"] for u in users_with_email(fauxth, "stays@example.com")] == ["stays@example.com"]


def test_an_auto_confirmed_sign_up_does_not_call_after_user_created(supabase_project, hook_server):
    # GoTrue's /signup answers an auto-confirmed sign-up with its session before the after-user-created call.
    server = supabase_project({"GOTRUE_MAILER_AUTOCONFIRM": "true", "GOTRUE_HOOK_AFTER_USER_CREATED_ENABLED": "true",
                               "GOTRUE_HOOK_AFTER_USER_CREATED_URI": hook_server.at("/after"), "GOTRUE_HOOK_AFTER_USER_CREATED_SECRETS": SECRET})
    session = auth(server).sign_up({"email": "instant@example.com", "password": "password123"}).session
    assert session.access_token and hook_server.calls == []
