"""Cognito MFA: TOTP set up with AssociateSoftwareToken/VerifySoftwareToken (with an access token, or with the
sign-in Session in an MFA-required pool) and answered with pyotp codes, and SMS_MFA answered with the texted code.
The TOTP tests freeze the emulator clock 30 s behind this machine's and compute codes at the emulator's time, then
advance it one TOTP step: the sign-in code differs from the set-up code and tokens are not minted in the future."""
import datetime
import re

import pyotp
import pytest
from botocore.exceptions import ClientError
from pycognito import Cognito
from pycognito.exceptions import SoftwareTokenMFAChallengeException

from conftest import COGNITO_PASSWORD, cognito_email, hosted_ui_client, hosted_ui_sign_in

SMS_CONFIG = {"SnsCallerArn": "arn:aws:iam::123456789012:role/fauxth-sms", "ExternalId": "fauxth"}


def mfa_pool(cognito, mode="OPTIONAL", sms=False):
    """A pool whose MFA is `mode` with TOTP (and SMS when `sms`) allowed, and an app client for it."""
    pool_id = cognito.create_pool(SmsConfiguration=SMS_CONFIG)
    config = {"UserPoolId": pool_id, "MfaConfiguration": mode, "SoftwareTokenMfaConfiguration": {"Enabled": True}}
    if sms:
        config["SmsMfaConfiguration"] = {"SmsAuthenticationMessage": "Your code is {####}", "SmsConfiguration": SMS_CONFIG}
    applied = cognito.idp.set_user_pool_mfa_config(**config)
    assert applied["MfaConfiguration"] == mode
    assert applied["SoftwareTokenMfaConfiguration"] == {"Enabled": True}
    return pool_id, cognito.create_client(pool_id)["ClientId"]


def freeze_behind(cognito, seconds=30):
    cognito.freeze(datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(seconds=seconds))


def totp_now(cognito, secret):
    return pyotp.TOTP(secret).at(cognito.now())


def other_code(code):
    return str((int(code) + 1) % 1_000_000).zfill(6)


def test_totp_is_associated_verified_preferred_and_then_asked_for_at_sign_in(cognito):
    pool_id, client_id = mfa_pool(cognito)
    email = cognito.admin_user(pool_id, cognito_email("totp"))
    freeze_behind(cognito)
    access = cognito.tokens(email, client_id=client_id)["AccessToken"]
    assert "UserMFASettingList" not in cognito.idp.get_user(AccessToken=access)
    factors = cognito.idp.get_user_auth_factors(AccessToken=access)
    assert factors["ConfiguredUserAuthFactors"] == ["PASSWORD"]
    assert "UserMFASettingList" not in factors and "PreferredMfaSetting" not in factors

    secret = cognito.idp.associate_software_token(AccessToken=access)["SecretCode"]
    assert re.fullmatch(r"[A-Z2-7]{16,}=*", secret)
    early = cognito.fails("set_user_mfa_preference", AccessToken=access,
                          SoftwareTokenMfaSettings={"Enabled": True, "PreferredMfa": True})
    assert early["Code"] == "InvalidParameterException"
    right = totp_now(cognito, secret)
    wrong = cognito.fails("verify_software_token", AccessToken=access, UserCode=other_code(right))
    # AWS's words, without a full stop (amplify-ui's end-to-end features match on them).
    assert (wrong["Code"], wrong["Message"]) == ("EnableSoftwareTokenMFAException", "Code mismatch and fail enable Software Token MFA")
    verified = cognito.idp.verify_software_token(AccessToken=access, UserCode=right, FriendlyDeviceName="Pixel")
    assert verified["Status"] == "SUCCESS"
    cognito.idp.set_user_mfa_preference(AccessToken=access, SoftwareTokenMfaSettings={"Enabled": True, "PreferredMfa": True})
    user = cognito.idp.get_user(AccessToken=access)
    assert user["UserMFASettingList"] == ["SOFTWARE_TOKEN_MFA"]
    assert user["PreferredMfaSetting"] == "SOFTWARE_TOKEN_MFA"
    factors = cognito.idp.admin_get_user_auth_factors(UserPoolId=pool_id, Username=email)
    assert factors["ConfiguredUserAuthFactors"] == ["PASSWORD", "SOFTWARE_TOKEN"]
    assert factors["UserMFASettingList"] == ["SOFTWARE_TOKEN_MFA"] and factors["PreferredMfaSetting"] == "SOFTWARE_TOKEN_MFA"

    cognito.advance(30)
    challenge = cognito.password_auth(email, client_id=client_id)
    assert challenge["ChallengeName"] == "SOFTWARE_TOKEN_MFA"
    assert challenge["Session"] and "AuthenticationResult" not in challenge
    code = totp_now(cognito, secret)
    mismatch = cognito.fails("respond_to_auth_challenge", ClientId=client_id, ChallengeName="SOFTWARE_TOKEN_MFA", Session=challenge["Session"],
                             ChallengeResponses={"USERNAME": email, "SOFTWARE_TOKEN_MFA_CODE": other_code(code)})
    assert mismatch["Code"] == "CodeMismatchException"

    challenge = cognito.password_auth(email, client_id=client_id)
    done = cognito.idp.respond_to_auth_challenge(ClientId=client_id, ChallengeName="SOFTWARE_TOKEN_MFA", Session=challenge["Session"],
                                                 ChallengeResponses={"USERNAME": email, "SOFTWARE_TOKEN_MFA_CODE": code})
    tokens = done["AuthenticationResult"]
    assert cognito.verify(tokens["IdToken"], "id", pool_id, client_id)["email"] == email
    assert tokens["RefreshToken"]


def test_pycognito_answers_the_totp_challenge_once_per_code(cognito):
    pool_id, client_id = mfa_pool(cognito)
    email = cognito.admin_user(pool_id, cognito_email("authenticator"))
    freeze_behind(cognito)
    user = Cognito(pool_id, client_id, username=email, access_key="x", secret_key="x",
                   access_token=cognito.tokens(email, client_id=client_id)["AccessToken"])
    user.client = cognito.boto3_client()
    user.pool_jwk = cognito.jwks(pool_id)
    secret = user.associate_software_token()
    assert user.verify_software_token(totp_now(cognito, secret), device_name="Authenticator") is True
    user.set_user_mfa_preference(sms_mfa=False, software_token_mfa=True, preferred="SOFTWARE_TOKEN")

    cognito.advance(30)
    with pytest.raises(SoftwareTokenMFAChallengeException):
        user.authenticate(password=COGNITO_PASSWORD)
    code = totp_now(cognito, secret)
    user.respond_to_software_token_mfa_challenge(code)
    assert user.id_claims["email"] == email

    with pytest.raises(SoftwareTokenMFAChallengeException):
        user.authenticate(password=COGNITO_PASSWORD)
    with pytest.raises(ClientError) as reused:
        user.respond_to_software_token_mfa_challenge(code)
    assert reused.value.response["Error"]["Code"] == "ExpiredCodeException"


def test_sms_mfa_texts_a_code_that_answers_the_challenge(cognito):
    pool_id, client_id = mfa_pool(cognito, sms=True)
    email = cognito_email("texted")
    cognito.admin_user(pool_id, email, attributes={"phone_number": "+15555550142", "phone_number_verified": "true"})
    cognito.idp.admin_set_user_mfa_preference(UserPoolId=pool_id, Username=email, SMSMfaSettings={"Enabled": True, "PreferredMfa": True})
    user = cognito.idp.admin_get_user(UserPoolId=pool_id, Username=email)
    assert user["UserMFASettingList"] == ["SMS_MFA"] and user["PreferredMfaSetting"] == "SMS_MFA"

    challenge = cognito.password_auth(email, client_id=client_id)
    assert challenge["ChallengeName"] == "SMS_MFA"
    params = challenge["ChallengeParameters"]
    assert params["CODE_DELIVERY_DELIVERY_MEDIUM"] == "SMS"
    assert params["CODE_DELIVERY_DESTINATION"] == "+*******0142"
    first = cognito.message("+15555550142", "mfa")
    assert first["channel"] == "sms"
    code = first["codes"][0]
    assert len(code) == 6 and code.isdigit()
    mismatch = cognito.fails("respond_to_auth_challenge", ClientId=client_id, ChallengeName="SMS_MFA", Session=challenge["Session"],
                             ChallengeResponses={"USERNAME": email, "SMS_MFA_CODE": other_code(code)})
    assert mismatch["Code"] == "CodeMismatchException"

    challenge = cognito.password_auth(email, client_id=client_id)
    code = cognito.code("+15555550142", "mfa", since=first["id"])
    done = cognito.idp.respond_to_auth_challenge(ClientId=client_id, ChallengeName="SMS_MFA", Session=challenge["Session"],
                                                 ChallengeResponses={"USERNAME": email, "SMS_MFA_CODE": code})
    assert cognito.verify(done["AuthenticationResult"]["AccessToken"], "access", pool_id, client_id)["client_id"] == client_id

    # Switching SMS MFA off brings back single-step sign-in.
    cognito.idp.admin_set_user_mfa_preference(UserPoolId=pool_id, Username=email, SMSMfaSettings={"Enabled": False, "PreferredMfa": False})
    assert not cognito.idp.admin_get_user(UserPoolId=pool_id, Username=email).get("UserMFASettingList")
    assert cognito.password_auth(email, client_id=client_id)["AuthenticationResult"]["AccessToken"]


def test_legacy_sms_settings_turn_sms_mfa_on_and_off_as_amazon_cognito_identity_js_sends_them(cognito):
    """`SetUserSettings` is what amazon-cognito-identity-js's enableMFA and disableMFA send (and Amplify v5's enableSMS):
    AWS then shows SMS MFA only as MFAOptions, and asks for an SMS code at sign-in all the same."""
    pool_id, client_id = mfa_pool(cognito, sms=True)
    email = cognito_email("legacy")
    cognito.admin_user(pool_id, email, attributes={"phone_number": "+15555550143", "phone_number_verified": "true"})
    access = cognito.tokens(email, client_id=client_id)["AccessToken"]
    sms = [{"DeliveryMedium": "SMS", "AttributeName": "phone_number"}]
    cognito.idp.set_user_settings(AccessToken=access, MFAOptions=sms)
    user = cognito.idp.get_user(AccessToken=access)
    assert user["MFAOptions"] == sms and "UserMFASettingList" not in user and "PreferredMfaSetting" not in user
    challenge = cognito.password_auth(email, client_id=client_id)
    assert challenge["ChallengeName"] == "SMS_MFA"
    done = cognito.idp.respond_to_auth_challenge(ClientId=client_id, ChallengeName="SMS_MFA", Session=challenge["Session"], ChallengeResponses={
        "USERNAME": email, "SMS_MFA_CODE": cognito.code("+15555550143", "mfa")})
    assert done["AuthenticationResult"]["AccessToken"]

    cognito.idp.admin_set_user_settings(UserPoolId=pool_id, Username=email, MFAOptions=[])
    assert "MFAOptions" not in cognito.idp.admin_get_user(UserPoolId=pool_id, Username=email)
    assert cognito.password_auth(email, client_id=client_id)["AuthenticationResult"]["AccessToken"]
    # SMS on phone_number is all AWS takes.
    wrong = cognito.fails("admin_set_user_settings", UserPoolId=pool_id, Username=email,
                          MFAOptions=[{"DeliveryMedium": "EMAIL", "AttributeName": "email"}])
    assert wrong == {"Code": "InvalidParameterException", "Message": "Only phone_number attribute is currently supported as a MFA option."}


def test_an_mfa_required_pool_makes_a_new_user_set_up_totp_with_the_session(cognito):
    pool_id, client_id = mfa_pool(cognito, mode="ON")
    email = cognito.admin_user(pool_id, cognito_email("mandatory"))
    freeze_behind(cognito)
    setup = cognito.password_auth(email, client_id=client_id)
    assert setup["ChallengeName"] == "MFA_SETUP"
    assert "SOFTWARE_TOKEN_MFA" in setup["ChallengeParameters"]["MFAS_CAN_SETUP"]
    assert "AuthenticationResult" not in setup

    associated = cognito.idp.associate_software_token(Session=setup["Session"])
    secret = associated["SecretCode"]
    verified = cognito.idp.verify_software_token(Session=associated["Session"], UserCode=totp_now(cognito, secret))
    assert verified["Status"] == "SUCCESS"
    done = cognito.idp.respond_to_auth_challenge(ClientId=client_id, ChallengeName="MFA_SETUP", Session=verified["Session"],
                                                 ChallengeResponses={"USERNAME": email})
    assert done["AuthenticationResult"]["AccessToken"]

    cognito.advance(30)
    challenge = cognito.password_auth(email, client_id=client_id)
    assert challenge["ChallengeName"] == "SOFTWARE_TOKEN_MFA"
    tokens = cognito.idp.respond_to_auth_challenge(ClientId=client_id, ChallengeName="SOFTWARE_TOKEN_MFA", Session=challenge["Session"],
                                                   ChallengeResponses={"USERNAME": email, "SOFTWARE_TOKEN_MFA_CODE": totp_now(cognito, secret)})
    assert cognito.verify(tokens["AuthenticationResult"]["IdToken"], "id", pool_id, client_id)["email"] == email
    assert cognito.idp.admin_get_user(UserPoolId=pool_id, Username=email)["UserMFASettingList"] == ["SOFTWARE_TOKEN_MFA"]


def test_an_mfa_required_pool_lets_a_user_without_an_email_set_up_email_mfa_with_an_address(cognito):
    """What Amplify's confirmSignIn sends after CONTINUE_SIGN_IN_WITH_EMAIL_SETUP: MFA_SETUP answered with an EMAIL,
    then the code sent there; the address becomes the user's, verified, and their MFA."""
    pool_id = cognito.create_pool(username_attributes=(), auto_verified=(), UserPoolTier="ESSENTIALS")
    cognito.idp.set_user_pool_mfa_config(UserPoolId=pool_id, MfaConfiguration="ON", SoftwareTokenMfaConfiguration={"Enabled": True},
                                         EmailMfaConfiguration={"Message": "Code {####}", "Subject": "Sign in"})
    client_id = cognito.create_client(pool_id)["ClientId"]
    cognito.admin_user(pool_id, "frank")
    address = cognito_email("frank")
    setup = cognito.password_auth("frank", client_id=client_id)
    assert setup["ChallengeName"] == "MFA_SETUP"
    assert setup["ChallengeParameters"]["MFAS_CAN_SETUP"] == '["SOFTWARE_TOKEN_MFA","EMAIL_OTP"]'
    sent = cognito.idp.respond_to_auth_challenge(ClientId=client_id, ChallengeName="MFA_SETUP", Session=setup["Session"],
                                                 ChallengeResponses={"USERNAME": "frank", "EMAIL": address})
    assert sent["ChallengeName"] == "EMAIL_OTP"
    assert sent["ChallengeParameters"]["CODE_DELIVERY_DELIVERY_MEDIUM"] == "EMAIL"
    done = cognito.idp.respond_to_auth_challenge(ClientId=client_id, ChallengeName="EMAIL_OTP", Session=sent["Session"],
                                                 ChallengeResponses={"USERNAME": "frank", "EMAIL_OTP_CODE": cognito.code(address, "mfa")})
    assert done["AuthenticationResult"]["AccessToken"]
    user = cognito.idp.admin_get_user(UserPoolId=pool_id, Username="frank")
    assert user["UserMFASettingList"] == ["EMAIL_OTP"] and user["PreferredMfaSetting"] == "EMAIL_OTP"
    attributes = {item["Name"]: item["Value"] for item in user["UserAttributes"]}
    assert (attributes["email"], attributes["email_verified"]) == (address, "true")
    assert cognito.password_auth("frank", client_id=client_id)["ChallengeName"] == "EMAIL_OTP"


def test_chromium_sets_up_an_authenticator_on_the_hosted_ui_when_the_pool_requires_mfa(cognito, browser):
    """A pool that requires MFA and a user without any: Cognito's hosted UI has them add an authenticator app (a QR code
    and its key) and asks for its first code before it sends the browser back with an authorization code."""
    import requests
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as EC
    from selenium.webdriver.support.ui import WebDriverWait

    from conftest import query

    pool_id, _ = mfa_pool(cognito, mode="ON")
    email = cognito.admin_user(pool_id, cognito_email("hosted-setup"))
    callback = "http://localhost:3000/callback"
    client_id = hosted_ui_client(cognito, pool_id, callback)
    freeze_behind(cognito)
    wait = WebDriverWait(browser, 15)
    hosted_ui_sign_in(browser, cognito.url, client_id, callback, email, COGNITO_PASSWORD)

    key = wait.until(EC.presence_of_element_located((By.ID, "authenticator-key"))).text
    assert "Set up an authenticator app" in browser.page_source
    qr = browser.find_element(By.CSS_SELECTOR, ".qr svg")
    assert qr.size["width"] >= 100 and qr.size["height"] >= 100
    code = totp_now(cognito, key)
    browser.find_element(By.ID, "code").send_keys(other_code(code))
    browser.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, ".alert")))
    assert "Code mismatch" in browser.page_source and browser.find_element(By.ID, "authenticator-key").text == key
    browser.find_element(By.ID, "code").send_keys(code)
    browser.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    wait.until(lambda driver: driver.current_url.startswith(callback) and "code=" in driver.current_url)
    tokens = requests.post(f"{cognito.url}/oauth2/token", timeout=30, data={
        "grant_type": "authorization_code", "client_id": client_id, "code": query(browser.current_url)["code"], "redirect_uri": callback}).json()
    assert cognito.verify(tokens["id_token"], "id", pool_id=pool_id, client_id=client_id)["email"] == email
    assert cognito.idp.admin_get_user(UserPoolId=pool_id, Username=email)["UserMFASettingList"] == ["SOFTWARE_TOKEN_MFA"]

    # The API sees the same authenticator: the next sign-in asks for its code.
    cognito.advance(30)
    challenge = cognito.password_auth(email, client_id=client_id)
    assert challenge["ChallengeName"] == "SOFTWARE_TOKEN_MFA"
    done = cognito.idp.respond_to_auth_challenge(ClientId=client_id, ChallengeName="SOFTWARE_TOKEN_MFA", Session=challenge["Session"],
                                                 ChallengeResponses={"USERNAME": email, "SOFTWARE_TOKEN_MFA_CODE": totp_now(cognito, key)})
    assert done["AuthenticationResult"]["AccessToken"]


def test_totp_outlives_the_pools_switch_and_sms_mfa_verifies_the_number(cognito):
    """From AWS's developer guide: "users who previously associated and verified a TOTP token can continue to use it"
    after the pool turns TOTP off, while nobody new can set one up ("Software Token MFA has not been enabled by the
    userPool"); completing SMS MFA sets phone_number_verified; and OFF beside an enabled factor is refused."""
    pool_id, client_id = mfa_pool(cognito, sms=True)
    email = cognito.admin_user(pool_id, cognito_email("kept-totp"))
    freeze_behind(cognito)
    access = cognito.tokens(email, client_id=client_id)["AccessToken"]
    secret = cognito.idp.associate_software_token(AccessToken=access)["SecretCode"]
    cognito.idp.verify_software_token(AccessToken=access, UserCode=totp_now(cognito, secret))
    cognito.idp.set_user_mfa_preference(AccessToken=access, SoftwareTokenMfaSettings={"Enabled": True, "PreferredMfa": True})
    cognito.idp.set_user_pool_mfa_config(UserPoolId=pool_id, MfaConfiguration="OPTIONAL", SoftwareTokenMfaConfiguration={"Enabled": False},
                                         SmsMfaConfiguration={"SmsAuthenticationMessage": "Your code is {####}", "SmsConfiguration": SMS_CONFIG})
    assert cognito.password_auth(email, client_id=client_id)["ChallengeName"] == "SOFTWARE_TOKEN_MFA"
    other = cognito.admin_user(pool_id, cognito_email("new-totp"))
    other_access = cognito.tokens(other, client_id=client_id)["AccessToken"]
    assert cognito.fails("associate_software_token", AccessToken=other_access) == {
        "Code": "SoftwareTokenMFANotFoundException", "Message": "Software Token MFA has not been enabled by the userPool"}

    texted = cognito_email("texted-unverified")
    cognito.admin_user(pool_id, texted, attributes={"phone_number": "+15555550143"})
    cognito.idp.admin_set_user_mfa_preference(UserPoolId=pool_id, Username=texted, SMSMfaSettings={"Enabled": True, "PreferredMfa": True})
    challenge = cognito.password_auth(texted, client_id=client_id)
    cognito.idp.respond_to_auth_challenge(ClientId=client_id, ChallengeName="SMS_MFA", Session=challenge["Session"],
                                          ChallengeResponses={"USERNAME": texted, "SMS_MFA_CODE": cognito.code("+15555550143", "mfa")})
    attributes = {a["Name"]: a["Value"] for a in cognito.idp.admin_get_user(UserPoolId=pool_id, Username=texted)["UserAttributes"]}
    assert attributes["phone_number_verified"] == "true"

    refused = cognito.fails("set_user_pool_mfa_config", UserPoolId=pool_id, MfaConfiguration="OFF", SoftwareTokenMfaConfiguration={"Enabled": True})
    assert refused["Message"] == "Invalid MFA configuration given, can't turn off MFA and configure an MFA together."


def test_an_administrator_deletes_a_lost_authenticator(cognito):
    """AdminDeleteSoftwareToken: "the user can no longer sign in with TOTP MFA, and can register a new TOTP factor"; in
    a pool that requires MFA the next sign-in asks them to set one up (MFA_SETUP)."""
    pool_id, client_id = mfa_pool(cognito, mode="ON")
    email = cognito.admin_user(pool_id, cognito_email("lost-totp"))
    freeze_behind(cognito)
    setup = cognito.password_auth(email, client_id=client_id)
    assert setup["ChallengeName"] == "MFA_SETUP"
    associated = cognito.idp.associate_software_token(Session=setup["Session"])
    verified = cognito.idp.verify_software_token(Session=associated["Session"], UserCode=totp_now(cognito, associated["SecretCode"]))
    cognito.idp.respond_to_auth_challenge(ClientId=client_id, ChallengeName="MFA_SETUP", Session=verified["Session"],
                                          ChallengeResponses={"USERNAME": email})
    assert cognito.password_auth(email, client_id=client_id)["ChallengeName"] == "SOFTWARE_TOKEN_MFA"

    cognito.idp.admin_delete_software_token(UserPoolId=pool_id, Username=email)
    assert not cognito.idp.admin_get_user(UserPoolId=pool_id, Username=email).get("UserMFASettingList")
    assert cognito.password_auth(email, client_id=client_id)["ChallengeName"] == "MFA_SETUP"
