"""Cognito behaviours where Fauxth once answered otherwise than AWS: SRP for every salt, SRP chosen through USER_AUTH,
attribute rules, legacy auth-flow names, paging, shared addresses, pool schemas and settings. Driven with boto3 and
pycognito (and pycognito's SRP primitives used the way amazon-cognito-identity-js and Amplify use theirs)."""
import base64
import datetime
import hashlib
import hmac

import botocore.exceptions
import pytest
from pycognito.aws_srp import AWSSRP, hex_to_long

from conftest import COGNITO_CLIENT, COGNITO_PASSWORD, COGNITO_POOL, cognito_email


def aws_srp(cognito, username, pool_id=COGNITO_POOL, client_id=COGNITO_CLIENT, password=COGNITO_PASSWORD):
    return AWSSRP(username=username, password=password, pool_id=pool_id, client_id=client_id, client=cognito.boto3_client())


def amplify_answer(srp, params):
    """The PASSWORD_VERIFIER answer as amazon-cognito-identity-js and Amplify compute it: they read SALT as a number
    (`new BigInteger(SALT, 16)`) before padding it, where pycognito's `process_challenge` pads the text it was sent."""
    user_id = params["USER_ID_FOR_SRP"]
    key = srp.get_password_authentication_key(user_id, srp.password, hex_to_long(params["SRP_B"]), hex_to_long(params["SALT"]))
    timestamp = srp.get_cognito_formatted_timestamp(datetime.datetime.now(datetime.timezone.utc))
    message = (srp.pool_id.split("_")[1] + user_id).encode() + base64.b64decode(params["SECRET_BLOCK"]) + timestamp.encode()
    signature = base64.b64encode(hmac.new(key, message, hashlib.sha256).digest()).decode()
    return {"USERNAME": params["USERNAME"], "PASSWORD_CLAIM_SECRET_BLOCK": params["SECRET_BLOCK"],
            "PASSWORD_CLAIM_SIGNATURE": signature, "TIMESTAMP": timestamp}


def plain_pool(cognito, **extra):
    """A pool of usernames (no UsernameAttributes, no aliases) that verifies emails, with a password-and-SRP client."""
    pool_id = cognito.create_pool(username_attributes=(), **extra)
    return pool_id, cognito.create_client(pool_id)["ClientId"]


# --- SRP ---------------------------------------------------------------------------------------------------------

def test_srp_signs_in_when_the_salt_starts_with_zero_bytes(cognito):
    """About one salt in 512 is below 2**119 (a zero byte, then one below 0x80). Its password is set again until the
    challenge carries such a salt; then Amplify's arithmetic and pycognito's both sign in."""
    srp = aws_srp(cognito, "alice@example.com")
    params = srp.get_auth_params()
    for _ in range(5000):
        cognito.idp.admin_set_user_password(UserPoolId=COGNITO_POOL, Username="alice@example.com", Password=COGNITO_PASSWORD,
                                            Permanent=True)
        challenge = cognito.idp.initiate_auth(ClientId=COGNITO_CLIENT, AuthFlow="USER_SRP_AUTH", AuthParameters=params)
        if int(challenge["ChallengeParameters"]["SALT"], 16) < 2 ** 119:
            break
    else:
        pytest.fail("no salt below 2**119 in 5000 passwords")
    done = cognito.idp.respond_to_auth_challenge(ClientId=COGNITO_CLIENT, ChallengeName="PASSWORD_VERIFIER",
                                                 ChallengeResponses=amplify_answer(srp, challenge["ChallengeParameters"]))
    assert cognito.verify(done["AuthenticationResult"]["AccessToken"], "access")["client_id"] == COGNITO_CLIENT
    salt = challenge["ChallengeParameters"]["SALT"]
    assert not salt.startswith("00"), f"SALT is the number's digits, as Cognito writes it: {salt}"
    tokens = aws_srp(cognito, "alice@example.com").authenticate_user()["AuthenticationResult"]
    assert cognito.verify(tokens["IdToken"], "id")["email"] == "alice@example.com"


def test_password_srp_chosen_at_select_challenge_signs_in(cognito):
    srp = aws_srp(cognito, "alice@example.com")
    auth_params = srp.get_auth_params()
    started = cognito.idp.initiate_auth(ClientId=COGNITO_CLIENT, AuthFlow="USER_AUTH", AuthParameters={"USERNAME": "alice@example.com"})
    assert started["ChallengeName"] == "SELECT_CHALLENGE"
    assert "PASSWORD_SRP" in started["AvailableChallenges"]
    chosen = cognito.idp.respond_to_auth_challenge(ClientId=COGNITO_CLIENT, ChallengeName="SELECT_CHALLENGE", Session=started["Session"],
                                                   ChallengeResponses={"USERNAME": "alice@example.com", "ANSWER": "PASSWORD_SRP",
                                                                       "SRP_A": auth_params["SRP_A"]})
    assert chosen["ChallengeName"] == "PASSWORD_VERIFIER"
    answer = srp.process_challenge(chosen["ChallengeParameters"], auth_params)
    done = cognito.idp.respond_to_auth_challenge(ClientId=COGNITO_CLIENT, ChallengeName="PASSWORD_VERIFIER", Session=chosen["Session"],
                                                 ChallengeResponses=answer)
    assert cognito.verify(done["AuthenticationResult"]["IdToken"], "id")["email"] == "alice@example.com"


# --- Attributes --------------------------------------------------------------------------------------------------

def test_new_password_required_refuses_a_non_mutable_attribute(cognito):
    pool_id, client_id = plain_pool(cognito)
    cognito.idp.admin_create_user(UserPoolId=pool_id, Username="kate", TemporaryPassword="temporary123", MessageAction="SUPPRESS",
                                  UserAttributes=[{"Name": "email", "Value": "kate@example.com"}, {"Name": "email_verified", "Value": "true"}])
    started = cognito.password_auth("kate", "temporary123", client_id)
    assert started["ChallengeName"] == "NEW_PASSWORD_REQUIRED"
    # The challenge lists email_verified among the user's attributes; sending it back is refused.
    import json
    attributes = json.loads(started["ChallengeParameters"]["userAttributes"])
    assert attributes["email_verified"] == "true"
    error = cognito.fails("respond_to_auth_challenge", ClientId=client_id, ChallengeName="NEW_PASSWORD_REQUIRED", Session=started["Session"],
                          ChallengeResponses={"USERNAME": "kate", "NEW_PASSWORD": "chosen12345",
                                              "userAttributes.email_verified": "true"})
    assert error == {"Code": "InvalidParameterException", "Message": "Cannot modify the non-mutable attribute email_verified"}
    done = cognito.idp.respond_to_auth_challenge(ClientId=client_id, ChallengeName="NEW_PASSWORD_REQUIRED", Session=started["Session"],
                                                 ChallengeResponses={"USERNAME": "kate", "NEW_PASSWORD": "chosen12345"})
    assert done["AuthenticationResult"]["AccessToken"]


def test_verification_flags_are_read_whatever_their_case(cognito):
    pool_id, client_id = plain_pool(cognito)
    created = cognito.idp.admin_create_user(UserPoolId=pool_id, Username="lena", MessageAction="SUPPRESS", UserAttributes=[
        {"Name": "email", "Value": "lena@example.com"}, {"Name": "email_verified", "Value": "True"}])
    assert {"Name": "email_verified", "Value": "true"} in created["User"]["Attributes"]
    cognito.idp.admin_set_user_password(UserPoolId=pool_id, Username="lena", Password="chosen12345", Permanent=True)
    delivery = cognito.idp.forgot_password(ClientId=client_id, Username="lena")["CodeDeliveryDetails"]
    assert delivery == {"Destination": "l***@e***", "DeliveryMedium": "EMAIL", "AttributeName": "email"}


# --- Auth flow names ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("legacy", ["ADMIN_NO_SRP_AUTH", "USER_PASSWORD_AUTH", "CUSTOM_AUTH_FLOW_ONLY"])
def test_a_client_with_legacy_flow_names_still_allows_srp(cognito, legacy):
    pool_id = cognito.create_pool()
    client_id = cognito.create_client(pool_id, flows=[legacy])["ClientId"]
    email = cognito_email("legacy")
    cognito.admin_user(pool_id, email)
    tokens = aws_srp(cognito, email, pool_id=pool_id, client_id=client_id).authenticate_user()["AuthenticationResult"]
    assert cognito.verify(tokens["AccessToken"], "access", pool_id=pool_id, client_id=client_id)["client_id"] == client_id
    refreshed = cognito.idp.initiate_auth(ClientId=client_id, AuthFlow="REFRESH_TOKEN_AUTH", AuthParameters={"REFRESH_TOKEN": tokens["RefreshToken"]})
    assert refreshed["AuthenticationResult"]["AccessToken"]


def test_flow_names_outside_the_enum_or_mixed_generations_are_refused(cognito):
    pool_id = cognito.create_pool()
    mixed = cognito.fails("create_user_pool_client", UserPoolId=pool_id, ClientName="mixed",
                          ExplicitAuthFlows=["ALLOW_USER_SRP_AUTH", "ADMIN_NO_SRP_AUTH"])
    assert mixed == {"Code": "InvalidParameterException",
                     "Message": "Values with ALLOW_ prefix cannot be used along with values without ALLOW_ prefix."}
    unknown = cognito.fails("create_user_pool_client", UserPoolId=pool_id, ClientName="unknown", ExplicitAuthFlows=["ALLOW_TELEPATHY"])
    assert unknown["Code"] == "InvalidParameterException"
    assert unknown["Message"].startswith("1 validation error detected: Value '[ALLOW_TELEPATHY]' at 'explicitAuthFlows' failed to satisfy")


# --- Paging ------------------------------------------------------------------------------------------------------

def populated_pool(cognito):
    """A pool with five of everything the list operations list; dave is in every group, five users in group0."""
    pool_id, _ = plain_pool(cognito)
    for i in range(5):
        cognito.idp.create_group(UserPoolId=pool_id, GroupName=f"group{i}")
        cognito.idp.create_identity_provider(UserPoolId=pool_id, ProviderName=f"Idp{i}", ProviderType="OIDC",
                                             ProviderDetails={"client_id": "x", "authorize_scopes": "openid"})
        cognito.idp.create_resource_server(UserPoolId=pool_id, Identifier=f"https://api{i}.example.com", Name="api")
        cognito.idp.admin_create_user(UserPoolId=pool_id, Username=f"user{i}", MessageAction="SUPPRESS")
        cognito.idp.admin_add_user_to_group(UserPoolId=pool_id, Username=f"user{i}", GroupName="group0")
        cognito.idp.admin_add_user_to_group(UserPoolId=pool_id, Username="user0", GroupName=f"group{i}")
        if i > 0:
            cognito.create_client(pool_id)
    return pool_id


PAGINATORS = [
    ("list_groups", {}, "Groups", "GroupName"),
    ("list_users_in_group", {"GroupName": "group0"}, "Users", "Username"),
    ("admin_list_groups_for_user", {"Username": "user0"}, "Groups", "GroupName"),
    ("list_identity_providers", {}, "Providers", "ProviderName"),
    ("list_resource_servers", {}, "ResourceServers", "Identifier"),
    ("list_user_pool_clients", {}, "UserPoolClients", "ClientId"),
    ("list_users", {}, "Users", "Username"),
]


def test_boto3_paginators_walk_every_list_two_at_a_time(cognito):
    pool_id = populated_pool(cognito)
    for operation, params, key, name in PAGINATORS:
        pages = list(cognito.idp.get_paginator(operation).paginate(UserPoolId=pool_id, **params, PaginationConfig={"PageSize": 2}))
        assert [len(page[key]) for page in pages] == [2, 2, 1], operation
        names = [item[name] for page in pages for item in page[key]]
        whole = getattr(cognito.idp, operation)(UserPoolId=pool_id, **params)[key]
        assert sorted(names) == sorted(item[name] for item in whole) and len(set(names)) == 5, operation
    pools = list(cognito.idp.get_paginator("list_user_pools").paginate(PaginationConfig={"PageSize": 1}))
    assert pool_id in [p["Id"] for page in pools for p in page["UserPools"]]


def test_list_operations_refuse_a_bad_token_or_page_size(cognito):
    pool_id = populated_pool(cognito)
    error = cognito.fails("list_groups", UserPoolId=pool_id, NextToken="not-a-token")
    assert error["Code"] == "InvalidParameterException"
    assert error["Message"].startswith("Paging marker not-a-token is invalid for request ")
    error = cognito.fails("list_resource_servers", UserPoolId=pool_id, MaxResults=51)
    assert error["Message"] == ("1 validation error detected: Value '51' at 'maxResults' failed to satisfy constraint: "
                                "Member must have value less than or equal to 50")
    error = cognito.fails("list_users_in_group", UserPoolId=pool_id, GroupName="group0", Limit=61)
    assert error["Message"].endswith("Member must have value less than or equal to 60")


# --- Shared addresses --------------------------------------------------------------------------------------------

def test_users_of_a_username_pool_may_share_an_email_and_a_phone(cognito):
    pool_id, client_id = plain_pool(cognito)
    codes = {}
    for username in ("ann", "ben"):
        cognito.idp.sign_up(ClientId=client_id, Username=username, Password=COGNITO_PASSWORD, UserAttributes=[
            {"Name": "email", "Value": "family@example.com"}, {"Name": "phone_number", "Value": "+15555550199"}])
        codes[username] = cognito.code("family@example.com", "verify_email")
    ann_code, ben_code = codes["ann"], codes["ben"]
    assert ann_code != ben_code
    crossed = cognito.fails("confirm_sign_up", ClientId=client_id, Username="ann", ConfirmationCode=ben_code)
    assert crossed["Code"] == "CodeMismatchException"
    cognito.idp.confirm_sign_up(ClientId=client_id, Username="ann", ConfirmationCode=ann_code)
    cognito.idp.confirm_sign_up(ClientId=client_id, Username="ben", ConfirmationCode=ben_code)
    for username in ("ann", "ben"):
        assert cognito.verify(cognito.tokens(username, client_id=client_id)["AccessToken"], "access", pool_id=pool_id,
                              client_id=client_id)["username"] == username
    found = cognito.idp.list_users(UserPoolId=pool_id, Filter='email = "family@example.com"')["Users"]
    assert sorted(u["Username"] for u in found) == ["ann", "ben"]


def test_an_alias_is_one_users_once_verified(cognito):
    """Cognito's aliases: users share an unverified email; confirming a second is AliasExistsException, with the code
    still good for a second try with ForceAliasCreation, which moves the alias and leaves the first user's email
    unverified. An address the pool signs in with (UsernameAttributes) stays one user's, verified or not."""
    pool_id = cognito.create_pool(username_attributes=(), AliasAttributes=["email"])
    client_id = cognito.create_client(pool_id)["ClientId"]
    cognito.idp.sign_up(ClientId=client_id, Username="ann", Password=COGNITO_PASSWORD,
                        UserAttributes=[{"Name": "email", "Value": "ann@example.com"}])
    cognito.idp.confirm_sign_up(ClientId=client_id, Username="ann", ConfirmationCode=cognito.code("ann@example.com", "verify_email"))
    cognito.idp.sign_up(ClientId=client_id, Username="ann2", Password=COGNITO_PASSWORD,
                        UserAttributes=[{"Name": "email", "Value": "ann@example.com"}])
    code = cognito.code("ann@example.com", "verify_email")
    error = cognito.fails("confirm_sign_up", ClientId=client_id, Username="ann2", ConfirmationCode=code)
    assert (error["Code"], error["Message"]) == ("AliasExistsException", "An account with the email already exists.")
    assert cognito.verify(cognito.tokens("ann@example.com", client_id=client_id)["AccessToken"], "access", pool_id=pool_id,
                          client_id=client_id)["username"] == "ann"
    cognito.idp.confirm_sign_up(ClientId=client_id, Username="ann2", ConfirmationCode=code, ForceAliasCreation=True)
    assert cognito.verify(cognito.tokens("ann@example.com", client_id=client_id)["AccessToken"], "access", pool_id=pool_id,
                          client_id=client_id)["username"] == "ann2"
    ann = {a["Name"]: a["Value"] for a in cognito.idp.admin_get_user(UserPoolId=pool_id, Username="ann")["UserAttributes"]}
    assert (ann["email"], ann["email_verified"]) == ("ann@example.com", "false")
    error = cognito.fails("admin_update_user_attributes", UserPoolId=pool_id, Username="ann",
                          UserAttributes=[{"Name": "email_verified", "Value": "true"}])
    assert error["Code"] == "AliasExistsException"
    error = cognito.fails("sign_up", ClientId=COGNITO_CLIENT, Username="alice@example.com", Password=COGNITO_PASSWORD)
    assert error["Code"] == "UsernameExistsException"


def test_a_preferred_username_alias_signs_in_and_lists_in_groups_page_by_page(cognito):
    """A preferred_username alias is found by the store's query (not by reading the pool), and ListUsersInGroup
    pages a group's members from the store, a page and one more at a time, whatever the pool's size."""
    pool_id = cognito.create_pool(username_attributes=(), AliasAttributes=["preferred_username"])
    client_id = cognito.create_client(pool_id)["ClientId"]
    for name in ("ann", "ben", "cat", "dan"):
        cognito.admin_user(pool_id, name, attributes={"preferred_username": f"the-{name}"})
    tokens = cognito.tokens("the-cat", client_id=client_id)
    assert cognito.verify(tokens["AccessToken"], "access", pool_id=pool_id, client_id=client_id)["username"] == "cat"
    assert cognito.fails("initiate_auth", ClientId=client_id, AuthFlow="USER_PASSWORD_AUTH",
                         AuthParameters={"USERNAME": "the-eve", "PASSWORD": COGNITO_PASSWORD})["Code"] == "UserNotFoundException"
    cognito.idp.create_group(UserPoolId=pool_id, GroupName="crew")
    cognito.idp.create_group(UserPoolId=pool_id, GroupName="crew2")
    for name in ("dan", "ann", "cat"):
        cognito.idp.admin_add_user_to_group(UserPoolId=pool_id, Username=name, GroupName="crew")
    cognito.idp.admin_add_user_to_group(UserPoolId=pool_id, Username="ben", GroupName="crew2")
    pages, token = [], None
    while True:
        page = cognito.idp.list_users_in_group(UserPoolId=pool_id, GroupName="crew", Limit=2, **({"NextToken": token} if token else {}))
        pages.append([u["Username"] for u in page["Users"]])
        token = page.get("NextToken")
        if not token:
            break
    # In the store's order (by sub), two and then one, each member once.
    assert [len(page) for page in pages] == [2, 1] and sorted(sum(pages, [])) == ["ann", "cat", "dan"]
    cognito.idp.delete_group(UserPoolId=pool_id, GroupName="crew")
    assert all(cognito.idp.admin_list_groups_for_user(UserPoolId=pool_id, Username=name)["Groups"] == [] for name in ("ann", "cat", "dan"))
    assert [g["GroupName"] for g in cognito.idp.admin_list_groups_for_user(UserPoolId=pool_id, Username="ben")["Groups"]] == ["crew2"]


# --- Pool schema and settings ------------------------------------------------------------------------------------

def test_schema_attributes_are_described_as_aws_does(cognito):
    pool_id = cognito.create_pool(Schema=[{"Name": "tenant", "AttributeDataType": "String"},
                                          {"Name": "secret", "AttributeDataType": "String", "DeveloperOnlyAttribute": True}])
    schema = {a["Name"]: a for a in cognito.idp.describe_user_pool(UserPoolId=pool_id)["UserPool"]["SchemaAttributes"]}
    assert schema["sub"] == {"Name": "sub", "AttributeDataType": "String", "DeveloperOnlyAttribute": False, "Mutable": False,
                             "Required": True, "StringAttributeConstraints": {"MinLength": "1", "MaxLength": "2048"}}
    assert schema["updated_at"]["NumberAttributeConstraints"] == {"MinValue": "0"}
    assert schema["custom:tenant"]["DeveloperOnlyAttribute"] is False
    assert schema["dev:custom:secret"]["DeveloperOnlyAttribute"] is True
    error = cognito.fails("add_custom_attributes", UserPoolId=pool_id, CustomAttributes=[{"Name": "secret", "AttributeDataType": "String"}])
    assert error == {"Code": "InvalidParameterException", "Message": "custom:secret: Existing attribute already has name dev:custom:secret."}


def test_attribute_values_must_fit_the_pools_schema(cognito):
    """A custom attribute's constraints hold for its values, at sign-up and on every update (Amplify's
    updateUserAttributes reported such updates done where AWS refuses them). The reasons' wording is Fauxth's."""
    pool_id = cognito.create_pool()
    cognito.idp.add_custom_attributes(UserPoolId=pool_id, CustomAttributes=[
        {"Name": "team", "AttributeDataType": "String", "StringAttributeConstraints": {"MinLength": "1", "MaxLength": "20"}},
        {"Name": "level", "AttributeDataType": "Number", "NumberAttributeConstraints": {"MinValue": "1", "MaxValue": "10"}}])
    email = cognito.admin_user(pool_id, cognito_email("schema"))

    def update(name, value):
        return cognito.fails("admin_update_user_attributes", UserPoolId=pool_id, Username=email, UserAttributes=[{"Name": name, "Value": value}])

    prefix = "Attributes did not conform to the schema: "
    assert update("custom:team", "x" * 21) == {"Code": "InvalidParameterException",
                                               "Message": prefix + "custom:team: String must be no longer than 20 characters\n"}
    assert update("custom:level", "abc")["Message"].startswith(prefix + "custom:level: ")
    assert update("custom:level", "11")["Message"].startswith(prefix + "custom:level: ")
    cognito.idp.admin_update_user_attributes(UserPoolId=pool_id, Username=email,
                                             UserAttributes=[{"Name": "custom:team", "Value": "core"}, {"Name": "custom:level", "Value": "7"}])
    got = {a["Name"]: a["Value"] for a in cognito.idp.admin_get_user(UserPoolId=pool_id, Username=email)["UserAttributes"]}
    assert (got["custom:team"], got["custom:level"]) == ("core", "7")


@pytest.mark.parametrize("attribute, message", [
    ({"Name": "tier"}, "Invalid AttributeDataType input, consider using the provided AttributeDataType enum."),
    ({"Name": "tier", "AttributeDataType": "String", "Required": True}, "Required custom attributes are not supported currently."),
    ({"Name": "email", "AttributeDataType": "Number"},
     "You can not change AttributeDataType or set developerOnlyAttribute for standard schema attribute email"),
    ({"Name": "tier", "AttributeDataType": "String", "StringAttributeConstraints": {"MaxLength": "4096"}},
     "user.custom:tier: String attributes cannot have a length of more than 2048"),
    ({"Name": "tier", "AttributeDataType": "Number", "NumberAttributeConstraints": {"MinValue": "5", "MaxValue": "1"}},
     "user.custom:tier: Max value cannot be less than min value."),
])
def test_create_user_pool_validates_the_schema(cognito, attribute, message):
    error = cognito.fails("create_user_pool", PoolName="invalid", Schema=[attribute])
    assert error == {"Code": "InvalidParameterException", "Message": message}


def test_pool_settings_aws_checks_or_fills_in(cognito):
    pool_id = cognito.create_pool(VerificationMessageTemplate={"EmailMessage": "Code {####}", "EmailSubject": "Code",
                                                               "SmsMessage": "SMS {####}"})
    pool = cognito.idp.describe_user_pool(UserPoolId=pool_id)["UserPool"]
    assert (pool["EmailVerificationMessage"], pool["EmailVerificationSubject"], pool["SmsVerificationMessage"]) == (
        "Code {####}", "Code", "SMS {####}")
    assert pool["EmailConfiguration"] == {"EmailSendingAccount": "COGNITO_DEFAULT"}
    # A pool made without a sign-in policy answers one: a password only.
    assert pool["Policies"]["SignInPolicy"] == {"AllowedFirstAuthFactors": ["PASSWORD"]}
    error = cognito.fails("update_user_pool", UserPoolId=pool_id, Policies={"SignInPolicy": {"AllowedFirstAuthFactors": ["PASSWORD", "FOO"]}})
    assert error["Code"] == "InvalidParameterException" and error["Message"].startswith(
        "1 validation error detected: Value '[PASSWORD, FOO]' at 'policies.signInPolicy.allowedFirstAuthFactors' failed to satisfy constraint")

    error = cognito.fails("set_user_pool_mfa_config", UserPoolId=pool_id, MfaConfiguration="ALWAYS")
    assert error["Message"] == ("1 validation error detected: Value 'ALWAYS' at 'mfaConfiguration' failed to satisfy constraint: "
                                "Member must satisfy enum value set: [OPTIONAL, OFF, ON]")
    error = cognito.fails("set_user_pool_mfa_config", UserPoolId=pool_id, MfaConfiguration="ON")
    assert error == {"Code": "InvalidParameterException",
                     "Message": "Invalid MFA configuration given, can't disable all MFAs with a required or optional configuration."}

    cognito.idp.create_resource_server(UserPoolId=pool_id, Identifier="https://api.example.com", Name="api")
    error = cognito.fails("create_resource_server", UserPoolId=pool_id, Identifier="https://api.example.com", Name="again")
    assert error == {"Code": "InvalidParameterException", "Message": f"https://api.example.com already exists in user pool {pool_id}."}


def test_choice_based_sign_in_hides_unknown_users_on_a_legacy_client_too(cognito):
    """AWS's user existence page: choice-based authentication (USER_AUTH) isn't affected by PreventUserExistenceErrors,
    so a LEGACY client gets a challenge for an unknown name, where its other flows say UserNotFoundException; Fauxth
    said UserNotFoundException there too."""
    pool_id = cognito.create_pool(Policies={"SignInPolicy": {"AllowedFirstAuthFactors": ["PASSWORD"]}})
    legacy = cognito.create_client(pool_id, flows=("ALLOW_USER_AUTH", "ALLOW_USER_PASSWORD_AUTH"), PreventUserExistenceErrors="LEGACY")["ClientId"]
    ghost = cognito_email("ghost")
    step = cognito.idp.initiate_auth(ClientId=legacy, AuthFlow="USER_AUTH", AuthParameters={"USERNAME": ghost})
    assert step["ChallengeName"] == "PASSWORD"
    with pytest.raises(botocore.exceptions.ClientError) as wrong:
        cognito.idp.respond_to_auth_challenge(ClientId=legacy, ChallengeName="PASSWORD", Session=step["Session"],
                                              ChallengeResponses={"USERNAME": ghost, "PASSWORD": "Whatever-1"})
    assert wrong.value.response["Error"] == {"Code": "NotAuthorizedException", "Message": "Incorrect username or password."}
    with pytest.raises(botocore.exceptions.ClientError) as plain:
        cognito.idp.initiate_auth(ClientId=legacy, AuthFlow="USER_PASSWORD_AUTH", AuthParameters={"USERNAME": ghost, "PASSWORD": "Whatever-1"})
    assert plain.value.response["Error"]["Code"] == "UserNotFoundException"


@pytest.mark.parametrize("case_sensitive", [True, False])
def test_an_email_is_kept_as_written_and_an_alias_matched_as_the_pool_says(cognito, case_sensitive):
    """Cognito keeps attribute values as given (amplify-flutter #5678); CaseSensitive false makes the email alias case
    insensitive (UsernameConfigurationType), true takes it only as written. Fauxth lowercased every email."""
    pool_id = cognito.create_pool(username_attributes=(), AliasAttributes=["email"], UsernameConfiguration={"CaseSensitive": case_sensitive})
    client_id = cognito.create_client(pool_id)["ClientId"]
    cognito.idp.admin_create_user(UserPoolId=pool_id, Username="frank", MessageAction="SUPPRESS",
                                  UserAttributes=[{"Name": "email", "Value": "Frank@Example.com"}, {"Name": "email_verified", "Value": "true"}])
    cognito.idp.admin_set_user_password(UserPoolId=pool_id, Username="frank", Password=COGNITO_PASSWORD, Permanent=True)
    frank = {a["Name"]: a["Value"] for a in cognito.idp.admin_get_user(UserPoolId=pool_id, Username="frank")["UserAttributes"]}
    assert frank["email"] == "Frank@Example.com"
    assert cognito.tokens("Frank@Example.com", client_id=client_id)["AccessToken"]
    if case_sensitive:
        assert cognito.fails("initiate_auth", ClientId=client_id, AuthFlow="USER_PASSWORD_AUTH",
                             AuthParameters={"USERNAME": "frank@example.com", "PASSWORD": COGNITO_PASSWORD})["Code"] == "UserNotFoundException"
    else:
        assert cognito.tokens("frank@example.com", client_id=client_id)["AccessToken"]


def test_refresh_token_rotation_is_set_through_the_api_and_excludes_refresh_token_auth(cognito):
    """RefreshTokenRotation is a request parameter of CreateUserPoolClient and UpdateUserPoolClient (Fauxth dropped it),
    with a grace period of 0 to 60 seconds; a rotating client refreshes only through GetTokensFromRefreshToken
    (RefreshTokenRotationType). A RefreshTokenValidity of 0 means the default 30 days (UserPoolClientType)."""
    pool_id = cognito.create_pool()
    error = cognito.fails("create_user_pool_client", UserPoolId=pool_id, ClientName="too-long",
                          RefreshTokenRotation={"Feature": "ENABLED", "RetryGracePeriodSeconds": 100})
    assert error["Code"] == "InvalidParameterException" and "retryGracePeriodSeconds" in error["Message"]
    client = cognito.create_client(pool_id, RefreshTokenRotation={"Feature": "ENABLED", "RetryGracePeriodSeconds": 10},
                                   RefreshTokenValidity=0)
    assert client["RefreshTokenRotation"] == {"Feature": "ENABLED", "RetryGracePeriodSeconds": 10}
    email = cognito.admin_user(pool_id, cognito_email("rotating"))
    tokens = cognito.tokens(email, client_id=client["ClientId"])
    cognito.fauxth.control("POST", "/clock/advance", json={"seconds": 7 * 86400})
    rotated = cognito.idp.get_tokens_from_refresh_token(ClientId=client["ClientId"], RefreshToken=tokens["RefreshToken"])
    assert rotated["AuthenticationResult"]["RefreshToken"] != tokens["RefreshToken"]
    refused = cognito.fails("initiate_auth", ClientId=client["ClientId"], AuthFlow="REFRESH_TOKEN_AUTH",
                            AuthParameters={"REFRESH_TOKEN": rotated["AuthenticationResult"]["RefreshToken"]})
    assert refused["Code"] == "InvalidParameterException" and "GetTokensFromRefreshToken" in refused["Message"]
    cognito.idp.update_user_pool_client(UserPoolId=pool_id, ClientId=client["ClientId"], RefreshTokenRotation={"Feature": "DISABLED"})
    again = cognito.idp.initiate_auth(ClientId=client["ClientId"], AuthFlow="REFRESH_TOKEN_AUTH",
                                      AuthParameters={"REFRESH_TOKEN": rotated["AuthenticationResult"]["RefreshToken"]})
    assert again["AuthenticationResult"]["AccessToken"]


def test_attribute_deletion_follows_the_pool_and_the_clients_permissions(cognito):
    """A blank value deletes an attribute ("submit the attribute … with a blank value"): an address is cleared, never
    sent a code; what the schema requires or fixes cannot go (AWS: "Invalid user attributes: phone_number: Required
    attribute cannot be deleted."); a user's own deletion is a write, under the client's WriteAttributes and never of a
    verification flag; GetUser shows only the client's ReadAttributes; ListUsers' UserType has no MFA settings."""
    pool_id = cognito.create_pool(username_attributes=(), Schema=[
        {"Name": "name", "AttributeDataType": "String", "Required": True, "Mutable": True},
        {"Name": "tier", "AttributeDataType": "String", "Mutable": False}],
        UserAttributeUpdateSettings={"AttributesRequireVerificationBeforeUpdate": ["email"]})
    client_id = cognito.create_client(pool_id, ReadAttributes=["email", "name"], WriteAttributes=["name", "email", "phone_number"])["ClientId"]
    email = cognito_email("blank")
    cognito.admin_user(pool_id, "blank-user", attributes={"email": email, "email_verified": "true", "name": "Blank",
                                                          "phone_number": "+15550104567", "given_name": "B", "custom:tier": "gold"})
    token = cognito.tokens("blank-user", client_id=client_id)["AccessToken"]

    shown = {a["Name"] for a in cognito.idp.get_user(AccessToken=token)["UserAttributes"]}
    assert shown == {"sub", "email", "name"}

    def self_update(name, value):
        return cognito.fails("update_user_attributes", AccessToken=token, UserAttributes=[{"Name": name, "Value": value}])
    required = {"Code": "InvalidParameterException", "Message": "Invalid user attributes: name: Required attribute cannot be deleted."}
    assert self_update("name", "") == required
    assert cognito.fails("admin_delete_user_attributes", UserPoolId=pool_id, Username="blank-user", UserAttributeNames=["name"]) == required
    assert cognito.fails("admin_delete_user_attributes", UserPoolId=pool_id, Username="blank-user",
                         UserAttributeNames=["custom:tier"])["Message"] == "Cannot modify the non-mutable attribute custom:tier"
    unauthorized = {"Code": "NotAuthorizedException", "Message": "A client attempted to write unauthorized attribute"}
    for name in ("email_verified", "given_name"):
        assert cognito.fails("delete_user_attributes", AccessToken=token, UserAttributeNames=[name]) == unauthorized

    cognito.idp.admin_set_user_mfa_preference(UserPoolId=pool_id, Username="blank-user", SMSMfaSettings={"Enabled": True, "PreferredMfa": True})
    assert cognito.idp.admin_get_user(UserPoolId=pool_id, Username="blank-user")["UserMFASettingList"] == ["SMS_MFA"]
    [listed] = cognito.idp.list_users(UserPoolId=pool_id)["Users"]
    assert "UserMFASettingList" not in listed and "PreferredMfaSetting" not in listed
    cognito.idp.admin_set_user_mfa_preference(UserPoolId=pool_id, Username="blank-user", SMSMfaSettings={"Enabled": False})

    sent_before = len(cognito.messages(email))
    answer = cognito.idp.update_user_attributes(AccessToken=token, UserAttributes=[{"Name": "email", "Value": ""},
                                                                                   {"Name": "phone_number", "Value": ""}])
    assert answer.get("CodeDeliveryDetailsList", []) == []
    user = cognito.idp.admin_get_user(UserPoolId=pool_id, Username="blank-user")
    assert {a["Name"] for a in user["UserAttributes"]}.isdisjoint({"email", "phone_number", "email_verified", "phone_number_verified"})
    assert len(cognito.messages(email)) == sent_before
    assert cognito.fauxth.control("GET", "/messages", params={"to": ""}).json()["messages"] == []



def test_sign_up_and_password_resets_follow_the_users_state(cognito):
    """From a boto3 sweep against AWS's references: a sign-up gives what the schema requires; an alias pool's usernames
    cannot look like the alias; an administrator's user who never signed in has no password to reset; a hiding
    client answers a disabled user's reset with a simulated delivery and its code with CodeMismatchException;
    AdminResetUserPassword needs the user enabled; a password change past the lockout is LimitExceededException."""
    pool_id = cognito.create_pool(username_attributes=(), AliasAttributes=["email"], Schema=[
        {"Name": "name", "AttributeDataType": "String", "Required": True, "Mutable": True}],
        AccountRecoverySetting={"RecoveryMechanisms": [{"Name": "verified_email", "Priority": 1}]})
    client_id = cognito.create_client(pool_id, PreventUserExistenceErrors="ENABLED")["ClientId"]
    email = cognito_email("states")

    def sign_up(username, attributes):
        return cognito.fails("sign_up", ClientId=client_id, Username=username, Password=COGNITO_PASSWORD,
                             UserAttributes=[{"Name": k, "Value": v} for k, v in attributes.items()])
    assert sign_up("states-user", {"email": email}) == {
        "Code": "InvalidParameterException", "Message": "Attributes did not conform to the schema: name: The attribute is required\n"}
    assert sign_up(email, {"email": email, "name": "S"})["Message"] == \
        "Username cannot be of email format, since user pool is configured for email alias."

    cognito.idp.admin_create_user(UserPoolId=pool_id, Username="new-admin-user", MessageAction="SUPPRESS", TemporaryPassword="temporary123",
                                  UserAttributes=[{"Name": "email", "Value": cognito_email("fresh")}, {"Name": "email_verified", "Value": "true"},
                                                  {"Name": "name", "Value": "F"}])
    assert cognito.fails("forgot_password", ClientId=client_id, Username="new-admin-user") == {
        "Code": "NotAuthorizedException", "Message": "User password cannot be reset in the current state."}

    cognito.admin_user(pool_id, "states-user", attributes={"email": email, "email_verified": "true", "name": "S"})
    cognito.idp.forgot_password(ClientId=client_id, Username="states-user")
    code = cognito.code(email)
    cognito.idp.admin_disable_user(UserPoolId=pool_id, Username="states-user")
    sent = len(cognito.messages(email))
    assert "CodeDeliveryDetails" in cognito.idp.forgot_password(ClientId=client_id, Username="states-user")
    assert len(cognito.messages(email)) == sent
    assert cognito.fails("confirm_forgot_password", ClientId=client_id, Username="states-user", ConfirmationCode=code,
                         Password="Another-password1")["Code"] == "CodeMismatchException"
    assert cognito.fails("admin_reset_user_password", UserPoolId=pool_id, Username="states-user") == {
        "Code": "NotAuthorizedException", "Message": "User is disabled."}
    cognito.idp.admin_enable_user(UserPoolId=pool_id, Username="states-user")

    token = cognito.tokens("states-user", client_id=client_id)["AccessToken"]
    errors = [cognito.fails("change_password", AccessToken=token, PreviousPassword="wrong-password1", ProposedPassword="Another-password1")
              for _ in range(6)]
    assert errors[0]["Code"] == "NotAuthorizedException"
    assert errors[-1] == {"Code": "LimitExceededException", "Message": "Attempt limit exceeded, please try after some time."}


def test_a_resend_where_the_pool_verifies_nothing_is_refused_in_awss_words(cognito):
    """Users quote AWS's answer with its type: NotAuthorizedException "Cannot resend codes. Auto verification not turned
    on." (Fauxth said InvalidParameterException "Auto verification not turned on.")."""
    pool_id = cognito.create_pool(auto_verified=())
    client_id = cognito.create_client(pool_id)["ClientId"]
    email = cognito_email("noverify")
    cognito.idp.sign_up(ClientId=client_id, Username=email, Password=COGNITO_PASSWORD)
    assert cognito.fails("resend_confirmation_code", ClientId=client_id, Username=email) == {
        "Code": "NotAuthorizedException", "Message": "Cannot resend codes. Auto verification not turned on."}


def test_a_new_password_answer_cannot_rewrite_a_provided_required_attribute_and_another_clients_token_says_so(cognito):
    """The model: "In a NEW_PASSWORD_REQUIRED challenge response, you can't modify a required attribute that already has
    a value" (the CLI quotes NotAuthorizedException "Cannot modify an already provided email"); and a refresh token of
    another client is "Refresh Token has different Client" (aws-sdk-js #4016)."""
    pool_id = cognito.create_pool(username_attributes=(), Schema=[{"Name": "email", "AttributeDataType": "String", "Required": True,
                                                                      "Mutable": True}])
    client_id = cognito.create_client(pool_id, flows=("ALLOW_ADMIN_USER_PASSWORD_AUTH", "ALLOW_USER_PASSWORD_AUTH",
                                                      "ALLOW_REFRESH_TOKEN_AUTH"))["ClientId"]
    email = cognito_email("provided")
    cognito.idp.admin_create_user(UserPoolId=pool_id, Username="provided-user", MessageAction="SUPPRESS", TemporaryPassword="temporary123",
                                  UserAttributes=[{"Name": "email", "Value": email}])
    challenge = cognito.idp.admin_initiate_auth(UserPoolId=pool_id, ClientId=client_id, AuthFlow="ADMIN_USER_PASSWORD_AUTH",
                                                AuthParameters={"USERNAME": "provided-user", "PASSWORD": "temporary123"})
    refused = cognito.fails("admin_respond_to_auth_challenge", UserPoolId=pool_id, ClientId=client_id, ChallengeName="NEW_PASSWORD_REQUIRED",
                            Session=challenge["Session"], ChallengeResponses={"USERNAME": "provided-user", "NEW_PASSWORD": COGNITO_PASSWORD,
                                                                              "userAttributes.email": email})
    assert refused == {"Code": "NotAuthorizedException", "Message": "Cannot modify an already provided email"}

    cognito.idp.admin_set_user_password(UserPoolId=pool_id, Username="provided-user", Password=COGNITO_PASSWORD, Permanent=True)
    refresh = cognito.tokens("provided-user", client_id=client_id)["RefreshToken"]
    other = cognito.create_client(pool_id)["ClientId"]
    assert cognito.fails("initiate_auth", ClientId=other, AuthFlow="REFRESH_TOKEN_AUTH", AuthParameters={"REFRESH_TOKEN": refresh}) == {
        "Code": "NotAuthorizedException", "Message": "Refresh Token has different Client"}
