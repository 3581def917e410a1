"""PKCE and SRP cannot be skipped: an auth code is worth nothing without the verifier of its challenge (wrong,
missing, the challenge itself, reused, another client's, another redirect URI), and Cognito's PASSWORD_VERIFIER gives
tokens only for a signature made with the password, over the secret block it issued, once; a client allowed only SRP
cannot fall back to sending the password."""
import base64
import hashlib
import secrets

import pytest
import requests
from pycognito.aws_srp import AWSSRP

from conftest import COGNITO_CLIENT, COGNITO_PASSWORD, COGNITO_POOL, query
from test_cognito_hosted_ui import REDIRECT, exchange, oauth_error, pkce, sign_in
from test_tampering import ANON_KEY

pytestmark = pytest.mark.reliability


# --- Supabase PKCE -----------------------------------------------------------------------------------------------

def supabase_code(fauxth, email="alice@example.com", method="s256"):
    """A magic link asked for with a PKCE challenge, followed: the `?code=` it redirects with, and the verifier."""
    verifier = secrets.token_urlsafe(48)
    challenge = verifier if method == "plain" else \
        base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    since = fauxth.control("GET", "/messages", params={"to": email}).json()["messages"]
    response = requests.post(f"{fauxth.url}/auth/v1/otp", params={"redirect_to": "myapp://auth/callback"},
                             json={"email": email, "code_challenge": challenge, "code_challenge_method": method},
                             headers={"apikey": ANON_KEY, "X-Supabase-Api-Version": "2024-01-01"}, timeout=30)
    assert response.status_code == 200, response.text
    messages = fauxth.control("GET", "/messages", params={"to": email}).json()["messages"]
    [message] = [m for m in messages if m["id"] not in {s["id"] for s in since} and m["purpose"] == "magic_link"]
    location = requests.get(message["links"][0], allow_redirects=False, timeout=30).headers["Location"]
    assert location.startswith("myapp://auth/callback?code="), location
    return query(location)["code"], verifier, challenge


def pkce_grant(fauxth, body):
    return requests.post(f"{fauxth.url}/auth/v1/token", params={"grant_type": "pkce"}, json=body, timeout=30,
                         headers={"apikey": ANON_KEY, "X-Supabase-Api-Version": "2024-01-01"})


def refused(response, status, code):
    assert response.status_code == status and response.json()["code"] == code, response.text
    assert "access_token" not in response.text


def test_a_supabase_auth_code_needs_its_own_verifier_once(fauxth, figures):
    code, verifier, challenge = supabase_code(fauxth)
    refused(pkce_grant(fauxth, {"auth_code": code, "code_verifier": secrets.token_urlsafe(48)}), 400, "bad_code_verifier")
    refused(pkce_grant(fauxth, {"auth_code": code, "code_verifier": challenge}), 400, "bad_code_verifier")  # plain != S256
    refused(pkce_grant(fauxth, {"auth_code": code, "code_verifier": verifier[:-1]}), 400, "bad_code_verifier")
    refused(pkce_grant(fauxth, {"auth_code": code, "code_verifier": verifier + " "}), 400, "bad_code_verifier")
    refused(pkce_grant(fauxth, {"auth_code": code}), 400, "validation_failed")
    refused(pkce_grant(fauxth, {"auth_code": code, "code_verifier": ""}), 400, "validation_failed")
    refused(pkce_grant(fauxth, {"code_verifier": verifier}), 400, "validation_failed")
    refused(pkce_grant(fauxth, {"auth_code": code[:-1] + ("0" if code[-1] != "0" else "1"), "code_verifier": verifier}), 404,
            "flow_state_not_found")
    done = pkce_grant(fauxth, {"auth_code": code, "code_verifier": verifier})
    assert done.status_code == 200 and done.json()["user"]["email"] == "alice@example.com", done.text
    refused(pkce_grant(fauxth, {"auth_code": code, "code_verifier": verifier}), 404, "flow_state_not_found")
    figures("flow steps skipped or forged", 10)


def test_a_plain_supabase_challenge_wants_the_verifier_itself(fauxth, figures):
    code, verifier, _ = supabase_code(fauxth, method="plain")
    hashed = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    refused(pkce_grant(fauxth, {"auth_code": code, "code_verifier": hashed}), 400, "bad_code_verifier")
    assert pkce_grant(fauxth, {"auth_code": code, "code_verifier": verifier}).status_code == 200
    figures("flow steps skipped or forged", 1)


def test_a_supabase_auth_code_expires(fauxth, figures):
    code, verifier, _ = supabase_code(fauxth)
    fauxth.control("POST", "/clock/freeze")
    fauxth.control("POST", "/clock/advance", json={"seconds": 3600})
    response = pkce_grant(fauxth, {"auth_code": code, "code_verifier": verifier})
    assert response.status_code in (404, 422) and response.json()["code"] in ("flow_state_expired", "flow_state_not_found"), response.text
    figures("flow steps skipped or forged", 1)


# --- Cognito hosted UI PKCE --------------------------------------------------------------------------------------

def test_a_cognito_code_needs_its_verifier_client_and_redirect_uri(cognito, figures):
    attempts = [
        ("no verifier", lambda code, verifier: exchange(cognito, code, None)),
        ("empty verifier", lambda code, verifier: exchange(cognito, code, "")),
        ("wrong verifier", lambda code, verifier: exchange(cognito, code, pkce()[0])),
        ("the challenge as verifier", lambda code, verifier: exchange(
            cognito, code, base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode())),
        ("another redirect_uri", lambda code, verifier: exchange(cognito, code, verifier, redirect_uri="myapp://callback")),
        ("a look-alike redirect_uri", lambda code, verifier: exchange(cognito, code, verifier, redirect_uri=REDIRECT + "/")),
        ("no redirect_uri", lambda code, verifier: requests.post(f"{cognito.url}/oauth2/token", timeout=30, data={
            "grant_type": "authorization_code", "client_id": COGNITO_CLIENT, "code": code, "code_verifier": verifier})),
    ]
    other_client = cognito.create_client(COGNITO_POOL, SupportedIdentityProviders=["COGNITO"], CallbackURLs=[REDIRECT],
                                         AllowedOAuthFlows=["code"], AllowedOAuthScopes=["openid", "email"],
                                         AllowedOAuthFlowsUserPoolClient=True)["ClientId"]
    attempts.append(("another client", lambda code, verifier: requests.post(f"{cognito.url}/oauth2/token", timeout=30, data={
        "grant_type": "authorization_code", "client_id": other_client, "code": code, "redirect_uri": REDIRECT,
        "code_verifier": verifier})))
    for name, attempt in attempts:
        code, verifier, _, _ = sign_in(cognito)
        response = attempt(code, verifier)
        # Another redirect_uri is AWS's unauthorized_client / invalid_redirect (the token endpoint's reference).
        assert response.status_code == 400 and response.json()["error"] in ("invalid_grant", "invalid_request", "unauthorized_client"), \
            (name, response.text)
        assert "access_token" not in response.text
        if response.json()["error"] in ("invalid_grant", "unauthorized_client"):
            # A code redeemed wrongly is spent: the right verifier cannot follow it (no guessing against one code).
            assert oauth_error(exchange(cognito, code, verifier)) == "invalid_grant", name
    code, verifier, _, _ = sign_in(cognito)
    assert exchange(cognito, code, verifier).status_code == 200
    assert oauth_error(exchange(cognito, code, verifier)) == "invalid_grant"
    figures("flow steps skipped or forged", len(attempts) * 2 + 1)


# --- Cognito SRP -------------------------------------------------------------------------------------------------

def srp_start(cognito, username="alice@example.com", password=COGNITO_PASSWORD, client_id=COGNITO_CLIENT):
    aws_srp = AWSSRP(username=username, password=password, pool_id=COGNITO_POOL, client_id=client_id,
                     client=cognito.boto3_client())
    auth_params = aws_srp.get_auth_params()
    started = cognito.idp.initiate_auth(ClientId=client_id, AuthFlow="USER_SRP_AUTH", AuthParameters=auth_params)
    assert started["ChallengeName"] == "PASSWORD_VERIFIER"
    return aws_srp, auth_params, started


def srp_answer(aws_srp, auth_params, started, timestamp=None, **changed_params):
    """pycognito's answer, optionally over changed challenge parameters or with another TIMESTAMP text."""
    params = {**started["ChallengeParameters"], **changed_params}
    if timestamp is not None:
        aws_srp.get_cognito_formatted_timestamp = lambda _: timestamp
    return aws_srp.process_challenge(params, auth_params)


def respond(cognito, answer, session=None, challenge="PASSWORD_VERIFIER"):
    params = {"ClientId": COGNITO_CLIENT, "ChallengeName": challenge, "ChallengeResponses": answer}
    if session:
        params["Session"] = session
    return params


def refused_srp(cognito, answer, session=None, challenge="PASSWORD_VERIFIER", codes=("NotAuthorizedException",)):
    error = cognito.fails("respond_to_auth_challenge", **respond(cognito, answer, session, challenge))
    assert error["Code"] in codes, error
    return error


def flip(b64text, index=0):
    raw = bytearray(base64.b64decode(b64text))
    raw[index] ^= 1
    return base64.b64encode(bytes(raw)).decode()


def test_a_password_verifier_answer_must_be_signed_with_the_password(cognito, figures):
    cases = 0
    for name, make in [
        ("signature flipped", lambda s, a, st: {**srp_answer(s, a, st), "PASSWORD_CLAIM_SIGNATURE": flip(srp_answer(s, a, st)["PASSWORD_CLAIM_SIGNATURE"])}),
        ("signature missing", lambda s, a, st: {k: v for k, v in srp_answer(s, a, st).items() if k != "PASSWORD_CLAIM_SIGNATURE"}),
        ("signature empty", lambda s, a, st: {**srp_answer(s, a, st), "PASSWORD_CLAIM_SIGNATURE": ""}),
        ("signature not base64", lambda s, a, st: {**srp_answer(s, a, st), "PASSWORD_CLAIM_SIGNATURE": "%%%"}),
        ("secret block missing", lambda s, a, st: {k: v for k, v in srp_answer(s, a, st).items() if k != "PASSWORD_CLAIM_SECRET_BLOCK"}),
        ("timestamp missing", lambda s, a, st: {k: v for k, v in srp_answer(s, a, st).items() if k != "TIMESTAMP"}),
        ("timestamp ISO 8601", lambda s, a, st: srp_answer(s, a, st, timestamp="2024-01-01T00:00:00Z")),
        ("timestamp empty", lambda s, a, st: srp_answer(s, a, st, timestamp="")),
        ("wrong password", lambda s, a, st: srp_answer(AWSSRP(username="alice@example.com", password="not-the-password1", pool_id=COGNITO_POOL,
                                                             client_id=COGNITO_CLIENT, client=cognito.boto3_client()), a, st)),
    ]:
        aws_srp, auth_params, started = srp_start(cognito)
        answer = make(aws_srp, auth_params, started)
        refused_srp(cognito, answer, started.get("Session"), codes=("NotAuthorizedException", "InvalidParameterException"))
        cases += 1
    figures("flow steps skipped or forged", cases)


def test_an_altered_secret_block_is_refused_even_when_signed_over(cognito, figures):
    """The secret block carries the server's state: one byte changed, it is no block this server issued, however
    correctly the client signs over it."""
    aws_srp, auth_params, started = srp_start(cognito)
    block = started["ChallengeParameters"]["SECRET_BLOCK"]
    for altered in (flip(block), flip(block, len(base64.b64decode(block)) - 1), base64.b64encode(b"forged block").decode()):
        aws_srp, auth_params, started = srp_start(cognito)
        answer = srp_answer(aws_srp, auth_params, started, SECRET_BLOCK=altered)
        refused_srp(cognito, answer, started.get("Session"))
    figures("flow steps skipped or forged", 3)


def test_a_password_verifier_session_works_once_and_for_its_own_user(cognito, figures):
    carol_srp, carol_params, carol_started = srp_start(cognito, "carol@example.com")
    alice_srp, alice_params, alice_started = srp_start(cognito, "alice@example.com")
    # Carol's answer to her own challenge, carried with Alice's secret block or under Alice's name, gives nobody tokens.
    carol_answer = srp_answer(carol_srp, carol_params, carol_started)
    alice_block = alice_started["ChallengeParameters"]["SECRET_BLOCK"]
    refused_srp(cognito, {**carol_answer, "PASSWORD_CLAIM_SECRET_BLOCK": alice_block}, alice_started.get("Session"),
                codes=("NotAuthorizedException", "InvalidParameterException"))
    refused_srp(cognito, {**carol_answer, "USERNAME": alice_started["ChallengeParameters"]["USERNAME"]}, carol_started.get("Session"),
                codes=("NotAuthorizedException", "InvalidParameterException", "UserNotFoundException"))

    # A wrong answer spends the block: the right answer cannot follow it (no guessing against one challenge).
    aws_srp, auth_params, started = srp_start(cognito)
    right = srp_answer(aws_srp, auth_params, started)
    refused_srp(cognito, {**right, "PASSWORD_CLAIM_SIGNATURE": flip(right["PASSWORD_CLAIM_SIGNATURE"])}, started.get("Session"))
    refused_srp(cognito, right, started.get("Session"))

    # A right answer works once.
    aws_srp, auth_params, started = srp_start(cognito)
    right = srp_answer(aws_srp, auth_params, started)
    done = cognito.idp.respond_to_auth_challenge(**respond(cognito, right, started.get("Session")))
    assert done["AuthenticationResult"]["AccessToken"]
    refused_srp(cognito, right, started.get("Session"))
    figures("flow steps skipped or forged", 5)


def test_a_password_verifier_session_cannot_be_answered_as_another_challenge(cognito, figures):
    skipped = [("NEW_PASSWORD_REQUIRED", {"NEW_PASSWORD": "chosen12345"}), ("SOFTWARE_TOKEN_MFA", {"SOFTWARE_TOKEN_MFA_CODE": "000000"}),
               ("SMS_MFA", {"SMS_MFA_CODE": "000000"}), ("EMAIL_OTP", {"EMAIL_OTP_CODE": "000000"}), ("SELECT_CHALLENGE", {"ANSWER": "PASSWORD"}),
               ("MFA_SETUP", {}), ("CUSTOM_CHALLENGE", {"ANSWER": "x"})]
    for challenge, extra in skipped:
        _, _, started = srp_start(cognito)
        answer = {"USERNAME": started["ChallengeParameters"]["USERNAME"], **extra}
        from botocore.exceptions import ClientError
        try:
            result = cognito.idp.respond_to_auth_challenge(**respond(cognito, answer, started["Session"], challenge))
        except ClientError as error:
            assert error.response["ResponseMetadata"]["HTTPStatusCode"] == 400, error.response
            continue
        raise AssertionError(f"{challenge} answered a PASSWORD_VERIFIER session: {result}")
    figures("flow steps skipped or forged", len(skipped))


def test_a_client_allowed_only_srp_cannot_send_the_password(cognito, figures):
    client = cognito.create_client(COGNITO_POOL, flows=("ALLOW_USER_SRP_AUTH", "ALLOW_REFRESH_TOKEN_AUTH"))["ClientId"]
    error = cognito.fails("initiate_auth", ClientId=client, AuthFlow="USER_PASSWORD_AUTH",
                          AuthParameters={"USERNAME": "alice@example.com", "PASSWORD": COGNITO_PASSWORD})
    assert error["Code"] == "InvalidParameterException", error
    error = cognito.fails("admin_initiate_auth", UserPoolId=COGNITO_POOL, ClientId=client, AuthFlow="ADMIN_USER_PASSWORD_AUTH",
                          AuthParameters={"USERNAME": "alice@example.com", "PASSWORD": COGNITO_PASSWORD})
    assert error["Code"] == "InvalidParameterException", error
    error = cognito.fails("initiate_auth", ClientId=client, AuthFlow="USER_AUTH",
                          AuthParameters={"USERNAME": "alice@example.com", "PREFERRED_CHALLENGE": "PASSWORD", "PASSWORD": COGNITO_PASSWORD})
    assert error["Code"] == "InvalidParameterException", error
    # SRP itself works for it.
    aws_srp, auth_params, started = srp_start(cognito, client_id=client)
    answer = aws_srp.process_challenge(started["ChallengeParameters"], auth_params)
    done = cognito.idp.respond_to_auth_challenge(ClientId=client, ChallengeName="PASSWORD_VERIFIER", ChallengeResponses=answer,
                                                 Session=started["Session"])
    assert done["AuthenticationResult"]["AccessToken"]
    figures("flow steps skipped or forged", 3)
