"""Cognito sign-up, confirmation, password recovery and profile changes through boto3's public (unsigned) operations,
with the codes read from fauxth's outbox as a user reads them from their inbox."""
import uuid

from conftest import COGNITO_CLIENT, COGNITO_PASSWORD, COGNITO_POOL, cognito_email


def other_code(code):
    return "000000" if code != "000000" else "111111"


def attributes(user):
    return {a["Name"]: a["Value"] for a in user.get("UserAttributes", user.get("Attributes", []))}


def sign_up(cognito, email, client_id=COGNITO_CLIENT, password=COGNITO_PASSWORD, **extra):
    return cognito.idp.sign_up(ClientId=client_id, Username=email, Password=password,
                               UserAttributes=[{"Name": "email", "Value": email}], **extra)


def test_sign_up_returns_an_unconfirmed_user_and_emails_a_six_digit_code(cognito):
    email = cognito_email("newcomer")
    response = sign_up(cognito, email)
    assert response["UserConfirmed"] is False
    uuid.UUID(response["UserSub"])
    assert response["CodeDeliveryDetails"] == {"Destination": "n***@e***", "DeliveryMedium": "EMAIL", "AttributeName": "email"}
    message = cognito.message(email, "verify_email")
    assert message["channel"] == "email" and message["status"] == "sent"
    [code] = message["codes"]
    assert len(code) == 6 and code.isdigit()
    assert code in message["text"]
    assert cognito.idp.admin_get_user(UserPoolId=COGNITO_POOL, Username=email)["UserStatus"] == "UNCONFIRMED"

    cognito.idp.confirm_sign_up(ClientId=COGNITO_CLIENT, Username=email, ConfirmationCode=code)
    user = cognito.idp.admin_get_user(UserPoolId=COGNITO_POOL, Username=email)
    assert user["UserStatus"] == "CONFIRMED"
    assert attributes(user)["email_verified"] == "true"
    assert attributes(user)["sub"] == response["UserSub"]
    assert cognito.tokens(email)["AccessToken"]
    # A confirmed user cannot be confirmed again, nor sent another code.
    again = cognito.fails("confirm_sign_up", ClientId=COGNITO_CLIENT, Username=email, ConfirmationCode=code)
    assert again["Code"] == "NotAuthorizedException"
    assert cognito.fails("resend_confirmation_code", ClientId=COGNITO_CLIENT, Username=email)["Code"] == "InvalidParameterException"


def test_a_wrong_confirmation_code_is_a_code_mismatch(cognito):
    email = cognito_email("mistyped")
    sign_up(cognito, email)
    code = cognito.code(email, "verify_email")
    error = cognito.fails("confirm_sign_up", ClientId=COGNITO_CLIENT, Username=email, ConfirmationCode=other_code(code))
    assert error["Code"] == "CodeMismatchException"
    assert cognito.idp.admin_get_user(UserPoolId=COGNITO_POOL, Username=email)["UserStatus"] == "UNCONFIRMED"
    cognito.idp.confirm_sign_up(ClientId=COGNITO_CLIENT, Username=email, ConfirmationCode=code)
    assert cognito.idp.admin_get_user(UserPoolId=COGNITO_POOL, Username=email)["UserStatus"] == "CONFIRMED"


def test_sign_up_and_reset_codes_expire_after_24_hours_and_a_resent_one_works(cognito):
    email = cognito_email("slowpoke")
    sign_up(cognito, email)
    first = cognito.message(email, "verify_email")
    cognito.advance(25 * 3600)
    error = cognito.fails("confirm_sign_up", ClientId=COGNITO_CLIENT, Username=email, ConfirmationCode=first["codes"][0])
    assert error["Code"] == "ExpiredCodeException"

    resent = cognito.idp.resend_confirmation_code(ClientId=COGNITO_CLIENT, Username=email)
    assert resent["CodeDeliveryDetails"] == {"Destination": "s***@e***", "DeliveryMedium": "EMAIL", "AttributeName": "email"}
    code = cognito.code(email, "verify_email", since=first["id"])
    cognito.idp.confirm_sign_up(ClientId=COGNITO_CLIENT, Username=email, ConfirmationCode=code)
    assert cognito.idp.admin_get_user(UserPoolId=COGNITO_POOL, Username=email)["UserStatus"] == "CONFIRMED"

    cognito.idp.forgot_password(ClientId=COGNITO_CLIENT, Username=email)
    code = cognito.code(email, "reset_password")
    cognito.advance(25 * 3600)
    error = cognito.fails("confirm_forgot_password", ClientId=COGNITO_CLIENT, Username=email, ConfirmationCode=code,
                          Password="newpassword456")
    assert error["Code"] == "ExpiredCodeException"
    assert cognito.tokens(email)["AccessToken"]  # the old password still works


def test_signing_up_a_taken_email_is_username_exists(cognito):
    error = cognito.fails("sign_up", ClientId=COGNITO_CLIENT, Username="alice@example.com", Password=COGNITO_PASSWORD,
                          UserAttributes=[{"Name": "email", "Value": "alice@example.com"}])
    assert error["Code"] == "UsernameExistsException"
    assert cognito.messages("alice@example.com") == []


def test_passwords_are_checked_against_the_pool_policy(cognito):
    # The seed pool: 8+ characters with lowercase letters and numbers; no uppercase or symbol needed.
    for weak in ("short12", "nonumbers", "UPPERCASE123"):
        error = cognito.fails("sign_up", ClientId=COGNITO_CLIENT, Username=cognito_email("weak"), Password=weak)
        assert error["Code"] == "InvalidPasswordException", weak
        assert error["Message"].startswith("Password did not conform with policy"), error["Message"]
    assert sign_up(cognito, cognito_email("plain"), password="lowercase123")["UserConfirmed"] is False

    strict = cognito.create_pool(policy={"MinimumLength": 10, "RequireLowercase": True, "RequireNumbers": True,
                                         "RequireUppercase": True, "RequireSymbols": True})
    client_id = cognito.create_client(strict)["ClientId"]
    refused = cognito.fails("sign_up", ClientId=client_id, Username=cognito_email("strict"), Password="password1234")
    assert refused["Code"] == "InvalidPasswordException"
    assert sign_up(cognito, cognito_email("strict"), client_id=client_id, password="Password123!")["UserSub"]
    # Cognito's classes are Basic Latin letters, ASCII digits and its symbols, a space among them unless it leads or trails.
    for password, missing in (("éééééABC12!", "lowercase"), ("abcdeÉÉÉ12!", "uppercase"), ("abcdeABC١٢!", "numeric"),
                              (" abcdeABC12", "symbol")):
        refused = cognito.fails("sign_up", ClientId=client_id, Username=cognito_email("classes"), Password=password)
        assert refused["Message"] == f"Password did not conform with policy: Password must have {missing} characters", password
    assert sign_up(cognito, cognito_email("spaced"), client_id=client_id, password="abcde ABC12")["UserSub"]


def test_an_email_username_pool_needs_an_email_and_names_users_by_their_sub(cognito):
    error = cognito.fails("sign_up", ClientId=COGNITO_CLIENT, Username=f"dora{uuid.uuid4().hex[:6]}", Password=COGNITO_PASSWORD)
    assert error["Code"] == "InvalidParameterException"
    email = cognito_email("aliased")
    sub = sign_up(cognito, email)["UserSub"]
    cognito.idp.confirm_sign_up(ClientId=COGNITO_CLIENT, Username=email, ConfirmationCode=cognito.code(email, "verify_email"))
    assert cognito.idp.admin_get_user(UserPoolId=COGNITO_POOL, Username=email)["Username"] == sub
    [listed] = cognito.idp.list_users(UserPoolId=COGNITO_POOL, Filter=f'email = "{email}"')["Users"]
    assert listed["Username"] == sub
    access = cognito.verify(cognito.tokens(email)["AccessToken"], "access")
    assert access["username"] == access["sub"] == sub


def test_a_username_pool_keeps_the_username_and_verifies_the_email(cognito):
    pool_id = cognito.create_pool(username_attributes=())
    client_id = cognito.create_client(pool_id)["ClientId"]
    username = f"dora_{uuid.uuid4().hex[:6]}"
    email = cognito_email("dora")
    response = cognito.idp.sign_up(ClientId=client_id, Username=username, Password=COGNITO_PASSWORD,
                                   UserAttributes=[{"Name": "email", "Value": email}])
    assert response["CodeDeliveryDetails"] == {"Destination": "d***@e***", "DeliveryMedium": "EMAIL", "AttributeName": "email"}
    cognito.idp.confirm_sign_up(ClientId=client_id, Username=username, ConfirmationCode=cognito.code(email, "verify_email"))
    user = cognito.idp.admin_get_user(UserPoolId=pool_id, Username=username)
    assert user["Username"] == username and user["UserStatus"] == "CONFIRMED"
    assert attributes(user)["email_verified"] == "true"
    tokens = cognito.tokens(username, client_id=client_id)
    access = cognito.verify(tokens["AccessToken"], "access", pool_id, client_id)
    identity = cognito.verify(tokens["IdToken"], "id", pool_id, client_id)
    assert access["username"] == identity["cognito:username"] == username
    assert access["sub"] == response["UserSub"] != username
    assert identity["email"] == email


def test_without_auto_verified_attributes_sign_up_sends_no_code(cognito):
    pool_id = cognito.create_pool(auto_verified=())
    client_id = cognito.create_client(pool_id)["ClientId"]
    email = cognito_email("quiet")
    response = sign_up(cognito, email, client_id=client_id)
    assert response["UserConfirmed"] is False
    assert "CodeDeliveryDetails" not in response
    assert cognito.messages(email) == []
    cognito.idp.admin_confirm_sign_up(UserPoolId=pool_id, Username=email)
    assert cognito.idp.admin_get_user(UserPoolId=pool_id, Username=email)["UserStatus"] == "CONFIRMED"


def test_a_phone_verified_pool_texts_the_code_to_a_masked_number(cognito):
    pool_id = cognito.create_pool(username_attributes=("phone_number",), auto_verified=("phone_number",),
                                  SmsConfiguration={"SnsCallerArn": "arn:aws:iam::123456789012:role/fauxth-sms", "ExternalId": "fauxth"})
    client_id = cognito.create_client(pool_id)["ClientId"]
    phone = "+1555555" + str(uuid.uuid4().int)[:4]
    response = cognito.idp.sign_up(ClientId=client_id, Username=phone, Password=COGNITO_PASSWORD,
                                   UserAttributes=[{"Name": "phone_number", "Value": phone}])
    assert response["CodeDeliveryDetails"] == {"Destination": "+*******" + phone[-4:], "DeliveryMedium": "SMS",
                                               "AttributeName": "phone_number"}
    sms = cognito.message(phone, channel="sms")
    assert sms["channel"] == "sms"
    cognito.idp.confirm_sign_up(ClientId=client_id, Username=phone, ConfirmationCode=sms["codes"][0])
    user = cognito.idp.admin_get_user(UserPoolId=pool_id, Username=phone)
    assert user["UserStatus"] == "CONFIRMED"
    assert attributes(user)["phone_number_verified"] == "true"


def test_forgot_password_emails_a_code_that_sets_a_new_password(cognito):
    started = cognito.idp.forgot_password(ClientId=COGNITO_CLIENT, Username="alice@example.com")
    assert started["CodeDeliveryDetails"] == {"Destination": "a***@e***", "DeliveryMedium": "EMAIL", "AttributeName": "email"}
    message = cognito.message("alice@example.com", "reset_password")
    assert message["channel"] == "email"
    code = message["codes"][0]
    wrong = cognito.fails("confirm_forgot_password", ClientId=COGNITO_CLIENT, Username="alice@example.com",
                          ConfirmationCode=other_code(code), Password="newpassword456")
    assert wrong["Code"] == "CodeMismatchException"
    weak = cognito.fails("confirm_forgot_password", ClientId=COGNITO_CLIENT, Username="alice@example.com",
                         ConfirmationCode=code, Password="short")
    assert weak["Code"] == "InvalidPasswordException"

    cognito.idp.confirm_forgot_password(ClientId=COGNITO_CLIENT, Username="alice@example.com", ConfirmationCode=code,
                                        Password="newpassword456")
    assert cognito.fails("initiate_auth", ClientId=COGNITO_CLIENT, AuthFlow="USER_PASSWORD_AUTH",
                         AuthParameters={"USERNAME": "alice@example.com", "PASSWORD": COGNITO_PASSWORD})["Code"] == "NotAuthorizedException"
    assert cognito.tokens("alice@example.com", "newpassword456")["AccessToken"]
    reused = cognito.fails("confirm_forgot_password", ClientId=COGNITO_CLIENT, Username="alice@example.com",
                           ConfirmationCode=code, Password="another789x")
    assert reused["Code"] in ("CodeMismatchException", "ExpiredCodeException")


def test_forgot_password_in_an_admin_only_recovery_pool_is_refused(cognito):
    pool_id = cognito.create_pool(AccountRecoverySetting={"RecoveryMechanisms": [{"Priority": 1, "Name": "admin_only"}]})
    client_id = cognito.create_client(pool_id)["ClientId"]
    email = cognito.admin_user(pool_id, cognito_email("locked"))
    error = cognito.fails("forgot_password", ClientId=client_id, Username=email)
    assert error["Code"] == "NotAuthorizedException"
    assert cognito.messages(email) == []


def test_change_password_needs_the_previous_password_and_the_policy(cognito):
    email = cognito.signed_up_user(cognito_email("changer"))
    access = cognito.tokens(email)["AccessToken"]
    wrong = cognito.fails("change_password", AccessToken=access, PreviousPassword="not-it-123", ProposedPassword="changed456")
    assert wrong["Code"] == "NotAuthorizedException"
    weak = cognito.fails("change_password", AccessToken=access, PreviousPassword=COGNITO_PASSWORD, ProposedPassword="NOLOWER123")
    assert weak["Code"] == "InvalidPasswordException"
    cognito.idp.change_password(AccessToken=access, PreviousPassword=COGNITO_PASSWORD, ProposedPassword="changed456")
    assert cognito.fails("initiate_auth", ClientId=COGNITO_CLIENT, AuthFlow="USER_PASSWORD_AUTH",
                         AuthParameters={"USERNAME": email, "PASSWORD": COGNITO_PASSWORD})["Code"] == "NotAuthorizedException"
    assert cognito.tokens(email, "changed456")["AccessToken"]
    bad_token = cognito.fails("change_password", AccessToken="not-a-token", PreviousPassword="changed456", ProposedPassword="again7890")
    assert bad_token["Code"] == "NotAuthorizedException"


def test_a_changed_email_is_unverified_until_the_emailed_code_is_entered(cognito):
    pool_id = cognito.create_pool(username_attributes=())
    client_id = cognito.create_client(pool_id)["ClientId"]
    username = f"mover_{uuid.uuid4().hex[:6]}"
    cognito.admin_user(pool_id, username, attributes={"email": cognito_email("old"), "email_verified": "true"})
    access = cognito.tokens(username, client_id=client_id)["AccessToken"]

    new_email = cognito_email("moved")
    updated = cognito.idp.update_user_attributes(AccessToken=access, UserAttributes=[{"Name": "email", "Value": new_email},
                                                                                     {"Name": "name", "Value": "Mo Ver"}])
    assert updated["CodeDeliveryDetailsList"] == [{"Destination": "m***@e***", "DeliveryMedium": "EMAIL", "AttributeName": "email"}]
    first = cognito.message(new_email, "verify_email")
    profile = attributes(cognito.idp.get_user(AccessToken=access))
    assert (profile["email"], profile["email_verified"], profile["name"]) == (new_email, "false", "Mo Ver")

    again = cognito.idp.get_user_attribute_verification_code(AccessToken=access, AttributeName="email")
    assert again["CodeDeliveryDetails"]["Destination"] == "m***@e***"
    code = cognito.code(new_email, "verify_email", since=first["id"])
    wrong = cognito.fails("verify_user_attribute", AccessToken=access, AttributeName="email", Code=other_code(code))
    assert wrong["Code"] == "CodeMismatchException"
    cognito.idp.verify_user_attribute(AccessToken=access, AttributeName="email", Code=code)
    assert attributes(cognito.idp.get_user(AccessToken=access))["email_verified"] == "true"


def test_delete_user_removes_the_account(cognito):
    email = cognito.signed_up_user(cognito_email("leaver"))
    access = cognito.tokens(email)["AccessToken"]
    cognito.idp.delete_user(AccessToken=access)
    assert cognito.fails("admin_get_user", UserPoolId=COGNITO_POOL, Username=email)["Code"] == "UserNotFoundException"
    assert cognito.fails("get_user", AccessToken=access)["Code"] in ("NotAuthorizedException", "UserNotFoundException")
    # The address is free again.
    assert sign_up(cognito, email)["UserConfirmed"] is False


def test_a_passwordless_sign_up_and_its_confirmation_session_sign_the_user_in_once(cognito):
    """Amplify's passwordless sign-up with auto sign-in, through boto3: SignUp without a password (the seeded pool's first
    factors include an emailed code, its client allows USER_AUTH), ConfirmSignUp's `Session`, and InitiateAuth USER_AUTH
    with it answering tokens with no code or password asked, once."""
    email = cognito_email("passwordless")
    signed_up = cognito.idp.sign_up(ClientId=COGNITO_CLIENT, Username=email, UserAttributes=[{"Name": "email", "Value": email}])
    assert signed_up["UserConfirmed"] is False and signed_up["Session"]
    confirmed = cognito.idp.confirm_sign_up(ClientId=COGNITO_CLIENT, Username=email, ConfirmationCode=cognito.code(email, "verify_email"),
                                            Session=signed_up["Session"])

    def start():
        return cognito.idp.initiate_auth(ClientId=COGNITO_CLIENT, AuthFlow="USER_AUTH", Session=confirmed["Session"],
                                         AuthParameters={"USERNAME": email})
    tokens = start()["AuthenticationResult"]
    assert cognito.idp.get_user(AccessToken=tokens["AccessToken"])["Username"] == signed_up["UserSub"]
    assert cognito.fails("initiate_auth", ClientId=COGNITO_CLIENT, AuthFlow="USER_AUTH", Session=confirmed["Session"],
                         AuthParameters={"USERNAME": email})["Code"] == "NotAuthorizedException"
    # No password was set: USER_AUTH offers the emailed code alone.
    offered = cognito.idp.initiate_auth(ClientId=COGNITO_CLIENT, AuthFlow="USER_AUTH", AuthParameters={"USERNAME": email})
    assert offered["AvailableChallenges"] == ["EMAIL_OTP"]


def test_user_auth_for_an_unknown_name_is_a_challenge_like_a_users(cognito):
    """With PreventUserExistenceErrors, USER_AUTH answers an unknown name with a challenge the pool allows (AWS's user
    existence page), which no code passes, and sends nothing."""
    started = cognito.idp.initiate_auth(ClientId=COGNITO_CLIENT, AuthFlow="USER_AUTH",
                                        AuthParameters={"USERNAME": "nobody@example.com", "PREFERRED_CHALLENGE": "EMAIL_OTP"})
    assert started["ChallengeName"] == "EMAIL_OTP"
    assert started["ChallengeParameters"] == {"CODE_DELIVERY_DELIVERY_MEDIUM": "EMAIL", "CODE_DELIVERY_DESTINATION": "n***@e***"}
    wrong = cognito.fails("respond_to_auth_challenge", ClientId=COGNITO_CLIENT, ChallengeName="EMAIL_OTP", Session=started["Session"],
                          ChallengeResponses={"USERNAME": "nobody@example.com", "EMAIL_OTP_CODE": "123456"})
    assert (wrong["Code"], wrong["Message"]) == ("CodeMismatchException", "Invalid code or auth state for the user.")
    assert cognito.messages("nobody@example.com") == []
