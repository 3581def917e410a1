"""Cognito device tracking ("remember this device") as boto3 and pycognito's device support drive it: NewDeviceMetadata
on a new device, ConfirmDevice with pycognito's verifier, UpdateDeviceStatus, device SRP (DEVICE_SRP_AUTH then
DEVICE_PASSWORD_VERIFIER, checked for real) standing in for SMS MFA on a remembered device, refresh tokens bound to
their device, ForgetDevice, and the device operations with their admin twins.

pycognito's confirm_device, update_device_status and forget_device post to AWS's own URL
(https://cognito-idp.<region>.amazonaws.com/) with requests; the `at_fauxth` fixture sends those posts to fauxth."""
import re

import pytest
import requests
from botocore.exceptions import ClientError
from pycognito import aws_srp
from pycognito.aws_srp import AWSSRP
from pycognito.exceptions import SMSMFAChallengeException

from conftest import COGNITO_PASSWORD, COGNITO_REGION, cognito_email, jwt_claims

SMS_CONFIG = {"SnsCallerArn": "arn:aws:iam::123456789012:role/fauxth-sms", "ExternalId": "fauxth"}
AWS_URL = re.compile(r"^https://cognito-idp\.[a-z0-9-]+\.amazonaws\.com/?")


@pytest.fixture
def at_fauxth(cognito, monkeypatch):
    """pycognito's device helpers, pointed at fauxth instead of AWS."""
    post = requests.post

    def redirected(url, *args, **kwargs):
        return post(AWS_URL.sub(cognito.url + "/", url), *args, **kwargs)

    monkeypatch.setattr(aws_srp.requests, "post", redirected)
    return cognito


def device_pool(cognito, prompt=False, skip_mfa=True, mfa="ON"):
    """A pool that tracks devices (opt-in when `prompt`), with SMS MFA `mfa`, an SRP client and a user with a phone."""
    pool_id = cognito.create_pool(SmsConfiguration=SMS_CONFIG, MfaConfiguration=mfa,
                                  DeviceConfiguration={"ChallengeRequiredOnNewDevice": skip_mfa, "DeviceOnlyRememberedOnUserPrompt": prompt})
    if mfa != "OFF":
        cognito.idp.set_user_pool_mfa_config(UserPoolId=pool_id, MfaConfiguration=mfa, SmsMfaConfiguration={
            "SmsAuthenticationMessage": "Your code is {####}", "SmsConfiguration": SMS_CONFIG})
    client_id = cognito.create_client(pool_id)["ClientId"]
    email = cognito.admin_user(pool_id, cognito_email("device"), attributes={"phone_number": "+15555550142", "phone_number_verified": "true"})
    return pool_id, client_id, email


def srp(cognito, pool_id, client_id, email, password=COGNITO_PASSWORD, device=None):
    device = device or {}
    return AWSSRP(username=email, password=password, pool_id=pool_id, client_id=client_id, client=cognito.boto3_client(),
                  device_key=device.get("key"), device_group_key=device.get("group"), device_password=device.get("password"))


def first_sign_in(cognito, pool_id, client_id, email):
    """pycognito's SRP sign-in on a new device: the SMS MFA challenge, answered with the texted code."""
    with pytest.raises(SMSMFAChallengeException) as challenge:
        srp(cognito, pool_id, client_id, email).authenticate_user()
    tokens = challenge.value.get_tokens()
    assert tokens["ChallengeName"] == "SMS_MFA"
    return cognito.idp.respond_to_auth_challenge(ClientId=client_id, ChallengeName="SMS_MFA", Session=tokens["Session"],
                                                 ChallengeResponses={"USERNAME": email, "SMS_MFA_CODE": cognito.code("+15555550142")})


def remembered_device(cognito, pool_id, client_id, email, prompt=False):
    """Signs in, confirms the new device with pycognito and (in an opt-in pool, `prompt`) remembers it; returns the
    device and the sign-in's tokens."""
    tokens = first_sign_in(cognito, pool_id, client_id, email)
    metadata = tokens["AuthenticationResult"]["NewDeviceMetadata"]
    assert re.fullmatch(COGNITO_REGION + r"_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", metadata["DeviceKey"])
    assert re.fullmatch(r"-[A-Za-z0-9]{8}", metadata["DeviceGroupKey"])
    helper = srp(cognito, pool_id, client_id, email)
    response, device_password = helper.confirm_device(tokens, device_name="Pixel 9")
    assert response.status_code == 200, response.text
    assert response.json() == {"UserConfirmationNecessary": prompt}
    if prompt:
        helper.update_device_status(True, tokens["AuthenticationResult"]["AccessToken"], metadata["DeviceKey"])
    device = {"key": metadata["DeviceKey"], "group": metadata["DeviceGroupKey"], "password": device_password}
    return device, tokens["AuthenticationResult"]


def attributes(device):
    return {a["Name"]: a["Value"] for a in device["DeviceAttributes"]}


def test_a_remembered_device_signs_in_with_pycognitos_device_srp_instead_of_sms_mfa(at_fauxth):
    cognito = at_fauxth
    pool_id, client_id, email = device_pool(cognito, prompt=True)
    described = cognito.idp.describe_user_pool(UserPoolId=pool_id)["UserPool"]
    assert described["DeviceConfiguration"] == {"ChallengeRequiredOnNewDevice": True, "DeviceOnlyRememberedOnUserPrompt": True}
    device, first = remembered_device(cognito, pool_id, client_id, email, prompt=True)
    assert jwt_claims(first["AccessToken"])["device_key"] == device["key"]
    got = cognito.idp.get_device(AccessToken=first["AccessToken"], DeviceKey=device["key"])["Device"]
    assert attributes(got)["device_name"] == "Pixel 9"
    assert attributes(got)["device_status"] == "valid"
    assert attributes(got)["dev:device_remembered_status"] == "remembered"
    assert got["DeviceCreateDate"] and got["DeviceLastModifiedDate"] and got["DeviceLastAuthenticatedDate"]

    texts = len(cognito.messages("+15555550142"))
    tokens = srp(cognito, pool_id, client_id, email, device=device).authenticate_user()["AuthenticationResult"]
    assert len(cognito.messages("+15555550142")) == texts, "no MFA code on a remembered device"
    assert "NewDeviceMetadata" not in tokens
    claims = cognito.verify(tokens["AccessToken"], "access", pool_id, client_id)
    assert claims["device_key"] == device["key"]

    with pytest.raises(ClientError) as refused:
        srp(cognito, pool_id, client_id, email, device={**device, "password": "not-the-device-password"}).authenticate_user()
    assert refused.value.response["Error"] == {"Code": "NotAuthorizedException", "Message": "Incorrect username or password."}


def test_a_device_the_user_does_not_remember_still_answers_mfa(at_fauxth):
    cognito = at_fauxth
    pool_id, client_id, email = device_pool(cognito, prompt=True)
    device, first = remembered_device(cognito, pool_id, client_id, email, prompt=True)
    srp(cognito, pool_id, client_id, email).update_device_status(False, first["AccessToken"], device["key"])
    with pytest.raises(SMSMFAChallengeException):
        srp(cognito, pool_id, client_id, email, device=device).authenticate_user()


def test_refresh_tokens_belong_to_their_device_until_it_is_forgotten(at_fauxth):
    cognito = at_fauxth
    pool_id, client_id, email = device_pool(cognito)
    device, first = remembered_device(cognito, pool_id, client_id, email)

    def refresh(**params):
        return cognito.idp.initiate_auth(ClientId=client_id, AuthFlow="REFRESH_TOKEN_AUTH",
                                         AuthParameters={"REFRESH_TOKEN": first["RefreshToken"], **params})

    assert cognito.fails("initiate_auth", ClientId=client_id, AuthFlow="REFRESH_TOKEN_AUTH",
                         AuthParameters={"REFRESH_TOKEN": first["RefreshToken"]}) == {
        "Code": "NotAuthorizedException", "Message": "Invalid Refresh Token."}
    assert jwt_claims(refresh(DEVICE_KEY=device["key"])["AuthenticationResult"]["AccessToken"])["device_key"] == device["key"]

    forgotten = srp(cognito, pool_id, client_id, email).forget_device(first["AccessToken"], device["key"])
    assert "200" in forgotten
    error = cognito.fails("get_device", AccessToken=first["AccessToken"], DeviceKey=device["key"])
    assert error == {"Code": "ResourceNotFoundException", "Message": "Device does not exist."}
    error = cognito.fails("initiate_auth", ClientId=client_id, AuthFlow="REFRESH_TOKEN_AUTH",
                          AuthParameters={"REFRESH_TOKEN": first["RefreshToken"], "DEVICE_KEY": device["key"]})
    assert error["Message"] == "Invalid Refresh Token."
    # A sign-in naming the forgotten key is refused after the password step, as AWS refuses it (amazon-cognito-identity-js
    # and Amplify then drop the key and sign in again); without it, MFA again and a new device key.
    with pytest.raises(ClientError) as refused:
        srp(cognito, pool_id, client_id, email, device=device).authenticate_user()
    assert refused.value.response["Error"] == {"Code": "ResourceNotFoundException", "Message": "Device does not exist."}
    with pytest.raises(SMSMFAChallengeException):
        srp(cognito, pool_id, client_id, email).authenticate_user()


def test_global_sign_out_ends_the_devices_sessions_but_keeps_the_device(at_fauxth):
    cognito = at_fauxth
    pool_id, client_id, email = device_pool(cognito)
    device, first = remembered_device(cognito, pool_id, client_id, email)
    cognito.idp.admin_user_global_sign_out(UserPoolId=pool_id, Username=email)
    error = cognito.fails("initiate_auth", ClientId=client_id, AuthFlow="REFRESH_TOKEN_AUTH",
                          AuthParameters={"REFRESH_TOKEN": first["RefreshToken"], "DEVICE_KEY": device["key"]})
    assert error["Code"] == "NotAuthorizedException"
    assert cognito.idp.admin_get_device(UserPoolId=pool_id, Username=email, DeviceKey=device["key"])["Device"]["DeviceKey"] == device["key"]
    tokens = srp(cognito, pool_id, client_id, email, device=device).authenticate_user()["AuthenticationResult"]
    assert tokens["AccessToken"]


def test_boto3_lists_updates_and_forgets_devices_and_refuses_what_aws_refuses(cognito):
    pool_id, client_id, email = device_pool(cognito, mfa="OFF", skip_mfa=False)
    keys, access = [], None
    for name in ("laptop", "phone", "tablet"):
        result = cognito.password_auth(email, client_id=client_id)["AuthenticationResult"]
        metadata, access = result["NewDeviceMetadata"], result["AccessToken"]
        _, config = aws_srp.generate_hash_device(metadata["DeviceGroupKey"], metadata["DeviceKey"])
        confirmed = cognito.idp.confirm_device(AccessToken=access, DeviceKey=metadata["DeviceKey"], DeviceSecretVerifierConfig=config,
                                               DeviceName=name)
        assert confirmed["UserConfirmationNecessary"] is False
        keys.append(metadata["DeviceKey"])

    page = cognito.idp.list_devices(AccessToken=access, Limit=2)
    rest = cognito.idp.list_devices(AccessToken=access, Limit=2, PaginationToken=page["PaginationToken"])
    assert "PaginationToken" not in rest
    assert [d["DeviceKey"] for d in page["Devices"] + rest["Devices"]] == sorted(keys)
    listed = cognito.idp.admin_list_devices(UserPoolId=pool_id, Username=email)["Devices"]
    assert sorted(attributes(d)["device_name"] for d in listed) == ["laptop", "phone", "tablet"]
    assert {attributes(d)["dev:device_remembered_status"] for d in listed} == {"remembered"}

    cognito.idp.admin_update_device_status(UserPoolId=pool_id, Username=email, DeviceKey=keys[0], DeviceRememberedStatus="not_remembered")
    got = cognito.idp.admin_get_device(UserPoolId=pool_id, Username=email, DeviceKey=keys[0])["Device"]
    assert attributes(got)["dev:device_remembered_status"] == "not_remembered"
    cognito.idp.admin_forget_device(UserPoolId=pool_id, Username=email, DeviceKey=keys[0])
    assert len(cognito.idp.list_devices(AccessToken=access)["Devices"]) == 2

    wrong_key = cognito.fails("confirm_device", AccessToken=access, DeviceKey=keys[1],
                              DeviceSecretVerifierConfig=aws_srp.generate_hash_device("-abcdefgh", keys[1])[1])
    assert wrong_key == {"Code": "InvalidParameterException", "Message": "Invalid device key given."}
    assert cognito.fails("admin_get_device", UserPoolId=pool_id, Username=email, DeviceKey=keys[0])["Code"] == "ResourceNotFoundException"
    assert cognito.fails("update_device_status", AccessToken=access, DeviceKey=keys[1], DeviceRememberedStatus="forever")["Code"] \
        == "InvalidParameterException"
    assert cognito.fails("list_devices", AccessToken=access, Limit=61)["Code"] == "InvalidParameterException"
    assert cognito.fails("admin_list_devices", UserPoolId=pool_id, Username="nobody@example.com")["Code"] == "UserNotFoundException"


def test_admin_sign_in_with_a_device_key_is_asked_for_the_device(cognito):
    pool_id, client_id, email = device_pool(cognito, mfa="OFF")
    client_id = cognito.create_client(pool_id, flows=("ALLOW_ADMIN_USER_PASSWORD_AUTH", "ALLOW_REFRESH_TOKEN_AUTH"))["ClientId"]
    first = cognito.idp.admin_initiate_auth(UserPoolId=pool_id, ClientId=client_id, AuthFlow="ADMIN_USER_PASSWORD_AUTH",
                                            AuthParameters={"USERNAME": email, "PASSWORD": COGNITO_PASSWORD})["AuthenticationResult"]
    metadata = first["NewDeviceMetadata"]
    _, config = aws_srp.generate_hash_device(metadata["DeviceGroupKey"], metadata["DeviceKey"])
    cognito.idp.confirm_device(AccessToken=first["AccessToken"], DeviceKey=metadata["DeviceKey"], DeviceSecretVerifierConfig=config)
    challenged = cognito.idp.admin_initiate_auth(UserPoolId=pool_id, ClientId=client_id, AuthFlow="ADMIN_USER_PASSWORD_AUTH",
                                                 AuthParameters={"USERNAME": email, "PASSWORD": COGNITO_PASSWORD,
                                                                 "DEVICE_KEY": metadata["DeviceKey"]})
    assert challenged["ChallengeName"] == "DEVICE_SRP_AUTH"
    assert challenged["ChallengeParameters"]["DEVICE_KEY"] == metadata["DeviceKey"]
    assert "AuthenticationResult" not in challenged


def test_triggers_hear_a_new_device_and_a_device_sign_in(cognito, hook_server):
    hook_server.answer = lambda call: {**call.json, "response": call.json.get("response") or {}}
    pool_id = cognito.create_pool(DeviceConfiguration={"ChallengeRequiredOnNewDevice": True},
                                  LambdaConfig={"PostAuthentication": hook_server.at("/post"), "PreTokenGeneration": hook_server.at("/pre")})
    client_id = cognito.create_client(pool_id)["ClientId"]
    email = cognito.admin_user(pool_id, cognito_email("trigger"))
    first = cognito.password_auth(email, client_id=client_id)["AuthenticationResult"]
    metadata = first["NewDeviceMetadata"]
    [post] = hook_server.calls_to("/post")
    assert post.json["request"]["newDeviceUsed"] is True
    device_password, config = aws_srp.generate_hash_device(metadata["DeviceGroupKey"], metadata["DeviceKey"])
    cognito.idp.confirm_device(AccessToken=first["AccessToken"], DeviceKey=metadata["DeviceKey"], DeviceSecretVerifierConfig=config)

    device = {"key": metadata["DeviceKey"], "group": metadata["DeviceGroupKey"], "password": device_password}
    assert srp(cognito, pool_id, client_id, email, device=device).authenticate_user()["AuthenticationResult"]["AccessToken"]
    assert [c.json["triggerSource"] for c in hook_server.calls_to("/pre")] == ["TokenGeneration_Authentication", "TokenGeneration_AuthenticateDevice"]
    assert [c.json["request"]["newDeviceUsed"] for c in hook_server.calls_to("/post")] == [True, False]


def test_a_forgotten_device_key_refused_at_the_password_lets_the_same_answer_through_without_it(at_fauxth):
    """What Amplify does when a remembered device was forgotten elsewhere (handlePasswordSRP's
    retryOnResourceNotFoundException, tested against AWS in amplify-js #12241): the PASSWORD_VERIFIER answer with the
    device key is refused, Amplify drops the key and sends the same answer with the same session, and the sign-in goes
    on. Before, the refusal spent the session and Amplify's signIn failed with NotAuthorizedException."""
    cognito = at_fauxth
    pool_id, client_id, email = device_pool(cognito)
    device, first = remembered_device(cognito, pool_id, client_id, email)
    cognito.idp.admin_forget_device(UserPoolId=pool_id, Username=email, DeviceKey=device["key"])
    helper = srp(cognito, pool_id, client_id, email)
    # As Amplify sends them: the device key only with the PASSWORD_VERIFIER answer.
    started = cognito.idp.initiate_auth(ClientId=client_id, AuthFlow="USER_SRP_AUTH", AuthParameters=helper.get_auth_params())
    answer = helper.process_challenge(started["ChallengeParameters"], helper.get_auth_params())

    def respond(responses):
        return cognito.idp.respond_to_auth_challenge(ClientId=client_id, ChallengeName="PASSWORD_VERIFIER", Session=started["Session"],
                                                     ChallengeResponses=responses)

    with pytest.raises(ClientError) as refused:
        respond({**answer, "DEVICE_KEY": device["key"]})
    assert refused.value.response["Error"] == {"Code": "ResourceNotFoundException", "Message": "Device does not exist."}
    retried = respond(answer)
    assert retried["ChallengeName"] == "SMS_MFA"
    with pytest.raises(ClientError) as replayed:
        respond(answer)
    assert replayed.value.response["Error"]["Message"] == "Invalid session for the user, session can only be used once."
