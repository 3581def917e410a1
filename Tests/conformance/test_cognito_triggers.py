"""Cognito Lambda triggers through boto3: a pool's LambdaConfig names a plain URL (the event POSTed, the event answered)
or a Lambda ARN invoked through the Lambda Invoke API at --lambda-endpoint (as `sam local start-lambda` and LocalStack
serve it). The hook server plays the functions: it sees AWS's event shapes and answers as the test says."""
from pycognito.aws_srp import AWSSRP

from conftest import COGNITO_PASSWORD, CognitoIdp, cognito_email, jwt_claims

ALL_FLOWS = ("ALLOW_USER_PASSWORD_AUTH", "ALLOW_USER_SRP_AUTH", "ALLOW_REFRESH_TOKEN_AUTH", "ALLOW_CUSTOM_AUTH")


def pool_with(cognito, lambda_config, **extra):
    """A pool of email users with these triggers, and a client allowing password, SRP, refresh and custom auth."""
    pool_id = cognito.create_pool(LambdaConfig=lambda_config, **extra)
    return pool_id, cognito.create_client(pool_id, flows=ALL_FLOWS)["ClientId"]


def returning(**response):
    """A function that returns its event with these response members set."""
    return lambda call: {**call.json, "response": {**(call.json.get("response") or {}), **response}}


def failing(message):
    """A function that throws: Lambda's error payload."""
    return lambda call: (200, {"errorType": "Error", "errorMessage": message, "trace": []}, "application/json")


def sign_up(cognito, client_id, email, **extra):
    return cognito.idp.sign_up(ClientId=client_id, Username=email, Password=COGNITO_PASSWORD,
                               UserAttributes=[{"Name": "email", "Value": email}], **extra)


def attributes(user):
    return {a["Name"]: a["Value"] for a in user["UserAttributes"]}


def hook_events(cognito, point):
    events = cognito.fauxth.control("GET", "/events", params={"type": "hook.called"}).json()["events"]
    return [e for e in events if e["detail"]["point"] == point]


# --- Pre sign-up ---------------------------------------------------------------------------------------------------

def test_pre_sign_up_sees_the_sign_up_and_confirms_the_user_at_once(cognito, hook_server):
    hook_server.answer = returning(autoConfirmUser=True, autoVerifyEmail=True)
    pool_id, client_id = pool_with(cognito, {"PreSignUp": hook_server.url})
    email = cognito_email("eager")
    answer = sign_up(cognito, client_id, email, ValidationData=[{"Name": "invite", "Value": "abc"}], ClientMetadata={"from": "test"})
    assert answer["UserConfirmed"] is True
    assert "CodeDeliveryDetails" not in answer
    [call] = hook_server.calls
    event = call.json
    assert event["version"] == "1" and event["region"] == "us-east-1" and event["userPoolId"] == pool_id
    assert event["triggerSource"] == "PreSignUp_SignUp"
    # A pool of email users: the function sees the user's sub, which SignUp then answers (AWS's captured events).
    assert event["userName"] == answer["UserSub"]
    assert event["callerContext"]["clientId"] == client_id and "awsSdkVersion" in event["callerContext"]
    assert event["request"]["userAttributes"] == {"email": email}
    assert event["request"]["validationData"] == {"invite": "abc"}
    assert event["request"]["clientMetadata"] == {"from": "test"}
    assert event["response"] == {"autoConfirmUser": False, "autoVerifyEmail": False, "autoVerifyPhone": False}

    user = cognito.idp.admin_get_user(UserPoolId=pool_id, Username=email)
    assert user["UserStatus"] == "CONFIRMED"
    assert attributes(user)["email_verified"] == "true"
    assert cognito.messages(email) == []
    assert cognito.tokens(email, client_id=client_id)["AccessToken"]

    [event] = hook_events(cognito, "PreSignUp")
    assert event["detail"]["dialect"] == "cognito" and event["detail"]["outcome"] == "answered"
    assert event["detail"]["request"]["body"]["triggerSource"] == "PreSignUp_SignUp"


def test_a_pre_sign_up_function_that_throws_refuses_the_sign_up(cognito, hook_server):
    hook_server.answer = failing("Sign-ups are closed")
    pool_id, client_id = pool_with(cognito, {"PreSignUp": hook_server.url})
    email = cognito_email("refused")
    error = cognito.fails("sign_up", ClientId=client_id, Username=email, Password=COGNITO_PASSWORD,
                          UserAttributes=[{"Name": "email", "Value": email}])
    assert error == {"Code": "UserLambdaValidationException", "Message": "PreSignUp failed with error Sign-ups are closed."}
    assert cognito.fails("admin_get_user", UserPoolId=pool_id, Username=email)["Code"] == "UserNotFoundException"


def test_admin_create_user_calls_pre_sign_up_as_admin_create_user(cognito, hook_server):
    """An AdminCreateUser's pre sign-up answer is not applied: "autoVerifyPhone, autoVerifyEmail and autoConfirmUser
    are ignored" there (the pre sign-up guide); Fauxth verified the address."""
    hook_server.answer = returning(autoVerifyEmail=True)
    pool_id, _ = pool_with(cognito, {"PreSignUp": hook_server.url})
    email = cognito_email("invited")
    cognito.idp.admin_create_user(UserPoolId=pool_id, Username=email, MessageAction="SUPPRESS",
                                  UserAttributes=[{"Name": "email", "Value": email}])
    [call] = hook_server.calls
    assert call.json["triggerSource"] == "PreSignUp_AdminCreateUser"
    assert call.json["callerContext"]["clientId"] == "CLIENT_ID_NOT_APPLICABLE"
    user = cognito.idp.admin_get_user(UserPoolId=pool_id, Username=email)
    assert attributes(user).get("email_verified", "false") == "false"


# --- Failures ------------------------------------------------------------------------------------------------------

def test_a_trigger_that_times_out_is_an_unexpected_lambda_exception(cognito, hook_server):
    pool_id, client_id = pool_with(cognito, {"PreSignUp": hook_server.url})
    rule = {"match": {"operation": "cognito:hook.PreSignUp"}, "effect": {"type": "error", "error": "timeout_error"}}
    assert cognito.fauxth.control("POST", "/faults", json=rule).status_code in (200, 201)
    try:
        email = cognito_email("slow")
        error = cognito.fails("sign_up", ClientId=client_id, Username=email, Password=COGNITO_PASSWORD,
                              UserAttributes=[{"Name": "email", "Value": email}])
    finally:
        cognito.fauxth.control("DELETE", "/faults")
    assert error == {"Code": "UnexpectedLambdaException",
                     "Message": "PreSignUp invocation failed due to error Socket timeout while invoking Lambda function."}
    assert hook_server.calls == []
    [event] = hook_events(cognito, "PreSignUp")
    assert event["detail"]["outcome"] == "timeout" and event["detail"]["timeout_ms"] == 5000


def test_an_answer_cognito_cannot_read_is_an_invalid_lambda_response(cognito, hook_server):
    pool_id, client_id = pool_with(cognito, {"PreSignUp": hook_server.url})
    hook_server.answer = lambda call: (200, "<html>oops</html>", "text/html")
    email = cognito_email("garbled")
    error = cognito.fails("sign_up", ClientId=client_id, Username=email, Password=COGNITO_PASSWORD,
                          UserAttributes=[{"Name": "email", "Value": email}])
    assert error == {"Code": "InvalidLambdaResponseException", "Message": "Invalid lambda function output : Invalid JSON"}
    hook_server.answer = returning(autoConfirmUser="yes please")
    error = cognito.fails("sign_up", ClientId=client_id, Username=email, Password=COGNITO_PASSWORD,
                          UserAttributes=[{"Name": "email", "Value": email}])
    assert error == {"Code": "InvalidLambdaResponseException", "Message": "Unrecognizable lambda output"}


def test_an_arn_without_a_lambda_endpoint_cannot_be_invoked(cognito):
    pool_id, client_id = pool_with(cognito, {"PreSignUp": "arn:aws:lambda:us-east-1:123456789012:function:pre-sign-up"})
    email = cognito_email("nowhere")
    error = cognito.fails("sign_up", ClientId=client_id, Username=email, Password=COGNITO_PASSWORD,
                          UserAttributes=[{"Name": "email", "Value": email}])
    assert error["Code"] == "UnexpectedLambdaException"
    assert error["Message"].startswith("PreSignUp invocation failed due to error")


# --- Through the Lambda Invoke API ---------------------------------------------------------------------------------

def test_arns_are_invoked_at_the_lambda_endpoint_and_post_confirmation_follows_a_confirmation(start_fauxth, hook_server):
    cognito = CognitoIdp(start_fauxth("--lambda-endpoint", hook_server.url))
    hook_server.answer = returning()
    pool_id, client_id = pool_with(cognito, {"PostConfirmation": "arn:aws:lambda:us-east-1:123456789012:function:post-confirm",
                                             "CustomMessage": "arn:aws:lambda:us-east-1:123456789012:function:messages"})
    email = cognito_email("confirming")
    sign_up(cognito, client_id, email)
    assert [c.path for c in hook_server.calls] == ["/2015-03-31/functions/messages/invocations"]
    cognito.idp.confirm_sign_up(ClientId=client_id, Username=email, ConfirmationCode=cognito.code(email, "verify_email"))
    calls = hook_server.calls_to("/2015-03-31/functions/post-confirm/invocations")
    assert len(calls) == 1
    event = calls[0].json
    assert event["triggerSource"] == "PostConfirmation_ConfirmSignUp"
    assert event["request"]["userAttributes"]["email_verified"] == "true"
    assert event["request"]["userAttributes"]["cognito:user_status"] == "CONFIRMED"
    assert event["response"] == {}

    cognito.idp.forgot_password(ClientId=client_id, Username=email)
    cognito.idp.confirm_forgot_password(ClientId=client_id, Username=email, ConfirmationCode=cognito.code(email, "reset_password"),
                                        Password="another-pass1")
    calls = hook_server.calls_to("/2015-03-31/functions/post-confirm/invocations")
    assert [c.json["triggerSource"] for c in calls] == ["PostConfirmation_ConfirmSignUp", "PostConfirmation_ConfirmForgotPassword"]
    sources = [c.json["triggerSource"] for c in hook_server.calls_to("/2015-03-31/functions/messages/invocations")]
    assert sources == ["CustomMessage_SignUp", "CustomMessage_ForgotPassword"]


# --- Sign-in -------------------------------------------------------------------------------------------------------

def test_pre_authentication_refuses_a_sign_in(cognito, hook_server):
    pool_id, client_id = pool_with(cognito, {"PreAuthentication": hook_server.url})
    email = cognito.admin_user(pool_id, cognito_email("blocked"))
    hook_server.answer = failing("Not today")
    error = cognito.fails("initiate_auth", ClientId=client_id, AuthFlow="USER_PASSWORD_AUTH",
                          AuthParameters={"USERNAME": email, "PASSWORD": COGNITO_PASSWORD}, ClientMetadata={"k": "v"})
    assert error == {"Code": "UserLambdaValidationException", "Message": "PreAuthentication failed with error Not today."}
    [call] = hook_server.calls
    assert call.json["triggerSource"] == "PreAuthentication_Authentication"
    assert call.json["request"]["userAttributes"]["email"] == email
    # InitiateAuth's ClientMetadata reaches this function as its validationData, and no function as clientMetadata.
    assert call.json["request"]["validationData"] == {"k": "v"} and not call.json["request"].get("clientMetadata")
    hook_server.answer = returning()
    assert cognito.tokens(email, client_id=client_id)["AccessToken"]


def test_pre_token_generation_v1_changes_the_id_token_and_groups(cognito, hook_server):
    pool_id, client_id = pool_with(cognito, {"PreTokenGeneration": hook_server.url, "PostAuthentication": hook_server.url})

    def answer(call):
        if call.json["triggerSource"].startswith("PostAuthentication"):
            return call.json
        return {**call.json, "response": {"claimsOverrideDetails": {
            "claimsToAddOrOverride": {"tier": "gold", "sub": "someone-else"}, "claimsToSuppress": ["email"],
            "groupOverrideDetails": {"groupsToOverride": ["admins"]}}}}

    hook_server.answer = answer
    email = cognito.admin_user(pool_id, cognito_email("golden"))
    result = cognito.tokens(email, client_id=client_id)
    id_claims, access_claims = jwt_claims(result["IdToken"]), jwt_claims(result["AccessToken"])
    assert id_claims["tier"] == "gold" and "email" not in id_claims
    assert id_claims["sub"] != "someone-else"
    assert id_claims["cognito:groups"] == ["admins"] and access_claims["cognito:groups"] == ["admins"]
    assert "tier" not in access_claims
    sources = [c.json["triggerSource"] for c in hook_server.calls]
    assert sources == ["TokenGeneration_Authentication", "PostAuthentication_Authentication"]
    event = hook_server.calls[0].json
    assert event["version"] == "1" and event["response"] == {"claimsOverrideDetails": None}
    assert event["request"]["groupConfiguration"]["groupsToOverride"] == []

    refreshed = cognito.idp.initiate_auth(ClientId=client_id, AuthFlow="REFRESH_TOKEN_AUTH",
                                          AuthParameters={"REFRESH_TOKEN": result["RefreshToken"]})["AuthenticationResult"]
    assert jwt_claims(refreshed["IdToken"])["tier"] == "gold"
    assert hook_server.calls[-1].json["triggerSource"] == "TokenGeneration_RefreshTokens"


def test_pre_token_generation_v2_changes_the_access_token_and_its_scopes(cognito, hook_server):
    pool_id, client_id = pool_with(cognito, {"PreTokenGenerationConfig": {"LambdaArn": hook_server.url, "LambdaVersion": "V2_0"}})
    hook_server.answer = lambda call: {**call.json, "response": {"claimsAndScopeOverrideDetails": {
        "idTokenGeneration": {"claimsToAddOrOverride": {"plan": "pro"}},
        "accessTokenGeneration": {"claimsToAddOrOverride": {"tenant": "acme", "roles": ["a", "b"]}, "claimsToSuppress": ["username"],
                                  "scopesToAdd": ["orders/read"]}}}}
    email = cognito.admin_user(pool_id, cognito_email("scoped"))
    result = cognito.tokens(email, client_id=client_id)
    id_claims, access_claims = jwt_claims(result["IdToken"]), jwt_claims(result["AccessToken"])
    assert id_claims["plan"] == "pro" and "tenant" not in id_claims
    assert access_claims["tenant"] == "acme" and access_claims["roles"] == ["a", "b"]
    assert "username" in access_claims  # Cognito keeps its own claims
    assert access_claims["scope"].split() == ["aws.cognito.signin.user.admin", "orders/read"]
    event = hook_server.calls[0].json
    assert event["version"] == "2" and event["request"]["scopes"] == ["aws.cognito.signin.user.admin"]
    assert event["response"] == {"claimsAndScopeOverrideDetails": None}


def test_custom_message_writes_the_sign_up_email(cognito, hook_server):
    pool_id, client_id = pool_with(cognito, {"CustomMessage": hook_server.url})
    hook_server.answer = returning(emailSubject="Welcome aboard", emailMessage="Hello {username}? Your code is {####}.")
    email = cognito_email("welcomed")
    sign_up(cognito, client_id, email)
    message = cognito.message(email, "verify_email")
    [code] = message["codes"]
    assert message["subject"] == "Welcome aboard"
    assert message["text"] == f"Hello {{username}}? Your code is {code}."
    event = hook_server.calls[0].json
    assert event["triggerSource"] == "CustomMessage_SignUp"
    assert event["request"]["codeParameter"] == "{####}" and event["request"]["usernameParameter"] is None
    assert event["response"] == {"smsMessage": None, "emailMessage": None, "emailSubject": None}


def test_custom_message_writes_the_invitation_sms(cognito, hook_server):
    pool_id, _ = pool_with(cognito, {"CustomMessage": hook_server.url}, username_attributes=(), auto_verified=())
    hook_server.answer = returning(smsMessage="{username}, your temporary password is {####}")
    cognito.idp.admin_create_user(UserPoolId=pool_id, Username="smsuser", TemporaryPassword="temporary123", DesiredDeliveryMediums=["SMS"],
                                  UserAttributes=[{"Name": "phone_number", "Value": "+15555550123"}])
    [message] = cognito.messages("+15555550123")
    assert message["channel"] == "sms" and message["text"] == "smsuser, your temporary password is temporary123"
    event = hook_server.calls[0].json
    assert event["triggerSource"] == "CustomMessage_AdminCreateUser" and event["request"]["usernameParameter"] == "{username}"


def test_user_migration_brings_in_a_user_at_a_password_sign_in(cognito, hook_server):
    pool_id, client_id = pool_with(cognito, {"UserMigration": hook_server.url})

    def answer(call):
        if call.json["request"]["password"] != "legacy-pass1":
            return (200, {"errorType": "Error", "errorMessage": "Bad password"}, "application/json")
        return {**call.json, "response": {"userAttributes": {"email": call.json["userName"], "email_verified": "true", "name": "Legacy"},
                                          "finalUserStatus": "CONFIRMED", "messageAction": "SUPPRESS"}}

    hook_server.answer = answer
    email = cognito_email("legacy")
    result = cognito.tokens(email, password="legacy-pass1", client_id=client_id)
    assert jwt_claims(result["IdToken"])["name"] == "Legacy"
    event = hook_server.calls[0].json
    assert event["triggerSource"] == "UserMigration_Authentication" and event["userName"] == email
    user = cognito.idp.admin_get_user(UserPoolId=pool_id, Username=email)
    assert user["UserStatus"] == "CONFIRMED" and attributes(user)["email_verified"] == "true"
    # Migrated once: the next sign-in is the pool's own.
    assert cognito.tokens(email, password="legacy-pass1", client_id=client_id)["AccessToken"]
    assert len(hook_server.calls) == 1

    other = cognito_email("stranger")
    error = cognito.fails("initiate_auth", ClientId=client_id, AuthFlow="USER_PASSWORD_AUTH",
                          AuthParameters={"USERNAME": other, "PASSWORD": "wrong-pass1"})
    assert error == {"Code": "UserNotFoundException", "Message": f"Exception migrating user in app client {client_id}"}
    assert cognito.fails("admin_get_user", UserPoolId=pool_id, Username=other)["Code"] == "UserNotFoundException"


def test_a_migrated_user_is_reset_required_unless_confirmed_and_keeps_a_weak_password(cognito, hook_server):
    """The migrate user trigger's guide: without finalUserStatus CONFIRMED the user is RESET_REQUIRED (Fauxth made them
    CONFIRMED), and the pool's password policy is not applied to the migrated password (Fauxth refused it)."""
    pool_id, client_id = pool_with(cognito, {"UserMigration": hook_server.url})
    hook_server.answer = lambda call: {**call.json, "response": {"userAttributes": {"email": call.json["userName"], "email_verified": "true"}}}
    email = cognito_email("legacy-reset")
    error = cognito.fails("initiate_auth", ClientId=client_id, AuthFlow="USER_PASSWORD_AUTH",
                          AuthParameters={"USERNAME": email, "PASSWORD": "weak"})
    assert error["Code"] == "PasswordResetRequiredException", error
    assert cognito.idp.admin_get_user(UserPoolId=pool_id, Username=email)["UserStatus"] == "RESET_REQUIRED"
    # No ClientMetadata was sent, so the event has no clientMetadata key (AWS's events leave it out).
    assert "clientMetadata" not in hook_server.calls[0].json["request"]

    hook_server.answer = lambda call: {**call.json, "response": {"userAttributes": {"email": call.json["userName"]},
                                                                 "finalUserStatus": "CONFIRMED"}}
    weak = cognito_email("legacy-weak")
    assert cognito.tokens(weak, password="weak", client_id=client_id)["AccessToken"]


# --- CUSTOM_AUTH ---------------------------------------------------------------------------------------------------

def quiz(call):
    """Define, create and verify functions of a one-question quiz: three wrong answers fail the sign-in. With SRP_A
    first, the password comes before the question."""
    event, source = call.json, call.json["triggerSource"]
    request = event["request"]
    if source == "DefineAuthChallenge_Authentication":
        session = request["session"]
        if session and session[0]["challengeName"] == "SRP_A" and len(session) == 1:
            response = {"challengeName": "PASSWORD_VERIFIER", "issueTokens": False, "failAuthentication": False}
        elif session and session[-1]["challengeName"] == "PASSWORD_VERIFIER" and not session[-1]["challengeResult"]:
            response = {"issueTokens": False, "failAuthentication": True}
        elif session and session[-1]["challengeName"] == "CUSTOM_CHALLENGE" and session[-1]["challengeResult"]:
            response = {"issueTokens": True, "failAuthentication": False}
        elif len([s for s in session if s["challengeName"] == "CUSTOM_CHALLENGE"]) >= 3:
            response = {"issueTokens": False, "failAuthentication": True}
        else:
            response = {"challengeName": "CUSTOM_CHALLENGE", "issueTokens": False, "failAuthentication": False}
    elif source == "CreateAuthChallenge_Authentication":
        response = {"publicChallengeParameters": {"question": "2+2?"}, "privateChallengeParameters": {"answer": "4"},
                    "challengeMetadata": "QUIZ-1"}
    else:
        response = {"answerCorrect": request["challengeAnswer"] == request["privateChallengeParameters"]["answer"]}
    return {**event, "response": response}


def quiz_pool(cognito, hook_server):
    hook_server.answer = quiz
    return pool_with(cognito, {"DefineAuthChallenge": hook_server.at("/define"), "CreateAuthChallenge": hook_server.at("/create"),
                               "VerifyAuthChallengeResponse": hook_server.at("/verify")})


def test_custom_auth_asks_the_functions_and_signs_in_on_the_right_answer(cognito, hook_server):
    pool_id, client_id = quiz_pool(cognito, hook_server)
    email = cognito.admin_user(pool_id, cognito_email("quizzed"))
    started = cognito.idp.initiate_auth(ClientId=client_id, AuthFlow="CUSTOM_AUTH", AuthParameters={"USERNAME": email})
    assert started["ChallengeName"] == "CUSTOM_CHALLENGE"
    assert started["ChallengeParameters"]["question"] == "2+2?"
    assert "answer" not in started["ChallengeParameters"]
    [define, create] = hook_server.calls
    assert define.path == "/define" and define.json["request"]["session"] == [] and define.json["request"]["userNotFound"] is False
    assert create.path == "/create" and create.json["request"]["challengeName"] == "CUSTOM_CHALLENGE"

    wrong = cognito.idp.respond_to_auth_challenge(ClientId=client_id, ChallengeName="CUSTOM_CHALLENGE", Session=started["Session"],
                                                  ChallengeResponses={"USERNAME": email, "ANSWER": "5"})
    assert wrong["ChallengeName"] == "CUSTOM_CHALLENGE" and wrong["Session"] != started["Session"]
    verify = hook_server.calls_to("/verify")[0].json
    assert verify["request"]["privateChallengeParameters"] == {"answer": "4"} and verify["request"]["challengeAnswer"] == "5"
    assert hook_server.calls_to("/define")[-1].json["request"]["session"] == [
        {"challengeName": "CUSTOM_CHALLENGE", "challengeResult": False, "challengeMetadata": "QUIZ-1"}]

    # A session takes one answer.
    replayed = cognito.fails("respond_to_auth_challenge", ClientId=client_id, ChallengeName="CUSTOM_CHALLENGE", Session=started["Session"],
                             ChallengeResponses={"USERNAME": email, "ANSWER": "4"})
    assert replayed["Code"] == "NotAuthorizedException"

    done = cognito.idp.respond_to_auth_challenge(ClientId=client_id, ChallengeName="CUSTOM_CHALLENGE", Session=wrong["Session"],
                                                 ChallengeResponses={"USERNAME": email, "ANSWER": "4"})
    assert jwt_claims(done["AuthenticationResult"]["IdToken"])["email"] == email


def test_custom_auth_fails_when_the_define_function_says_so(cognito, hook_server):
    pool_id, client_id = quiz_pool(cognito, hook_server)
    email = cognito.admin_user(pool_id, cognito_email("guesser"))
    session = cognito.idp.initiate_auth(ClientId=client_id, AuthFlow="CUSTOM_AUTH", AuthParameters={"USERNAME": email})["Session"]
    for _ in range(2):
        session = cognito.idp.respond_to_auth_challenge(ClientId=client_id, ChallengeName="CUSTOM_CHALLENGE", Session=session,
                                                        ChallengeResponses={"USERNAME": email, "ANSWER": "3"})["Session"]
    error = cognito.fails("respond_to_auth_challenge", ClientId=client_id, ChallengeName="CUSTOM_CHALLENGE", Session=session,
                          ChallengeResponses={"USERNAME": email, "ANSWER": "3"})
    assert error == {"Code": "NotAuthorizedException", "Message": "Incorrect username or password."}


def test_custom_auth_for_an_unknown_user_asks_the_functions_when_the_client_hides_users(cognito, hook_server):
    # AWS: with PreventUserExistenceErrors ENABLED, the functions run for a name the pool lacks (userNotFound), so the
    # answer looks the same as for a real user; only the end fails, as a wrong answer does.
    hook_server.answer = quiz
    pool_id = cognito.create_pool(LambdaConfig={"DefineAuthChallenge": hook_server.at("/define"), "CreateAuthChallenge": hook_server.at("/create"),
                                                "VerifyAuthChallengeResponse": hook_server.at("/verify")})
    client_id = cognito.create_client(pool_id, flows=ALL_FLOWS, PreventUserExistenceErrors="ENABLED")["ClientId"]
    ghost = cognito_email("ghost")
    started = cognito.idp.initiate_auth(ClientId=client_id, AuthFlow="CUSTOM_AUTH", AuthParameters={"USERNAME": ghost})
    assert started["ChallengeName"] == "CUSTOM_CHALLENGE" and started["ChallengeParameters"]["question"] == "2+2?"
    [define, create] = hook_server.calls
    assert define.json["request"]["userNotFound"] is True and define.json["request"]["userAttributes"] == {}
    assert define.json["userName"] == ghost and create.json["request"]["userNotFound"] is True
    # Even the right answer cannot sign in nobody.
    error = cognito.fails("respond_to_auth_challenge", ClientId=client_id, ChallengeName="CUSTOM_CHALLENGE", Session=started["Session"],
                          ChallengeResponses={"USERNAME": ghost, "ANSWER": "4"})
    assert error == {"Code": "NotAuthorizedException", "Message": "Incorrect username or password."}
    assert hook_server.calls_to("/verify")[0].json["request"]["userNotFound"] is True

    # A client that does not hide users says so at once, and asks no function.
    legacy = cognito.create_client(pool_id, flows=ALL_FLOWS)["ClientId"]
    calls = len(hook_server.calls)
    error = cognito.fails("initiate_auth", ClientId=legacy, AuthFlow="CUSTOM_AUTH", AuthParameters={"USERNAME": ghost})
    assert error["Code"] == "UserNotFoundException" and len(hook_server.calls) == calls


def test_custom_auth_with_srp_first_checks_the_password_then_asks(cognito, hook_server):
    pool_id, client_id = quiz_pool(cognito, hook_server)
    email = cognito.admin_user(pool_id, cognito_email("amplified"))
    srp = AWSSRP(username=email, password=COGNITO_PASSWORD, pool_id=pool_id, client_id=client_id, client=cognito.boto3_client())
    params = srp.get_auth_params()
    started = cognito.idp.initiate_auth(ClientId=client_id, AuthFlow="CUSTOM_AUTH",
                                        AuthParameters={"USERNAME": email, "SRP_A": params["SRP_A"], "CHALLENGE_NAME": "SRP_A"})
    assert started["ChallengeName"] == "PASSWORD_VERIFIER"
    assert hook_server.calls[0].json["request"]["session"] == [{"challengeName": "SRP_A", "challengeResult": True, "challengeMetadata": None}]
    answer = srp.process_challenge(started["ChallengeParameters"], params)
    asked = cognito.idp.respond_to_auth_challenge(ClientId=client_id, ChallengeName="PASSWORD_VERIFIER", ChallengeResponses=answer)
    assert asked["ChallengeName"] == "CUSTOM_CHALLENGE"
    assert [s["challengeName"] for s in hook_server.calls_to("/define")[-1].json["request"]["session"]] == ["SRP_A", "PASSWORD_VERIFIER"]
    done = cognito.idp.respond_to_auth_challenge(ClientId=client_id, ChallengeName="CUSTOM_CHALLENGE", Session=asked["Session"],
                                                 ChallengeResponses={"USERNAME": email, "ANSWER": "4"})
    assert done["AuthenticationResult"]["AccessToken"]

    wrong = AWSSRP(username=email, password="not-the-password1", pool_id=pool_id, client_id=client_id, client=cognito.boto3_client())
    params = wrong.get_auth_params()
    started = cognito.idp.initiate_auth(ClientId=client_id, AuthFlow="CUSTOM_AUTH", AuthParameters={"USERNAME": email, "SRP_A": params["SRP_A"]})
    error = cognito.fails("respond_to_auth_challenge", ClientId=client_id, ChallengeName="PASSWORD_VERIFIER",
                          ChallengeResponses=wrong.process_challenge(started["ChallengeParameters"], params))
    assert error == {"Code": "NotAuthorizedException", "Message": "Incorrect username or password."}


def test_custom_auth_without_a_define_function_is_refused(cognito):
    pool_id, client_id = pool_with(cognito, {})
    email = cognito.admin_user(pool_id, cognito_email("plain"))
    error = cognito.fails("initiate_auth", ClientId=client_id, AuthFlow="CUSTOM_AUTH", AuthParameters={"USERNAME": email})
    # InvalidParameterException, as apps report AWS's answer and amplify-js #7401 handles it.
    assert error == {"Code": "InvalidParameterException", "Message": "Custom auth lambda trigger is not configured for the user pool."}


# --- Control API ---------------------------------------------------------------------------------------------------

def test_the_control_api_sets_and_clears_a_pools_triggers(cognito, hook_server):
    pool_id, client_id = pool_with(cognito, {})
    put = cognito.fauxth.control("PUT", f"/tenants/{pool_id}/hooks/PreSignUp", json={"uri": hook_server.url})
    assert put.status_code == 200, put.text
    assert put.json()["hooks"] == {"PreSignUp": {"uri": hook_server.url}}
    assert "PreSignUp" in put.json()["points"] and "CustomEmailSender" in put.json()["points"]
    config = cognito.idp.describe_user_pool(UserPoolId=pool_id)["UserPool"]["LambdaConfig"]
    assert config["PreSignUp"] == hook_server.url

    hook_server.answer = returning(autoConfirmUser=True)
    assert sign_up(cognito, client_id, cognito_email("hooked"))["UserConfirmed"] is True

    arn = "arn:aws:lambda:us-east-1:123456789012:function:tokens"
    put = cognito.fauxth.control("PUT", f"/tenants/{pool_id}/hooks/PreTokenGeneration", json={"uri": arn, "version": "V2_0"})
    assert put.status_code == 200, put.text
    config = cognito.idp.describe_user_pool(UserPoolId=pool_id)["UserPool"]["LambdaConfig"]
    assert config["PreTokenGenerationConfig"] == {"LambdaArn": arn, "LambdaVersion": "V2_0"}
    got = cognito.fauxth.control("GET", f"/tenants/{pool_id}/hooks").json()["hooks"]
    assert got["PreTokenGeneration"] == {"uri": arn, "version": "V2_0"}

    assert cognito.fauxth.control("PUT", f"/tenants/{pool_id}/hooks/PreSignUp", json={"uri": "not a function"}).status_code == 400
    assert cognito.fauxth.control("DELETE", f"/tenants/{pool_id}/hooks/PreSignUp").status_code == 200
    assert "PreSignUp" not in cognito.idp.describe_user_pool(UserPoolId=pool_id)["UserPool"]["LambdaConfig"]
    assert sign_up(cognito, client_id, cognito_email("unhooked"))["UserConfirmed"] is False


# --- The hosted UI --------------------------------------------------------------------------------------------------

def test_the_hosted_ui_sign_in_calls_the_sign_in_triggers_and_its_tokens_carry_the_claims(cognito, hook_server):
    # The seed's pool, with its hosted UI; its triggers set through the control API (a reset restores none).
    from test_cognito_hosted_ui import exchange, sign_in, token_request
    from conftest import COGNITO_CLIENT, COGNITO_POOL

    def answer(call):
        if call.json["triggerSource"] == "TokenGeneration_HostedAuth":
            return returning(claimsAndScopeOverrideDetails={"idTokenGeneration": {"claimsToAddOrOverride": {"plan": "pro"}},
                                                            "accessTokenGeneration": {"scopesToAdd": ["fauxth/extra"]}})(call)
        return call.json
    hook_server.answer = answer
    for trigger, extra in [("PreAuthentication", {}), ("PostAuthentication", {}), ("PreTokenGeneration", {"version": "V2_0"})]:
        put = cognito.fauxth.control("PUT", f"/tenants/{COGNITO_POOL}/hooks/{trigger}", json={"uri": hook_server.at("/" + trigger), **extra})
        assert put.status_code == 200, put.text
    code, verifier, _, _ = sign_in(cognito)
    assert [call.json["triggerSource"] for call in hook_server.calls] == [
        "PreAuthentication_Authentication", "TokenGeneration_HostedAuth", "PostAuthentication_Authentication"]
    assert set(hook_server.calls_to("/PreTokenGeneration")[0].json["request"]["scopes"]) == {"openid", "email"}
    tokens = exchange(cognito, code, verifier).json()
    assert cognito.verify(tokens["id_token"], "id")["plan"] == "pro"
    assert "fauxth/extra" in cognito.verify(tokens["access_token"], "access")["scope"].split()
    assert len(hook_server.calls) == 3  # the code's exchange asks no function again
    # The hosted UI's refresh grant asks the pre token generation function, as REFRESH_TOKEN_AUTH does.
    refreshed = token_request(cognito, {"grant_type": "refresh_token", "client_id": COGNITO_CLIENT, "refresh_token": tokens["refresh_token"]})
    assert refreshed.status_code == 200, refreshed.text
    assert hook_server.calls[-1].json["triggerSource"] == "TokenGeneration_RefreshTokens"


def test_a_pre_authentication_refusal_shows_on_the_hosted_ui_login_page(cognito, hook_server):
    from test_cognito_hosted_ui import authorize_params, login_form, pkce, submit
    from conftest import COGNITO_POOL
    import html
    import requests

    hook_server.answer = failing("Sign-ins are paused")
    cognito.fauxth.control("PUT", f"/tenants/{COGNITO_POOL}/hooks/PreAuthentication", json={"uri": hook_server.url})
    browser = requests.Session()
    page_url, form = login_form(browser, cognito.url, authorize_params(pkce()[1]))
    page = submit(browser, page_url, form, "alice@example.com", COGNITO_PASSWORD)
    assert page.status_code == 200 and "PreAuthentication failed with error Sign-ins are paused." in html.unescape(page.text)


def test_a_first_federated_sign_in_asks_pre_sign_up_as_external_provider(cognito, hook_server):
    from test_cognito_federation import exchange, federated_sign_in
    from conftest import COGNITO_POOL, query

    hook_server.answer = lambda call: call.json
    for trigger in ["PreSignUp", "PostConfirmation"]:
        cognito.fauxth.control("PUT", f"/tenants/{COGNITO_POOL}/hooks/{trigger}", json={"uri": hook_server.at("/" + trigger)})
    location, verifier = federated_sign_in(cognito, "Google", account="100000000000000000002")
    assert exchange(cognito, location, verifier)["id_token"]
    [pre, post] = hook_server.calls
    assert pre.json["triggerSource"] == "PreSignUp_ExternalProvider" and pre.json["userName"] == "Google_100000000000000000002"
    assert pre.json["request"]["userAttributes"]["email"] == "dana@example.com"
    assert post.json["triggerSource"] == "PostConfirmation_ConfirmSignUp"
    # The next sign-in is the same user's: nobody is asked again.
    again, verifier = federated_sign_in(cognito, "Google", account="100000000000000000002", prompt="login")
    assert exchange(cognito, again, verifier)["id_token"] and len(hook_server.calls) == 2

    # A function that refuses sends the app Cognito's error.
    hook_server.answer = failing("No Google accounts")
    refused, _ = federated_sign_in(cognito, "Google", account="100000000000000000001")
    assert query(refused)["error"] == "invalid_request"
    assert query(refused)["error_description"] == "PreSignUp failed with error No Google accounts."


def test_a_v3_pre_token_function_shapes_machine_tokens_and_v2_is_not_asked(cognito, hook_server):
    from test_cognito_hosted_ui import token_request
    import json as _json

    def answer(call):
        return returning(claimsAndScopeOverrideDetails={"accessTokenGeneration": {
            "claimsToAddOrOverride": {"tenant": call.json["request"]["clientMetadata"]["tenant"], "sub": "forged"},
            "scopesToSuppress": ["https://api.fauxth.test/write"]}})(call)
    hook_server.answer = answer
    pool_id = cognito.create_pool(LambdaConfig={"PreTokenGenerationConfig": {"LambdaArn": hook_server.url, "LambdaVersion": "V3_0"}},
                                  UserPoolTier="ESSENTIALS")
    cognito.idp.create_user_pool_domain(UserPoolId=pool_id, Domain=f"fauxth-v3-{pool_id.split('_')[1].lower()}")
    cognito.idp.create_resource_server(UserPoolId=pool_id, Identifier="https://api.fauxth.test", Name="Fauxth API",
                                       Scopes=[{"ScopeName": "read", "ScopeDescription": "Read"}, {"ScopeName": "write", "ScopeDescription": "Write"}])
    client = cognito.create_client(pool_id, flows=("ALLOW_REFRESH_TOKEN_AUTH",), secret=True, AllowedOAuthFlows=["client_credentials"],
                                   AllowedOAuthScopes=["https://api.fauxth.test/read", "https://api.fauxth.test/write"],
                                   AllowedOAuthFlowsUserPoolClient=True)
    client_id, secret = client["ClientId"], client["ClientSecret"]
    response = token_request(cognito, {"grant_type": "client_credentials", "aws_client_metadata": _json.dumps({"tenant": "acme"})},
                             auth=(client_id, secret))
    assert response.status_code == 200, response.text
    [call] = hook_server.calls
    event = call.json
    assert event["version"] == "3" and event["triggerSource"] == "TokenGeneration_ClientCredentials"
    assert event["userName"] == client_id and event["callerContext"]["clientId"] == client_id
    assert set(event["request"]["scopes"]) == {"https://api.fauxth.test/read", "https://api.fauxth.test/write"}
    assert event["request"]["userAttributes"] == {}
    access = cognito.verify(response.json()["access_token"], "access", pool_id, client_id)
    assert access["tenant"] == "acme" and access["sub"] == client_id  # Cognito's own claims keep their values
    assert access["scope"] == "https://api.fauxth.test/read"

    # A V2_0 function shapes users' tokens only: machines are not asked.
    cognito.idp.update_user_pool(UserPoolId=pool_id, UserPoolTier="ESSENTIALS",
                                 LambdaConfig={"PreTokenGenerationConfig": {"LambdaArn": hook_server.url, "LambdaVersion": "V2_0"}})
    again = token_request(cognito, {"grant_type": "client_credentials"}, auth=(client_id, secret))
    assert again.status_code == 200 and len(hook_server.calls) == 1
    assert "tenant" not in cognito.verify(again.json()["access_token"], "access", pool_id, client_id)
