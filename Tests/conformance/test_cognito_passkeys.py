"""Cognito passkeys through boto3: StartWebAuthnRegistration / CompleteWebAuthnRegistration from a signed-in user,
ListWebAuthnCredentials, DeleteWebAuthnCredential, and USER_AUTH's WEB_AUTHN first factor. Fauxth's virtual
authenticator (the control API) plays the browser; the WebAuthn rules are the core's, shared with Supabase."""
import json


from conftest import COGNITO_PASSWORD, COGNITO_POLICY, cognito_email, hosted_ui_client, hosted_ui_sign_in

RP_ID = "localhost"


def passkey_pool(cognito, **webauthn):
    pool_id = cognito.create_pool(Policies={"PasswordPolicy": COGNITO_POLICY, "SignInPolicy": {"AllowedFirstAuthFactors": ["PASSWORD", "WEB_AUTHN"]}},
                                  UserPoolTier="ESSENTIALS")
    cognito.idp.set_user_pool_mfa_config(UserPoolId=pool_id, MfaConfiguration="OFF",
                                         WebAuthnConfiguration={"RelyingPartyId": RP_ID, "UserVerification": "preferred", **webauthn})
    client_id = cognito.create_client(pool_id, flows=("ALLOW_USER_AUTH", "ALLOW_USER_PASSWORD_AUTH", "ALLOW_REFRESH_TOKEN_AUTH"))["ClientId"]
    email = cognito.admin_user(pool_id, cognito_email("passkey"))
    tokens = cognito.idp.initiate_auth(ClientId=client_id, AuthFlow="USER_PASSWORD_AUTH",
                                       AuthParameters={"USERNAME": email, "PASSWORD": COGNITO_PASSWORD})["AuthenticationResult"]
    return pool_id, client_id, email, tokens["AccessToken"]


def authenticator(cognito, action, pool_id, options, **extra):
    response = cognito.fauxth.control("POST", f"/webauthn/{action}", json={"tenant": pool_id, "options": options, **extra})
    assert response.status_code == 200, response.text
    return response.json()["credential"]


def register(cognito, pool_id, access_token, **extra):
    options = cognito.idp.start_web_authn_registration(AccessToken=access_token)["CredentialCreationOptions"]
    credential = authenticator(cognito, "register", pool_id, options, origin=f"http://{RP_ID}:3000", **extra)
    cognito.idp.complete_web_authn_registration(AccessToken=access_token, Credential=credential)
    return options


def test_a_registered_passkey_signs_in_with_user_auth(cognito):
    pool_id, client_id, email, access = passkey_pool(cognito)
    options = register(cognito, pool_id, access)
    assert options["rp"]["id"] == RP_ID and options["authenticatorSelection"]["residentKey"] == "required"
    assert {p["alg"] for p in options["pubKeyCredParams"]} == {-7, -257}
    [listed] = cognito.idp.list_web_authn_credentials(AccessToken=access)["Credentials"]
    assert listed["RelyingPartyId"] == RP_ID and listed["CredentialId"]

    started = cognito.idp.initiate_auth(ClientId=client_id, AuthFlow="USER_AUTH",
                                        AuthParameters={"USERNAME": email, "PREFERRED_CHALLENGE": "WEB_AUTHN"})
    assert started["ChallengeName"] == "WEB_AUTHN"
    request_options = json.loads(started["ChallengeParameters"]["CREDENTIAL_REQUEST_OPTIONS"])
    assert request_options["rpId"] == RP_ID and [c["id"] for c in request_options["allowCredentials"]] == [listed["CredentialId"]]
    assertion = authenticator(cognito, "assert", pool_id, request_options, origin=f"http://{RP_ID}:3000")
    done = cognito.idp.respond_to_auth_challenge(ClientId=client_id, ChallengeName="WEB_AUTHN", Session=started["Session"],
                                                 ChallengeResponses={"USERNAME": email, "CREDENTIAL": json.dumps(assertion)})
    assert done["AuthenticationResult"]["AccessToken"]

    # The same assertion again: its session and its challenge are spent.
    replay = cognito.fails("respond_to_auth_challenge", ClientId=client_id, ChallengeName="WEB_AUTHN", Session=started["Session"],
                           ChallengeResponses={"USERNAME": email, "CREDENTIAL": json.dumps(assertion)})
    assert replay["Code"] == "NotAuthorizedException"


def test_select_challenge_offers_web_authn_to_a_user_with_a_passkey(cognito):
    pool_id, client_id, email, access = passkey_pool(cognito)
    select = cognito.idp.initiate_auth(ClientId=client_id, AuthFlow="USER_AUTH", AuthParameters={"USERNAME": email})
    assert "WEB_AUTHN" not in select["AvailableChallenges"]
    register(cognito, pool_id, access)
    select = cognito.idp.initiate_auth(ClientId=client_id, AuthFlow="USER_AUTH", AuthParameters={"USERNAME": email})
    assert select["ChallengeName"] == "SELECT_CHALLENGE" and "WEB_AUTHN" in select["AvailableChallenges"]
    chosen = cognito.idp.respond_to_auth_challenge(ClientId=client_id, ChallengeName="SELECT_CHALLENGE", Session=select["Session"],
                                                   ChallengeResponses={"USERNAME": email, "ANSWER": "WEB_AUTHN"})
    assert chosen["ChallengeName"] == "WEB_AUTHN"
    options = json.loads(chosen["ChallengeParameters"]["CREDENTIAL_REQUEST_OPTIONS"])
    assertion = authenticator(cognito, "assert", pool_id, options, origin=f"http://{RP_ID}:3000")
    done = cognito.idp.respond_to_auth_challenge(ClientId=client_id, ChallengeName="WEB_AUTHN", Session=chosen["Session"],
                                                 ChallengeResponses={"USERNAME": email, "CREDENTIAL": json.dumps(assertion)})
    assert done["AuthenticationResult"]["IdToken"]


def test_an_origin_outside_the_relying_party_and_a_missing_user_verification_are_refused(cognito):
    pool_id, client_id, email, access = passkey_pool(cognito, UserVerification="required")
    options = cognito.idp.start_web_authn_registration(AccessToken=access)["CredentialCreationOptions"]
    elsewhere = authenticator(cognito, "register", pool_id, options, origin="https://evil.example")
    error = cognito.fails("complete_web_authn_registration", AccessToken=access, Credential=elsewhere)
    assert error["Code"] == "WebAuthnOriginNotAllowedException"
    options = cognito.idp.start_web_authn_registration(AccessToken=access)["CredentialCreationOptions"]
    unverified = authenticator(cognito, "register", pool_id, options, origin=f"http://{RP_ID}:5173", user_verified=False)
    error = cognito.fails("complete_web_authn_registration", AccessToken=access, Credential=unverified)
    assert error == {"Code": "NotAuthorizedException", "Message": "The WebAuthn credential could not be verified."}
    assert cognito.idp.list_web_authn_credentials(AccessToken=access)["Credentials"] == []


def test_deleting_a_passkey_takes_web_authn_away(cognito):
    pool_id, client_id, email, access = passkey_pool(cognito)
    register(cognito, pool_id, access)
    [listed] = cognito.idp.list_web_authn_credentials(AccessToken=access)["Credentials"]
    cognito.idp.delete_web_authn_credential(AccessToken=access, CredentialId=listed["CredentialId"])
    assert cognito.idp.list_web_authn_credentials(AccessToken=access)["Credentials"] == []
    error = cognito.fails("delete_web_authn_credential", AccessToken=access, CredentialId=listed["CredentialId"])
    assert error["Code"] == "ResourceNotFoundException"
    select = cognito.idp.initiate_auth(ClientId=client_id, AuthFlow="USER_AUTH", AuthParameters={"USERNAME": email})
    assert "WEB_AUTHN" not in select["AvailableChallenges"]


def test_a_pool_without_web_authn_refuses_registration(cognito):
    pool_id = cognito.create_pool()
    client_id = cognito.create_client(pool_id)["ClientId"]
    email = cognito.admin_user(pool_id, cognito_email("nopasskey"))
    access = cognito.idp.initiate_auth(ClientId=client_id, AuthFlow="USER_PASSWORD_AUTH",
                                       AuthParameters={"USERNAME": email, "PASSWORD": COGNITO_PASSWORD})["AuthenticationResult"]["AccessToken"]
    assert cognito.fails("start_web_authn_registration", AccessToken=access)["Code"] == "WebAuthnNotEnabledException"


def test_chromium_adds_a_passkey_on_the_hosted_ui_and_signs_in_with_it(cognito, browser):
    """The hosted UI's passkey pages with Chromium's own virtual authenticator (WebDriver's WebAuthn commands): sign in
    with the password, add a passkey at /passkeys/add, then sign in with only the username and the passkey."""
    import urllib.parse

    import requests
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.virtual_authenticator import VirtualAuthenticatorOptions
    from selenium.webdriver.support import expected_conditions as EC
    from selenium.webdriver.support.ui import WebDriverWait

    from conftest import query

    pool_id, _, email, _ = passkey_pool(cognito)
    callback = "http://localhost:3000/callback"
    client_id = hosted_ui_client(cognito, pool_id, callback, flows=("ALLOW_USER_AUTH", "ALLOW_USER_PASSWORD_AUTH", "ALLOW_REFRESH_TOKEN_AUTH"))
    # WebAuthn needs a secure context and a domain for its RP id: the pool's RP id is localhost, so is the page's host.
    base = cognito.url.replace("127.0.0.1", "localhost")
    options = VirtualAuthenticatorOptions()
    options.protocol, options.transport = "ctap2", "internal"
    options.has_resident_key = options.has_user_verification = options.is_user_verified = True
    browser.add_virtual_authenticator(options)
    wait = WebDriverWait(browser, 15)
    sign_in = hosted_ui_sign_in(browser, base, client_id, callback, email, COGNITO_PASSWORD)
    wait.until(lambda driver: driver.current_url.startswith(callback))

    browser.get(f"{base}/passkeys/add?" + urllib.parse.urlencode({"client_id": client_id, "redirect_uri": callback}))
    wait.until(EC.element_to_be_clickable((By.ID, "passkey-button"))).click()
    wait.until(lambda driver: driver.current_url.startswith(callback))
    [stored] = browser.get_credentials()
    assert stored.rp_id == RP_ID and stored.is_resident_credential

    # A new browser session: only the username and the passkey.
    browser.delete_all_cookies()
    browser.get(sign_in)
    wait.until(EC.presence_of_element_located((By.ID, "username"))).send_keys(email)
    browser.find_element(By.NAME, "passkey").click()
    wait.until(EC.element_to_be_clickable((By.ID, "passkey-button"))).click()
    wait.until(lambda driver: driver.current_url.startswith(callback) and "code=" in driver.current_url)
    tokens = requests.post(f"{cognito.url}/oauth2/token", timeout=30, data={
        "grant_type": "authorization_code", "client_id": client_id, "code": query(browser.current_url)["code"], "redirect_uri": callback}).json()
    assert cognito.verify(tokens["id_token"], "id", pool_id=pool_id, client_id=client_id)["email"] == email
