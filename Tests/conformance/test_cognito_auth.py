"""Cognito sign-in without SRP (USER_PASSWORD_AUTH, ADMIN_USER_PASSWORD_AUTH, REFRESH_TOKEN_AUTH) through boto3, with
the tokens checked as a backend checks them: PyJWT against the pool's JWKS, Cognito's issuer and claims."""
import datetime

import botocore.exceptions
import jwt
import pytest
import requests
from pycognito.aws_srp import AWSSRP

from conftest import COGNITO_CLIENT, COGNITO_PASSWORD, COGNITO_POOL, cognito_email, cognito_issuer


def refresh(cognito, refresh_token, client_id=COGNITO_CLIENT, flow="REFRESH_TOKEN_AUTH", **params):
    return cognito.idp.initiate_auth(ClientId=client_id, AuthFlow=flow,
                                     AuthParameters={"REFRESH_TOKEN": refresh_token, **params})["AuthenticationResult"]


def refresh_error(cognito, refresh_token, client_id=COGNITO_CLIENT):
    return cognito.fails("initiate_auth", ClientId=client_id, AuthFlow="REFRESH_TOKEN_AUTH",
                         AuthParameters={"REFRESH_TOKEN": refresh_token})


def password_error(cognito, username, password=COGNITO_PASSWORD, client_id=COGNITO_CLIENT, flow="USER_PASSWORD_AUTH", **params):
    return cognito.fails("initiate_auth", ClientId=client_id, AuthFlow=flow,
                         AuthParameters={"USERNAME": username, "PASSWORD": password, **params})


def utc_now():
    return datetime.datetime.now(datetime.timezone.utc)


def test_password_sign_in_returns_bearer_tokens_signed_with_separate_keys(cognito):
    result = cognito.tokens("alice@example.com")
    assert result["TokenType"] == "Bearer"
    assert result["ExpiresIn"] == 3600
    assert result["RefreshToken"]
    access_header = jwt.get_unverified_header(result["AccessToken"])
    id_header = jwt.get_unverified_header(result["IdToken"])
    assert access_header["alg"] == id_header["alg"] == "RS256"
    assert access_header["kid"] != id_header["kid"]
    assert {access_header["kid"], id_header["kid"]} <= {k["kid"] for k in cognito.jwks()["keys"]}
    access = cognito.verify(result["AccessToken"], "access")
    identity = cognito.verify(result["IdToken"], "id")
    assert access["iss"] == identity["iss"] == cognito_issuer(COGNITO_POOL)
    assert access["sub"] == identity["sub"]
    # A signature made with the other token's key does not verify.
    other_key = jwt.PyJWKSet.from_dict(cognito.jwks())[id_header["kid"]].key
    try:
        jwt.decode(result["AccessToken"], key=other_key, algorithms=["RS256"], options={"verify_aud": False})
    except jwt.InvalidSignatureError:
        pass
    else:
        raise AssertionError("the access token verified with the ID token's key")


def test_access_and_id_tokens_have_cognitos_claims(cognito):
    result = cognito.tokens("alice@example.com")
    access = cognito.verify(result["AccessToken"], "access")
    alice = cognito.idp.admin_get_user(UserPoolId=COGNITO_POOL, Username="alice@example.com")
    assert access["client_id"] == COGNITO_CLIENT
    assert "aud" not in access
    assert access["username"] == alice["Username"]
    assert access["sub"] == {a["Name"]: a["Value"] for a in alice["UserAttributes"]}["sub"]
    assert access["scope"] == "aws.cognito.signin.user.admin"
    assert access["exp"] - access["iat"] == 3600
    assert abs(access["auth_time"] - access["iat"]) <= 1
    assert access["jti"] and access["origin_jti"] and access["event_id"]
    assert "email" not in access and "cognito:groups" not in access

    identity = cognito.verify(result["IdToken"], "id")
    assert identity["aud"] == COGNITO_CLIENT
    assert identity["cognito:username"] == access["username"]
    assert identity["email"] == "alice@example.com"
    assert identity["email_verified"] is True
    assert identity["name"] == "Alice Verified"
    assert identity["exp"] - identity["iat"] == 3600
    assert identity["auth_time"] == access["auth_time"]
    assert identity["origin_jti"] == access["origin_jti"]
    assert identity["event_id"] == access["event_id"]
    assert identity["jti"] != access["jti"]
    assert "scope" not in identity and "client_id" not in identity


def test_sign_in_refusals_name_their_reason(cognito):
    assert password_error(cognito, "alice@example.com", "wrong-password1") == {"Code": "NotAuthorizedException",
                                                                              "Message": "Incorrect username or password."}
    assert password_error(cognito, "bob@example.com")["Code"] == "UserNotConfirmedException"
    disabled = cognito.signed_up_user(cognito_email("disabled"))
    cognito.idp.admin_disable_user(UserPoolId=COGNITO_POOL, Username=disabled)
    assert password_error(cognito, disabled) == {"Code": "NotAuthorizedException", "Message": "User is disabled."}
    unknown_client = password_error(cognito, "alice@example.com", client_id="nosuchclient00000000000000")
    assert unknown_client["Code"] == "ResourceNotFoundException"

    # An unknown user: UserNotFoundException for a LEGACY client, hidden behind NotAuthorized when ENABLED.
    pool_id = cognito.create_pool()
    legacy = cognito.create_client(pool_id, PreventUserExistenceErrors="LEGACY")["ClientId"]
    hiding = cognito.create_client(pool_id, PreventUserExistenceErrors="ENABLED")["ClientId"]
    ghost = cognito_email("ghost")
    assert password_error(cognito, ghost, client_id=legacy) == {"Code": "UserNotFoundException", "Message": "User does not exist."}
    assert password_error(cognito, ghost, client_id=hiding) == {"Code": "NotAuthorizedException", "Message": "Incorrect username or password."}
    # The calls that name a user for a client's code say it in other words (aws-sdk-ios #4837, amazon-cognito-identity-js #537).
    for operation, extra in [("forgot_password", {}), ("resend_confirmation_code", {}),
                             ("confirm_sign_up", {"ConfirmationCode": "123456"}),
                             ("confirm_forgot_password", {"ConfirmationCode": "123456", "Password": "Another-pass-1"})]:
        with pytest.raises(botocore.exceptions.ClientError) as raised:
            getattr(cognito.idp, operation)(ClientId=legacy, Username=ghost, **extra)
        assert raised.value.response["Error"] == {"Code": "UserNotFoundException", "Message": "Username/client id combination not found."}, operation


def test_flows_not_enabled_for_the_client_are_refused(cognito):
    pool_id = cognito.create_pool()
    srp_only = cognito.create_client(pool_id, flows=("ALLOW_USER_SRP_AUTH", "ALLOW_REFRESH_TOKEN_AUTH"))["ClientId"]
    email = cognito.admin_user(pool_id, cognito_email("flows"))
    assert password_error(cognito, email, client_id=srp_only)["Code"] == "InvalidParameterException"
    # Admin flows are not InitiateAuth flows, and unknown flow names are refused.
    assert password_error(cognito, "alice@example.com", flow="ADMIN_USER_PASSWORD_AUTH")["Code"] == "InvalidParameterException"
    assert password_error(cognito, "alice@example.com", flow="NO_SUCH_FLOW")["Code"] == "InvalidParameterException"
    # Enabling the flow lets the same call through.
    cognito.idp.update_user_pool_client(UserPoolId=pool_id, ClientId=srp_only,
                                        ExplicitAuthFlows=["ALLOW_USER_PASSWORD_AUTH", "ALLOW_REFRESH_TOKEN_AUTH"])
    assert cognito.tokens(email, client_id=srp_only)["AccessToken"]


def test_a_client_with_a_secret_requires_the_secret_hash(cognito):
    pool_id = cognito.create_pool()
    client = cognito.create_client(pool_id, secret=True)
    client_id, secret = client["ClientId"], client["ClientSecret"]
    email = cognito.admin_user(pool_id, cognito_email("secretive"))

    missing = password_error(cognito, email, client_id=client_id)
    assert missing == {"Code": "NotAuthorizedException", "Message": f"Unable to verify secret hash for client {client_id}"}
    wrong = password_error(cognito, email, client_id=client_id, SECRET_HASH=AWSSRP.get_secret_hash(email, client_id, "not-the-secret"))
    assert wrong["Code"] == "NotAuthorizedException"
    result = cognito.password_auth(email, client_id=client_id, SECRET_HASH=AWSSRP.get_secret_hash(email, client_id, secret))["AuthenticationResult"]
    access = cognito.verify(result["AccessToken"], "access", pool_id, client_id)

    # Refreshing hashes the user's internal username (the sub in an email-username pool).
    refreshed = refresh(cognito, result["RefreshToken"], client_id,
                        SECRET_HASH=AWSSRP.get_secret_hash(access["username"], client_id, secret))
    assert cognito.verify(refreshed["AccessToken"], "access", pool_id, client_id)["sub"] == access["sub"]
    assert refresh_error(cognito, result["RefreshToken"], client_id)["Code"] == "NotAuthorizedException"

    signup = cognito.fails("sign_up", ClientId=client_id, Username=cognito_email("nohash"), Password=COGNITO_PASSWORD)
    assert signup["Code"] == "NotAuthorizedException"


def test_refresh_returns_new_access_and_id_tokens_in_the_same_session(cognito):
    cognito.freeze(utc_now() - datetime.timedelta(seconds=120))
    first = cognito.tokens("alice@example.com")
    access1 = cognito.verify(first["AccessToken"], "access")
    cognito.advance(120)

    refreshed = refresh(cognito, first["RefreshToken"])
    assert "RefreshToken" not in refreshed
    assert refreshed["TokenType"] == "Bearer" and refreshed["ExpiresIn"] == 3600
    access2 = cognito.verify(refreshed["AccessToken"], "access")
    identity2 = cognito.verify(refreshed["IdToken"], "id")
    assert access2["sub"] == identity2["sub"] == access1["sub"]
    assert access2["iat"] == access1["iat"] + 120
    assert access2["auth_time"] == identity2["auth_time"] == access1["auth_time"]
    assert access2["jti"] != access1["jti"]
    assert access2["origin_jti"] == identity2["origin_jti"] == access1["origin_jti"]
    # The older flow name is accepted too, and a new sign-in starts a new session.
    assert refresh(cognito, first["RefreshToken"], flow="REFRESH_TOKEN")["AccessToken"]
    again = cognito.verify(cognito.tokens("alice@example.com")["AccessToken"], "access")
    assert again["origin_jti"] != access1["origin_jti"]
    assert refresh_error(cognito, "not-a-refresh-token")["Code"] == "NotAuthorizedException"


def test_global_sign_out_revokes_refresh_and_access_tokens(cognito):
    email = cognito.signed_up_user(cognito_email("leaving"))
    tokens = cognito.tokens(email)
    other_device = cognito.tokens(email)
    cognito.idp.global_sign_out(AccessToken=tokens["AccessToken"])
    assert refresh_error(cognito, tokens["RefreshToken"]) == {"Code": "NotAuthorizedException", "Message": "Refresh Token has been revoked"}
    assert refresh_error(cognito, other_device["RefreshToken"])["Code"] == "NotAuthorizedException"
    assert cognito.fails("get_user", AccessToken=tokens["AccessToken"]) == {"Code": "NotAuthorizedException", "Message": "Access Token has been revoked"}
    fresh = cognito.tokens(email)
    assert cognito.idp.get_user(AccessToken=fresh["AccessToken"])["Username"]


def test_revoke_token_revokes_that_refresh_token_and_its_access_tokens(cognito):
    email = cognito.signed_up_user(cognito_email("revoker"))
    phone = cognito.tokens(email)
    laptop = cognito.tokens(email)
    cognito.idp.revoke_token(Token=phone["RefreshToken"], ClientId=COGNITO_CLIENT)
    assert refresh_error(cognito, phone["RefreshToken"])["Code"] == "NotAuthorizedException"
    assert cognito.fails("get_user", AccessToken=phone["AccessToken"])["Code"] == "NotAuthorizedException"
    assert refresh(cognito, laptop["RefreshToken"])["AccessToken"]
    assert cognito.idp.get_user(AccessToken=laptop["AccessToken"])["Username"]


def test_groups_appear_in_both_tokens_and_custom_attributes_in_the_id_token(cognito):
    carol = cognito.tokens("carol@example.com")
    assert cognito.verify(carol["AccessToken"], "access")["cognito:groups"] == ["admins"]
    assert cognito.verify(carol["IdToken"], "id")["cognito:groups"] == ["admins"]
    identity = cognito.verify(carol["IdToken"], "id")
    assert identity["phone_number"] == "+15555550100" and identity["phone_number_verified"] is True

    email = cognito.signed_up_user(cognito_email("promoted"))
    cognito.idp.create_group(UserPoolId=COGNITO_POOL, GroupName="editors", Precedence=2)
    cognito.idp.admin_add_user_to_group(UserPoolId=COGNITO_POOL, Username=email, GroupName="editors")
    cognito.idp.admin_add_user_to_group(UserPoolId=COGNITO_POOL, Username=email, GroupName="admins")
    access = cognito.verify(cognito.tokens(email)["AccessToken"], "access")
    assert sorted(access["cognito:groups"]) == ["admins", "editors"]

    pool_id = cognito.create_pool(Schema=[{"Name": "team", "AttributeDataType": "String", "Mutable": True}])
    client_id = cognito.create_client(pool_id)["ClientId"]

    # A group's IAM role reaches the ID token: cognito:roles every role, cognito:preferred_role the lowest-precedence
    # group's, none when groups tied there name different roles (CreateGroup's Precedence). Fauxth set neither.
    def roles_of(*groups):
        member = cognito.admin_user(pool_id, cognito_email("roles"))
        for group in groups:
            cognito.idp.admin_add_user_to_group(UserPoolId=pool_id, Username=member, GroupName=group)
        claims = cognito.verify(cognito.tokens(member, client_id=client_id)["IdToken"], "id", pool_id, client_id)
        return claims.get("cognito:roles"), claims.get("cognito:preferred_role")

    arn = "arn:aws:iam::000000000000:role/"
    for name, precedence, role in [("zeta", 5, "zeta"), ("alpha", 1, "alpha"), ("mid", 3, None), ("noprec", None, "noprec"),
                                   ("alpha2", 1, "alpha2")]:
        cognito.idp.create_group(UserPoolId=pool_id, GroupName=name, **({"Precedence": precedence} if precedence is not None else {}),
                                 **({"RoleArn": arn + role} if role else {}))
    assert roles_of("zeta", "alpha", "mid", "noprec") == ([arn + "alpha", arn + "zeta", arn + "noprec"], arn + "alpha")
    assert roles_of("zeta", "alpha", "alpha2") == ([arn + "alpha", arn + "alpha2", arn + "zeta"], None)
    assert roles_of("mid") == (None, None)

    email = cognito.admin_user(pool_id, cognito_email("custom"), attributes={"custom:team": "blue"})
    tokens = cognito.tokens(email, client_id=client_id)
    identity = cognito.verify(tokens["IdToken"], "id", pool_id, client_id)
    assert identity["custom:team"] == "blue"
    assert identity["email"] == email and identity["email_verified"] is True
    assert "custom:team" not in cognito.verify(tokens["AccessToken"], "access", pool_id, client_id)
    unknown = cognito.fails("admin_update_user_attributes", UserPoolId=pool_id, Username=email,
                            UserAttributes=[{"Name": "custom:nope", "Value": "x"}])
    assert unknown["Code"] == "InvalidParameterException"


def test_get_user_needs_a_valid_unexpired_access_token(cognito):
    tokens = cognito.tokens("alice@example.com")
    user = cognito.idp.get_user(AccessToken=tokens["AccessToken"])
    values = {a["Name"]: a["Value"] for a in user["UserAttributes"]}
    assert (values["email"], values["email_verified"], values["name"]) == ("alice@example.com", "true", "Alice Verified")
    assert user["Username"] == cognito.verify(tokens["AccessToken"], "access")["username"]

    head, payload, signature = tokens["AccessToken"].split(".")
    forged = f"{head}.{payload}.{signature[:-4]}{'AAAA' if not signature.endswith('AAAA') else 'BBBB'}"
    assert cognito.fails("get_user", AccessToken=forged)["Code"] == "NotAuthorizedException"
    assert cognito.fails("get_user", AccessToken=tokens["IdToken"])["Code"] == "NotAuthorizedException"

    cognito.freeze(utc_now() - datetime.timedelta(seconds=4000))
    old = cognito.tokens("alice@example.com")
    cognito.real_time()
    assert cognito.fails("get_user", AccessToken=old["AccessToken"]) == {"Code": "NotAuthorizedException", "Message": "Access Token has expired"}
    assert cognito.idp.get_user(AccessToken=refresh(cognito, old["RefreshToken"])["AccessToken"])["Username"] == user["Username"]


def test_admin_initiate_auth_needs_the_admin_flow_on_the_client(cognito):
    refused = cognito.fails("admin_initiate_auth", UserPoolId=COGNITO_POOL, ClientId=COGNITO_CLIENT, AuthFlow="ADMIN_USER_PASSWORD_AUTH",
                            AuthParameters={"USERNAME": "alice@example.com", "PASSWORD": COGNITO_PASSWORD})
    assert refused["Code"] == "InvalidParameterException"

    pool_id = cognito.create_pool()
    client_id = cognito.create_client(pool_id, flows=("ALLOW_ADMIN_USER_PASSWORD_AUTH", "ALLOW_REFRESH_TOKEN_AUTH"))["ClientId"]
    email = cognito.admin_user(pool_id, cognito_email("backend"))
    for flow in ("ADMIN_USER_PASSWORD_AUTH", "ADMIN_NO_SRP_AUTH"):
        result = cognito.idp.admin_initiate_auth(UserPoolId=pool_id, ClientId=client_id, AuthFlow=flow,
                                                 AuthParameters={"USERNAME": email, "PASSWORD": COGNITO_PASSWORD})["AuthenticationResult"]
        access = cognito.verify(result["AccessToken"], "access", pool_id, client_id)
        assert access["client_id"] == client_id
    wrong = cognito.fails("admin_initiate_auth", UserPoolId=pool_id, ClientId=client_id, AuthFlow="ADMIN_USER_PASSWORD_AUTH",
                          AuthParameters={"USERNAME": email, "PASSWORD": "wrong-password1"})
    assert wrong == {"Code": "NotAuthorizedException", "Message": "Incorrect username or password."}
    refreshed = cognito.idp.admin_initiate_auth(UserPoolId=pool_id, ClientId=client_id, AuthFlow="REFRESH_TOKEN_AUTH",
                                                AuthParameters={"REFRESH_TOKEN": result["RefreshToken"]})["AuthenticationResult"]
    assert cognito.verify(refreshed["IdToken"], "id", pool_id, client_id)["email"] == email


def test_the_openid_configuration_and_jwks_describe_the_pool(cognito):
    response = requests.get(f"{cognito.url}/{COGNITO_POOL}/.well-known/openid-configuration", timeout=30)
    assert response.status_code == 200
    document = response.json()
    assert document["issuer"] == cognito_issuer(COGNITO_POOL)
    assert document["jwks_uri"].endswith(f"/{COGNITO_POOL}/.well-known/jwks.json")
    assert document["authorization_endpoint"].endswith("/oauth2/authorize")
    assert document["token_endpoint"].endswith("/oauth2/token")
    assert document["userinfo_endpoint"].endswith("/oauth2/userInfo")
    assert {"code", "token"} <= set(document["response_types_supported"])
    assert "openid" in document["scopes_supported"]
    assert "RS256" in document["id_token_signing_alg_values_supported"]

    keys = cognito.jwks()["keys"]
    assert len(keys) >= 2
    for key in keys:
        assert (key["kty"], key["alg"], key["use"]) == ("RSA", "RS256", "sig")
        assert key["n"] and key["e"] == "AQAB"
    assert len({k["kid"] for k in keys}) == len(keys)
    other = cognito.jwks(cognito.create_pool())["keys"]
    assert not {k["kid"] for k in other} & {k["kid"] for k in keys}
    assert requests.get(f"{cognito.url}/us-east-1_NoSuchPoo/.well-known/jwks.json", timeout=30).status_code == 404
