"""Cognito user administration as a backend or a seeding script does it with boto3: creating users with invitations,
reading, disabling and resetting them, listing with filters and pages, and group membership."""
import datetime

from conftest import COGNITO_CLIENT, COGNITO_PASSWORD, COGNITO_POOL, cognito_email


def attributes(user):
    return {a["Name"]: a["Value"] for a in user.get("UserAttributes", user.get("Attributes", []))}


def emails(users):
    return sorted(attributes(u).get("email") for u in users)


def test_admin_create_user_emails_a_temporary_password_that_must_be_changed(cognito):
    email = cognito_email("invitee")
    created = cognito.idp.admin_create_user(UserPoolId=COGNITO_POOL, Username=email, DesiredDeliveryMediums=["EMAIL"],
                                            UserAttributes=[{"Name": "email", "Value": email},
                                                            {"Name": "email_verified", "Value": "true"}])["User"]
    assert created["UserStatus"] == "FORCE_CHANGE_PASSWORD"
    assert created["Enabled"] is True
    assert attributes(created)["email"] == email
    invite = cognito.message(email, "invite")
    assert invite["channel"] == "email"
    temporary = invite["codes"][0]
    assert temporary in invite["text"]

    challenge = cognito.password_auth(email, temporary)
    assert challenge["ChallengeName"] == "NEW_PASSWORD_REQUIRED"
    assert challenge["Session"] and "AuthenticationResult" not in challenge
    assert challenge["ChallengeParameters"]["USER_ID_FOR_SRP"] == created["Username"]
    weak = cognito.fails("respond_to_auth_challenge", ClientId=COGNITO_CLIENT, ChallengeName="NEW_PASSWORD_REQUIRED", Session=challenge["Session"],
                         ChallengeResponses={"USERNAME": email, "NEW_PASSWORD": "short"})
    assert weak["Code"] == "InvalidPasswordException"
    done = cognito.idp.respond_to_auth_challenge(ClientId=COGNITO_CLIENT, ChallengeName="NEW_PASSWORD_REQUIRED", Session=challenge["Session"],
                                                 ChallengeResponses={"USERNAME": email, "NEW_PASSWORD": "chosen12345"})
    assert cognito.verify(done["AuthenticationResult"]["IdToken"], "id")["email"] == email
    assert cognito.idp.admin_get_user(UserPoolId=COGNITO_POOL, Username=email)["UserStatus"] == "CONFIRMED"
    assert cognito.tokens(email, "chosen12345")["AccessToken"]


def test_admin_create_user_with_suppress_sends_nothing(cognito):
    email = cognito_email("silent")
    cognito.idp.admin_create_user(UserPoolId=COGNITO_POOL, Username=email, TemporaryPassword="temporary123", MessageAction="SUPPRESS",
                                  UserAttributes=[{"Name": "email", "Value": email}])
    assert cognito.messages(email) == []
    assert cognito.password_auth(email, "temporary123")["ChallengeName"] == "NEW_PASSWORD_REQUIRED"
    taken = cognito.fails("admin_create_user", UserPoolId=COGNITO_POOL, Username=email, MessageAction="SUPPRESS")
    assert taken["Code"] == "UsernameExistsException"
    weak = cognito.fails("admin_create_user", UserPoolId=COGNITO_POOL, Username=cognito_email("weak"), TemporaryPassword="123",
                         MessageAction="SUPPRESS")
    assert weak["Code"] == "InvalidPasswordException"


def test_admin_get_user_returns_status_dates_and_attributes(cognito):
    alice = cognito.idp.admin_get_user(UserPoolId=COGNITO_POOL, Username="alice@example.com")
    assert alice["Enabled"] is True and alice["UserStatus"] == "CONFIRMED"
    values = attributes(alice)
    assert (values["email"], values["email_verified"], values["name"]) == ("alice@example.com", "true", "Alice Verified")
    assert values["sub"]
    assert isinstance(alice["UserCreateDate"], datetime.datetime)
    assert isinstance(alice["UserLastModifiedDate"], datetime.datetime)
    carol = attributes(cognito.idp.admin_get_user(UserPoolId=COGNITO_POOL, Username="carol@example.com"))
    assert (carol["phone_number"], carol["phone_number_verified"]) == ("+15555550100", "true")
    missing = cognito.fails("admin_get_user", UserPoolId=COGNITO_POOL, Username="nobody@example.com")
    assert missing == {"Code": "UserNotFoundException", "Message": "User does not exist."}


def test_a_disabled_user_cannot_sign_in_until_enabled_again(cognito):
    email = cognito.signed_up_user(cognito_email("paused"))
    refresh_token = cognito.tokens(email)["RefreshToken"]
    cognito.idp.admin_disable_user(UserPoolId=COGNITO_POOL, Username=email)
    assert cognito.idp.admin_get_user(UserPoolId=COGNITO_POOL, Username=email)["Enabled"] is False
    assert cognito.fails("initiate_auth", ClientId=COGNITO_CLIENT, AuthFlow="USER_PASSWORD_AUTH",
                         AuthParameters={"USERNAME": email, "PASSWORD": COGNITO_PASSWORD})["Code"] == "NotAuthorizedException"
    assert cognito.fails("initiate_auth", ClientId=COGNITO_CLIENT, AuthFlow="REFRESH_TOKEN_AUTH",
                         AuthParameters={"REFRESH_TOKEN": refresh_token})["Code"] == "NotAuthorizedException"
    cognito.idp.admin_enable_user(UserPoolId=COGNITO_POOL, Username=email)
    assert cognito.idp.admin_get_user(UserPoolId=COGNITO_POOL, Username=email)["Enabled"] is True
    assert cognito.tokens(email)["AccessToken"]


def test_admin_set_user_password_sets_a_permanent_or_temporary_password(cognito):
    email = cognito_email("assigned")
    cognito.idp.admin_create_user(UserPoolId=COGNITO_POOL, Username=email, TemporaryPassword="temporary123", MessageAction="SUPPRESS",
                                  UserAttributes=[{"Name": "email", "Value": email}])
    cognito.idp.admin_set_user_password(UserPoolId=COGNITO_POOL, Username=email, Password="permanent123", Permanent=True)
    assert cognito.idp.admin_get_user(UserPoolId=COGNITO_POOL, Username=email)["UserStatus"] == "CONFIRMED"
    assert cognito.tokens(email, "permanent123")["AccessToken"]

    cognito.idp.admin_set_user_password(UserPoolId=COGNITO_POOL, Username=email, Password="temporary456", Permanent=False)
    assert cognito.idp.admin_get_user(UserPoolId=COGNITO_POOL, Username=email)["UserStatus"] == "FORCE_CHANGE_PASSWORD"
    assert cognito.password_auth(email, "temporary456")["ChallengeName"] == "NEW_PASSWORD_REQUIRED"
    weak = cognito.fails("admin_set_user_password", UserPoolId=COGNITO_POOL, Username=email, Password="ALLCAPS123", Permanent=True)
    assert weak["Code"] == "InvalidPasswordException"


def test_admin_reset_user_password_requires_the_emailed_code(cognito):
    email = cognito.signed_up_user(cognito_email("reset"))
    cognito.idp.admin_reset_user_password(UserPoolId=COGNITO_POOL, Username=email)
    assert cognito.idp.admin_get_user(UserPoolId=COGNITO_POOL, Username=email)["UserStatus"] == "RESET_REQUIRED"
    code = cognito.code(email, "reset_password")
    blocked = cognito.fails("initiate_auth", ClientId=COGNITO_CLIENT, AuthFlow="USER_PASSWORD_AUTH",
                            AuthParameters={"USERNAME": email, "PASSWORD": COGNITO_PASSWORD})
    assert blocked["Code"] == "PasswordResetRequiredException"
    cognito.idp.confirm_forgot_password(ClientId=COGNITO_CLIENT, Username=email, ConfirmationCode=code, Password="renewed1234")
    assert cognito.idp.admin_get_user(UserPoolId=COGNITO_POOL, Username=email)["UserStatus"] == "CONFIRMED"
    assert cognito.tokens(email, "renewed1234")["AccessToken"]


def test_admin_confirm_update_and_delete_a_user(cognito):
    cognito.idp.admin_confirm_sign_up(UserPoolId=COGNITO_POOL, Username="bob@example.com")
    assert cognito.idp.admin_get_user(UserPoolId=COGNITO_POOL, Username="bob@example.com")["UserStatus"] == "CONFIRMED"
    assert cognito.tokens("bob@example.com")["AccessToken"]

    cognito.idp.admin_update_user_attributes(UserPoolId=COGNITO_POOL, Username="bob@example.com",
                                             UserAttributes=[{"Name": "name", "Value": "Bob Builder"}])
    assert attributes(cognito.idp.admin_get_user(UserPoolId=COGNITO_POOL, Username="bob@example.com"))["name"] == "Bob Builder"
    assert cognito.verify(cognito.tokens("bob@example.com")["IdToken"], "id")["name"] == "Bob Builder"

    cognito.idp.admin_delete_user(UserPoolId=COGNITO_POOL, Username="bob@example.com")
    assert cognito.fails("admin_get_user", UserPoolId=COGNITO_POOL, Username="bob@example.com")["Code"] == "UserNotFoundException"
    assert cognito.fails("admin_confirm_sign_up", UserPoolId=COGNITO_POOL, Username="bob@example.com")["Code"] == "UserNotFoundException"


def test_admin_user_global_sign_out_revokes_the_users_refresh_tokens(cognito):
    email = cognito.signed_up_user(cognito_email("kicked"))
    tokens = cognito.tokens(email)
    cognito.idp.admin_user_global_sign_out(UserPoolId=COGNITO_POOL, Username=email)
    error = cognito.fails("initiate_auth", ClientId=COGNITO_CLIENT, AuthFlow="REFRESH_TOKEN_AUTH",
                          AuthParameters={"REFRESH_TOKEN": tokens["RefreshToken"]})
    assert error["Code"] == "NotAuthorizedException"
    assert cognito.fails("get_user", AccessToken=tokens["AccessToken"])["Code"] == "NotAuthorizedException"
    unknown = cognito.fails("admin_user_global_sign_out", UserPoolId=COGNITO_POOL, Username="nobody@example.com")
    assert unknown["Code"] == "UserNotFoundException"


def test_list_users_filters_by_attribute_prefix_and_status_and_refuses_bad_filters(cognito):
    def listed(filter_):
        return emails(cognito.idp.list_users(UserPoolId=COGNITO_POOL, Filter=filter_)["Users"])

    assert emails(cognito.idp.list_users(UserPoolId=COGNITO_POOL)["Users"]) == ["alice@example.com", "bob@example.com", "carol@example.com"]
    assert listed('email = "alice@example.com"') == ["alice@example.com"]
    assert listed('email ^= "ca"') == ["carol@example.com"]
    assert listed('email = "nobody@example.com"') == []
    assert listed('cognito:user_status = "UNCONFIRMED"') == ["bob@example.com"]
    assert listed('cognito:user_status = "CONFIRMED"') == ["alice@example.com", "carol@example.com"]
    assert listed('phone_number = "+15555550100"') == ["carol@example.com"]
    cognito.idp.admin_disable_user(UserPoolId=COGNITO_POOL, Username="carol@example.com")
    assert listed('status = "Disabled"') == ["carol@example.com"]
    assert listed('status = "Enabled"') == ["alice@example.com", "bob@example.com"]
    [alice] = cognito.idp.list_users(UserPoolId=COGNITO_POOL, Filter='email = "alice@example.com"')["Users"]
    assert alice["UserStatus"] == "CONFIRMED" and alice["Enabled"] is True
    assert alice["Username"] == cognito.idp.admin_get_user(UserPoolId=COGNITO_POOL, Username="alice@example.com")["Username"]
    for bad in ('email = alice@example.com', 'email="', 'email ~ "a"', 'custom:team = "blue"', 'nonsense'):
        error = cognito.fails("list_users", UserPoolId=COGNITO_POOL, Filter=bad)
        assert error["Code"] == "InvalidParameterException", bad


def test_list_users_pages_with_limit_and_token_and_selects_attributes(cognito):
    pool_id = cognito.create_pool()
    made = sorted(cognito.admin_user(pool_id, cognito_email(f"page{i}"), attributes={"name": f"Page {i}"}) for i in range(5))
    seen, token, pages = [], None, 0
    while True:
        params = {"UserPoolId": pool_id, "Limit": 2, "AttributesToGet": ["email"]}
        if token:
            params["PaginationToken"] = token
        page = cognito.idp.list_users(**params)
        pages += 1
        assert len(page["Users"]) <= 2
        for user in page["Users"]:
            assert [a["Name"] for a in user["Attributes"]] == ["email"]
        seen += page["Users"]
        token = page.get("PaginationToken")
        if not token:
            break
    assert pages == 3
    assert emails(seen) == made
    assert len({u["Username"] for u in seen}) == 5


def test_groups_hold_members_and_list_them_both_ways(cognito):
    email = cognito.signed_up_user(cognito_email("member"))
    cognito.idp.create_group(UserPoolId=COGNITO_POOL, GroupName="editors", Description="Edit", Precedence=3)
    cognito.idp.admin_add_user_to_group(UserPoolId=COGNITO_POOL, Username=email, GroupName="editors")
    cognito.idp.admin_add_user_to_group(UserPoolId=COGNITO_POOL, Username=email, GroupName="editors")  # a no-op
    cognito.idp.admin_add_user_to_group(UserPoolId=COGNITO_POOL, Username=email, GroupName="admins")
    groups = cognito.idp.admin_list_groups_for_user(UserPoolId=COGNITO_POOL, Username=email)["Groups"]
    assert sorted(g["GroupName"] for g in groups) == ["admins", "editors"]
    assert [g["Precedence"] for g in groups if g["GroupName"] == "editors"] == [3]
    assert emails(cognito.idp.list_users_in_group(UserPoolId=COGNITO_POOL, GroupName="editors")["Users"]) == [email]
    assert emails(cognito.idp.list_users_in_group(UserPoolId=COGNITO_POOL, GroupName="admins")["Users"]) == ["carol@example.com", email]

    cognito.idp.admin_remove_user_from_group(UserPoolId=COGNITO_POOL, Username=email, GroupName="admins")
    assert [g["GroupName"] for g in cognito.idp.admin_list_groups_for_user(UserPoolId=COGNITO_POOL, Username=email)["Groups"]] == ["editors"]
    cognito.idp.delete_group(UserPoolId=COGNITO_POOL, GroupName="editors")
    assert cognito.idp.admin_list_groups_for_user(UserPoolId=COGNITO_POOL, Username=email)["Groups"] == []
    missing = cognito.fails("admin_add_user_to_group", UserPoolId=COGNITO_POOL, Username=email, GroupName="no-such-group")
    assert missing["Code"] == "ResourceNotFoundException"
    nobody = cognito.fails("admin_add_user_to_group", UserPoolId=COGNITO_POOL, Username="nobody@example.com", GroupName="admins")
    assert nobody["Code"] == "UserNotFoundException"
