"""Cognito's custom sender triggers (CustomEmailSender, CustomSMSSender) through boto3: the function gets the code
encrypted with the AWS Encryption SDK under the pool's KMSKeyID, and decrypts it as a real function does, with the
official `aws-encryption-sdk` and a KMS client pointed at Fauxth (which serves KMS's Decrypt on its Cognito port).

The commitment policy is the one AWS's examples use (REQUIRE_ENCRYPT_ALLOW_DECRYPT): Cognito encrypts with suite
0x0378, which does not commit to its key, so a function that demands committed messages fails against Cognito and
must fail here too."""
import base64

import boto3
import pytest

from conftest import COGNITO_PASSWORD, COGNITO_REGION, cognito_email

KEY = "arn:aws:kms:us-east-1:123456789012:key/5c8b1f2e-0c3a-4c5e-9a52-7d3f1f9a6b10"


def senders(hook_server, **extra):
    config = {"KMSKeyID": KEY, "CustomEmailSender": {"LambdaArn": hook_server.at("/email"), "LambdaVersion": "V1_0"},
              "CustomSMSSender": {"LambdaArn": hook_server.at("/sms"), "LambdaVersion": "V1_0"}}
    return {**config, **extra}


@pytest.fixture(autouse=True)
def kms_at_fauxth(cognito, monkeypatch):
    """What a function's environment sets so its KMS client calls Fauxth, as AWS_ENDPOINT_URL_COGNITO_IDENTITY_PROVIDER
    points its Cognito client there."""
    monkeypatch.setenv("AWS_ENDPOINT_URL_KMS", cognito.fauxth.url)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "x")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "x")


def decrypt(code, commitment="REQUIRE_ENCRYPT_ALLOW_DECRYPT"):
    """What a custom sender function does with `request.code`: base64-decode it and decrypt it with the AWS Encryption
    SDK's strict KMS provider for the pool's key (the code of AWS's examples)."""
    import aws_encryption_sdk
    from aws_encryption_sdk.identifiers import CommitmentPolicy

    client = aws_encryption_sdk.EncryptionSDKClient(commitment_policy=getattr(CommitmentPolicy, commitment))
    provider = aws_encryption_sdk.StrictAwsKmsMasterKeyProvider(key_ids=[KEY])
    plaintext, header = client.decrypt(source=base64.b64decode(code), key_provider=provider)
    return plaintext.decode(), header


def signed_up_with_senders(cognito, hook_server, name):
    """A user signed up in a new pool with both senders; the email sender's call."""
    pool_id = cognito.create_pool(LambdaConfig=senders(hook_server))
    client_id = cognito.create_client(pool_id)["ClientId"]
    email = cognito_email(name)
    cognito.idp.sign_up(ClientId=client_id, Username=email, Password=COGNITO_PASSWORD, UserAttributes=[{"Name": "email", "Value": email}])
    [call] = hook_server.calls_to("/email")
    return call


def test_sign_up_hands_the_encrypted_code_to_the_email_sender_which_decrypts_it(cognito, hook_server):
    pool_id = cognito.create_pool(LambdaConfig=senders(hook_server))
    client_id = cognito.create_client(pool_id)["ClientId"]
    email = cognito_email("sender")
    cognito.idp.sign_up(ClientId=client_id, Username=email, Password=COGNITO_PASSWORD,
                        UserAttributes=[{"Name": "email", "Value": email}], ClientMetadata={"lang": "fr"})
    [call] = hook_server.calls_to("/email")
    event = call.json
    assert event["version"] == "1" and event["triggerSource"] == "CustomEmailSender_SignUp"
    # An email-as-username pool names its users by their sub, in events as in the API.
    username = cognito.idp.admin_get_user(UserPoolId=pool_id, Username=email)["Username"]
    assert event["userPoolId"] == pool_id and event["region"] == COGNITO_REGION and event["userName"] == username
    assert event["callerContext"]["clientId"] == client_id
    request = event["request"]
    assert request["type"] == "customEmailSenderRequestV1"
    assert request["clientMetadata"] == {"lang": "fr"}
    assert request["userAttributes"]["email"] == email and request["userAttributes"]["cognito:user_status"] == "UNCONFIRMED"
    assert event["response"] == {}

    code, header = decrypt(request["code"])
    assert len(code) == 6 and code.isdigit()
    # The message as Cognito writes it: suite 0x0378, the pool in the encryption context, one KMS-wrapped data key.
    assert header.algorithm.algorithm_id == 0x0378
    assert header.encryption_context["userpool-id"] == pool_id
    assert [k.key_provider.key_info.decode() for k in header.encrypted_data_keys] == [KEY]

    # The outbox keeps the message as handed to the function, with its code; the code confirms the user.
    [message] = cognito.messages(email)
    assert message["codes"] == [code]
    assert message["status"] == "hook" and "CustomEmailSender" in message["reason"]
    cognito.idp.confirm_sign_up(ClientId=client_id, Username=email, ConfirmationCode=code)
    assert cognito.idp.admin_get_user(UserPoolId=pool_id, Username=email)["UserStatus"] == "CONFIRMED"


def test_a_function_demanding_committed_messages_cannot_read_cognitos(cognito, hook_server):
    call = signed_up_with_senders(cognito, hook_server, "strict")
    from aws_encryption_sdk.exceptions import ActionNotAllowedError
    with pytest.raises(ActionNotAllowedError):
        decrypt(call.json["request"]["code"], commitment="REQUIRE_ENCRYPT_REQUIRE_DECRYPT")


def test_each_message_names_its_source_and_a_custom_message_function_is_not_asked(cognito, hook_server):
    pool_id = cognito.create_pool(LambdaConfig=senders(hook_server, CustomMessage=hook_server.at("/message")),
                                  auto_verified=("email",))
    client_id = cognito.create_client(pool_id)["ClientId"]
    email = cognito_email("sources")
    cognito.idp.sign_up(ClientId=client_id, Username=email, Password=COGNITO_PASSWORD, UserAttributes=[{"Name": "email", "Value": email}])
    cognito.idp.resend_confirmation_code(ClientId=client_id, Username=email)
    cognito.idp.admin_confirm_sign_up(UserPoolId=pool_id, Username=email)
    cognito.idp.admin_update_user_attributes(UserPoolId=pool_id, Username=email, UserAttributes=[{"Name": "email_verified", "Value": "true"}])
    cognito.idp.forgot_password(ClientId=client_id, Username=email)
    tokens = cognito.idp.initiate_auth(ClientId=client_id, AuthFlow="USER_PASSWORD_AUTH",
                                       AuthParameters={"USERNAME": email, "PASSWORD": COGNITO_PASSWORD})["AuthenticationResult"]
    cognito.idp.get_user_attribute_verification_code(AccessToken=tokens["AccessToken"], AttributeName="email")
    new_email = cognito_email("moved")
    cognito.idp.update_user_attributes(AccessToken=tokens["AccessToken"], UserAttributes=[{"Name": "email", "Value": new_email}])
    sources = [call.json["triggerSource"] for call in hook_server.calls_to("/email")]
    assert sources == ["CustomEmailSender_SignUp", "CustomEmailSender_ResendCode", "CustomEmailSender_ForgotPassword",
                       "CustomEmailSender_VerifyUserAttribute", "CustomEmailSender_UpdateUserAttribute"]
    assert hook_server.calls_to("/message") == []
    # Every code decrypts, and is the one the outbox holds for that message.
    codes = [decrypt(call.json["request"]["code"])[0] for call in hook_server.calls_to("/email")]
    held = [m["codes"][0] for m in sorted(cognito.messages(email) + cognito.messages(new_email), key=lambda m: m["created_at"])]
    assert codes == held


def test_admin_create_user_hands_the_temporary_password_to_the_sms_sender(cognito, hook_server):
    pool_id = cognito.create_pool(LambdaConfig=senders(hook_server))
    phone = "+15555550123"
    created = cognito.idp.admin_create_user(UserPoolId=pool_id, Username=cognito_email("invited"), TemporaryPassword="Temp-pass1!",
                                            UserAttributes=[{"Name": "phone_number", "Value": phone}], DesiredDeliveryMediums=["SMS"])
    [call] = hook_server.calls_to("/sms")
    assert call.json["triggerSource"] == "CustomSMSSender_AdminCreateUser"
    assert call.json["request"]["type"] == "customSMSSenderRequestV1"
    assert call.json["callerContext"]["clientId"] == "CLIENT_ID_NOT_APPLICABLE"
    assert decrypt(call.json["request"]["code"])[0] == "Temp-pass1!"
    assert created["User"]["UserStatus"] == "FORCE_CHANGE_PASSWORD"


def test_email_mfa_codes_go_to_the_sender_as_authentication(cognito, hook_server):
    pool_id = cognito.create_pool(LambdaConfig=senders(hook_server), UserPoolTier="ESSENTIALS")
    cognito.idp.set_user_pool_mfa_config(UserPoolId=pool_id, MfaConfiguration="ON",
                                         EmailMfaConfiguration={"Message": "Code {####}", "Subject": "Sign in"})
    client_id = cognito.create_client(pool_id)["ClientId"]
    email = cognito_email("mfa")
    cognito.admin_user(pool_id, email)
    cognito.idp.admin_set_user_mfa_preference(UserPoolId=pool_id, Username=email, EmailMfaSettings={"Enabled": True, "PreferredMfa": True})
    step = cognito.idp.initiate_auth(ClientId=client_id, AuthFlow="USER_PASSWORD_AUTH",
                                     AuthParameters={"USERNAME": email, "PASSWORD": COGNITO_PASSWORD}, ClientMetadata={"device": "cli"})
    assert step["ChallengeName"] == "EMAIL_OTP"
    [call] = hook_server.calls_to("/email")
    assert call.json["triggerSource"] == "CustomEmailSender_Authentication"
    # InitiateAuth gives its ClientMetadata to no sender (the API reference's ClientMetadata); the answer below would.
    assert not call.json["request"].get("clientMetadata")
    code = decrypt(call.json["request"]["code"])[0]
    done = cognito.idp.respond_to_auth_challenge(ClientId=client_id, ChallengeName="EMAIL_OTP", Session=step["Session"],
                                                 ChallengeResponses={"USERNAME": email, "EMAIL_OTP_CODE": code})
    assert done["AuthenticationResult"]["AccessToken"]


def test_a_failing_or_silent_sender_does_not_fail_the_operation(cognito, hook_server):
    # Cognito invokes custom senders asynchronously: their failures are theirs, never the caller's.
    hook_server.answer = lambda call: (500, {"errorType": "Error", "errorMessage": "provider down"}, "application/json")
    pool_id = cognito.create_pool(LambdaConfig=senders(hook_server))
    client_id = cognito.create_client(pool_id)["ClientId"]
    email = cognito_email("unlucky")
    answer = cognito.idp.sign_up(ClientId=client_id, Username=email, Password=COGNITO_PASSWORD, UserAttributes=[{"Name": "email", "Value": email}])
    assert answer["UserConfirmed"] is False and answer["CodeDeliveryDetails"]["DeliveryMedium"] == "EMAIL"
    events = [e for e in cognito.fauxth.control("GET", "/events", params={"type": "hook.called"}).json()["events"]
              if e["detail"]["point"] == "CustomEmailSender"]
    assert [e["detail"]["response"]["status"] for e in events] == [500]

    cognito.fauxth.control("POST", "/faults", json={"rules": [{"id": "slow-sender", "match": {"operation": "cognito:hook.CustomEmailSender"},
                                                               "effect": {"type": "error", "error": "timeout_error"}}]})
    cognito.idp.resend_confirmation_code(ClientId=client_id, Username=email)
    events = [e for e in cognito.fauxth.control("GET", "/events", params={"type": "hook.called"}).json()["events"]
              if e["detail"]["point"] == "CustomEmailSender"]
    assert sorted(e["detail"]["outcome"] for e in events) == ["answered", "timeout"]


def test_kms_decrypt_refuses_another_context_and_another_key(cognito, hook_server):
    call = signed_up_with_senders(cognito, hook_server, "kms")
    _, header = decrypt(call.json["request"]["code"])
    [wrapped] = header.encrypted_data_keys
    kms = boto3.client("kms", region_name="us-east-1", endpoint_url=cognito.fauxth.url, aws_access_key_id="x", aws_secret_access_key="x")
    context = dict(header.encryption_context)
    assert len(kms.decrypt(CiphertextBlob=wrapped.encrypted_data_key, EncryptionContext=context, KeyId=KEY)["Plaintext"]) == 32

    from botocore.exceptions import ClientError
    with pytest.raises(ClientError) as error:
        kms.decrypt(CiphertextBlob=wrapped.encrypted_data_key, EncryptionContext={**context, "userpool-id": "us-east-1_other"})
    assert error.value.response["Error"]["Code"] == "InvalidCiphertextException"
    with pytest.raises(ClientError) as error:
        kms.decrypt(CiphertextBlob=wrapped.encrypted_data_key, EncryptionContext=context, KeyId=KEY.replace("5c8b", "0000"))
    assert error.value.response["Error"]["Code"] == "IncorrectKeyException"


def test_lambda_config_with_a_sender_needs_its_version_and_a_kms_key_arn(cognito, hook_server):
    email_sender = {"LambdaArn": hook_server.at("/email"), "LambdaVersion": "V1_0"}
    error = cognito.fails("create_user_pool", PoolName="p", LambdaConfig={"CustomEmailSender": email_sender})
    assert error["Code"] == "InvalidParameterException" and "KMSKeyID" in error["Message"]
    error = cognito.fails("create_user_pool", PoolName="p", LambdaConfig={"CustomEmailSender": email_sender, "KMSKeyID": "alias/my-custom-sender-key"})
    assert error["Code"] == "InvalidParameterException" and "'lambdaConfig.kMSKeyID' failed to satisfy constraint" in error["Message"]
    error = cognito.fails("create_user_pool", PoolName="p",
                          LambdaConfig={"CustomEmailSender": {**email_sender, "LambdaVersion": "V2_0"}, "KMSKeyID": KEY})
    assert error["Message"].endswith("Member must satisfy enum value set: [V1_0]")
    # The model's bounds (an ARN past 65,535 bytes also ended the process once a code was encrypted with it), and its
    # \w in the pattern is ASCII, as AWS's patterns are.
    error = cognito.fails("create_user_pool", PoolName="p", LambdaConfig={"CustomEmailSender": email_sender, "KMSKeyID": KEY + "x" * 70_000})
    assert error["Message"].endswith("Member must have length less than or equal to 2048")
    error = cognito.fails("create_user_pool", PoolName="p", LambdaConfig={"CustomEmailSender": email_sender, "KMSKeyID": KEY.replace("key/", "ké/")})
    assert "Member must satisfy regular expression pattern" in error["Message"]


def test_the_control_api_sets_a_sender_with_its_key(cognito, hook_server):
    pool_id = cognito.create_pool()
    client_id = cognito.create_client(pool_id)["ClientId"]
    answer = cognito.fauxth.control("PUT", f"/tenants/{pool_id}/hooks/CustomEmailSender", json={"uri": hook_server.at("/email")})
    assert answer.status_code == 400 and "kms_key_id" in answer.text
    answer = cognito.fauxth.control("PUT", f"/tenants/{pool_id}/hooks/CustomEmailSender", json={"uri": hook_server.at("/email"), "kms_key_id": KEY})
    assert answer.status_code == 200, answer.text
    config = cognito.idp.describe_user_pool(UserPoolId=pool_id)["UserPool"]["LambdaConfig"]
    assert config["CustomEmailSender"] == {"LambdaArn": hook_server.at("/email"), "LambdaVersion": "V1_0"} and config["KMSKeyID"] == KEY
    email = cognito_email("control")
    cognito.idp.sign_up(ClientId=client_id, Username=email, Password=COGNITO_PASSWORD, UserAttributes=[{"Name": "email", "Value": email}])
    [call] = hook_server.calls_to("/email")
    assert decrypt(call.json["request"]["code"])[0] == cognito.messages(email)[0]["codes"][0]
