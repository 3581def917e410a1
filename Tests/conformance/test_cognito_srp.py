"""USER_SRP_AUTH as pycognito (and so Amplify's and the Cognito JS SDK's math) does it: the server must really check
the password proof, not hand out tokens for any signature."""
import base64
import re

import pytest
from botocore.exceptions import ClientError
from pycognito import Cognito
from pycognito.aws_srp import AWSSRP
from pycognito.exceptions import ForceChangePasswordException

from conftest import COGNITO_CLIENT, COGNITO_PASSWORD, COGNITO_POOL, cognito_email


def pycognito_user(cognito, username, pool_id=COGNITO_POOL, client_id=COGNITO_CLIENT, client_secret=None):
    """pycognito's Cognito object with its boto3 client pointed at fauxth. The tokens keep the real Cognito issuer,
    so pycognito's own verification runs against the pool's JWKS fetched from fauxth."""
    user = Cognito(pool_id, client_id, username=username, client_secret=client_secret, access_key="x", secret_key="x")
    user.client = cognito.boto3_client()
    user.pool_jwk = cognito.jwks(pool_id)
    return user


def srp(cognito, username, password, pool_id=COGNITO_POOL, client_id=COGNITO_CLIENT, client_secret=None):
    return AWSSRP(username=username, password=password, pool_id=pool_id, client_id=client_id,
                  client=cognito.boto3_client(), client_secret=client_secret)


def srp_error(aws_srp):
    with pytest.raises(ClientError) as error:
        aws_srp.authenticate_user()
    return error.value.response["Error"]


def test_pycognito_signs_in_with_srp_and_verifies_the_tokens(cognito):
    user = pycognito_user(cognito, "alice@example.com")
    user.authenticate(password=COGNITO_PASSWORD)
    assert user.token_type == "Bearer"
    assert user.refresh_token
    assert user.id_claims["email"] == "alice@example.com"
    assert user.id_claims["aud"] == COGNITO_CLIENT
    assert user.access_claims["client_id"] == COGNITO_CLIENT
    assert user.access_claims["scope"] == "aws.cognito.signin.user.admin"
    profile = user.get_user()
    assert profile.email == "alice@example.com" and profile.email_verified is True
    assert profile.sub == user.access_claims["sub"]

    old_access = user.access_token
    user.renew_access_token()
    assert user.access_token != old_access
    assert user.access_claims["origin_jti"] == cognito.verify(old_access, "access")["origin_jti"]


def test_the_password_verifier_challenge_carries_the_srp_parameters(cognito):
    aws_srp = srp(cognito, "alice@example.com", COGNITO_PASSWORD)
    auth_params = aws_srp.get_auth_params()
    started = cognito.idp.initiate_auth(ClientId=COGNITO_CLIENT, AuthFlow="USER_SRP_AUTH", AuthParameters=auth_params)
    assert started["ChallengeName"] == "PASSWORD_VERIFIER"
    assert "AuthenticationResult" not in started
    params = started["ChallengeParameters"]
    internal = cognito.idp.admin_get_user(UserPoolId=COGNITO_POOL, Username="alice@example.com")["Username"]
    assert params["USER_ID_FOR_SRP"] == params["USERNAME"] == internal
    assert re.fullmatch(r"[0-9a-fA-F]+", params["SALT"])
    assert re.fullmatch(r"[0-9a-fA-F]+", params["SRP_B"]) and int(params["SRP_B"], 16) % aws_srp.big_n != 0
    assert base64.b64decode(params["SECRET_BLOCK"], validate=True)

    answer = aws_srp.process_challenge(params, auth_params)
    done = cognito.idp.respond_to_auth_challenge(ClientId=COGNITO_CLIENT, ChallengeName="PASSWORD_VERIFIER",
                                                 ChallengeResponses=answer)
    result = done["AuthenticationResult"]
    assert cognito.verify(result["AccessToken"], "access")["username"] == internal
    assert cognito.verify(result["IdToken"], "id")["email"] == "alice@example.com"
    # A challenge is answered once.
    replay = cognito.fails("respond_to_auth_challenge", ClientId=COGNITO_CLIENT, ChallengeName="PASSWORD_VERIFIER",
                           ChallengeResponses=answer)
    assert replay["Code"] == "NotAuthorizedException"


def test_srp_with_a_wrong_password_or_for_an_unconfirmed_user_is_refused(cognito):
    error = srp_error(srp(cognito, "alice@example.com", "not-the-password1"))
    assert error == {"Code": "NotAuthorizedException", "Message": "Incorrect username or password."}
    user = pycognito_user(cognito, "alice@example.com")
    with pytest.raises(ClientError):
        user.authenticate(password="password124")
    assert user.access_token is None
    assert srp_error(srp(cognito, "bob@example.com", COGNITO_PASSWORD))["Code"] == "UserNotConfirmedException"


def test_an_admin_created_user_sets_a_new_password_on_first_srp_sign_in(cognito):
    pool_id = cognito.create_pool()
    client_id = cognito.create_client(pool_id)["ClientId"]
    email = cognito_email("invited")
    cognito.idp.admin_create_user(UserPoolId=pool_id, Username=email, TemporaryPassword="temporary123", MessageAction="SUPPRESS",
                                  UserAttributes=[{"Name": "email", "Value": email}, {"Name": "email_verified", "Value": "true"}])
    assert cognito.idp.admin_get_user(UserPoolId=pool_id, Username=email)["UserStatus"] == "FORCE_CHANGE_PASSWORD"

    user = pycognito_user(cognito, email, pool_id, client_id)
    with pytest.raises(ForceChangePasswordException):
        user.authenticate(password="temporary123")
    user.new_password_challenge(password="temporary123", new_password="chosen12345")
    assert user.id_claims["email"] == email
    assert cognito.idp.admin_get_user(UserPoolId=pool_id, Username=email)["UserStatus"] == "CONFIRMED"

    again = pycognito_user(cognito, email, pool_id, client_id)
    again.authenticate(password="chosen12345")
    assert again.access_claims["sub"] == user.access_claims["sub"]
    error = srp_error(srp(cognito, email, "temporary123", pool_id, client_id))
    assert error["Code"] == "NotAuthorizedException"


def test_srp_with_a_secret_client_sends_the_secret_hash(cognito):
    pool_id = cognito.create_pool()
    client = cognito.create_client(pool_id, flows=("ALLOW_USER_SRP_AUTH", "ALLOW_REFRESH_TOKEN_AUTH"), secret=True)
    email = cognito.admin_user(pool_id, cognito_email("confidential"))
    user = pycognito_user(cognito, email, pool_id, client["ClientId"], client_secret=client["ClientSecret"])
    user.authenticate(password=COGNITO_PASSWORD)
    assert user.access_claims["client_id"] == client["ClientId"]
    assert srp_error(srp(cognito, email, COGNITO_PASSWORD, pool_id, client["ClientId"]))["Code"] == "NotAuthorizedException"
    wrong_secret = srp(cognito, email, COGNITO_PASSWORD, pool_id, client["ClientId"], client_secret="not-the-secret")
    assert srp_error(wrong_secret)["Code"] == "NotAuthorizedException"


def test_srp_in_a_username_pool_uses_the_username_as_the_srp_user_id(cognito):
    pool_id = cognito.create_pool(username_attributes=())
    client_id = cognito.create_client(pool_id)["ClientId"]
    cognito.admin_user(pool_id, "srp_dora", attributes={"email": cognito_email("dora"), "email_verified": "true"})
    aws_srp = srp(cognito, "srp_dora", COGNITO_PASSWORD, pool_id, client_id)
    started = cognito.idp.initiate_auth(ClientId=client_id, AuthFlow="USER_SRP_AUTH", AuthParameters=aws_srp.get_auth_params())
    assert started["ChallengeParameters"]["USER_ID_FOR_SRP"] == "srp_dora"
    user = pycognito_user(cognito, "srp_dora", pool_id, client_id)
    user.authenticate(password=COGNITO_PASSWORD)
    assert user.access_claims["username"] == "srp_dora"
    assert srp_error(srp(cognito, "srp_dora", "wrong-password1", pool_id, client_id))["Code"] == "NotAuthorizedException"


def test_pycognito_registers_confirms_signs_in_and_signs_out(cognito):
    email = cognito_email("registered")
    user = pycognito_user(cognito, email)
    user.set_base_attributes(email=email, name="Reg Istered")
    response = user.register(email, COGNITO_PASSWORD)
    assert response["UserConfirmed"] is False
    assert response["CodeDeliveryDetails"]["Destination"] == "r***@e***"
    user.confirm_sign_up(cognito.code(email, "verify_email"), username=email)
    user.authenticate(password=COGNITO_PASSWORD)
    assert user.id_claims["name"] == "Reg Istered"
    refresh_token = user.refresh_token
    user.logout()
    assert user.access_token is None
    error = cognito.fails("initiate_auth", ClientId=COGNITO_CLIENT, AuthFlow="REFRESH_TOKEN_AUTH",
                          AuthParameters={"REFRESH_TOKEN": refresh_token})
    assert error["Code"] == "NotAuthorizedException"
