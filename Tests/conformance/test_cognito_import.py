"""Cognito user import jobs through boto3: GetCSVHeader, CreateUserImportJob, the PUT of the CSV to the job's
PreSignedUrl as AWS's guide makes it (requests, with `x-amz-server-side-encryption: aws:kms`), StartUserImportJob,
DescribeUserImportJob, ListUserImportJobs and StopUserImportJob; imported users are RESET_REQUIRED and choose a password
through ForgotPassword."""
import requests

from conftest import COGNITO_PASSWORD, cognito_email

ROLE = "arn:aws:iam::123456789012:role/CognitoImportRole"


def import_pool(cognito):
    """A pool whose users have plain usernames and a verified email, and an app client."""
    pool_id = cognito.create_pool(username_attributes=None, auto_verified=("email",))
    return pool_id, cognito.create_client(pool_id)["ClientId"]


def csv_for(cognito, pool_id, rows):
    """The file for `rows` (dicts of column → value): the pool's header, then a line per row, other columns empty."""
    header = cognito.idp.get_csv_header(UserPoolId=pool_id)["CSVHeader"]
    return "\n".join([",".join(header)] + [",".join(row.get(column, "") for column in header) for row in rows]) + "\n"


def upload(job, csv):
    return requests.put(job["PreSignedUrl"], data=csv.encode(), headers={"x-amz-server-side-encryption": "aws:kms"}, timeout=30)


def new_job(cognito, pool_id, name="import"):
    job = cognito.idp.create_user_import_job(JobName=name, UserPoolId=pool_id, CloudWatchLogsRoleArn=ROLE)["UserImportJob"]
    assert job["Status"] == "Created" and job["JobId"].startswith("import-") and job["PreSignedUrl"]
    assert job["ImportedUsers"] == job["SkippedUsers"] == job["FailedUsers"] == 0 and "StartDate" not in job
    return job


def test_the_csv_header_is_the_pools_schema_then_mfa_and_username(cognito):
    pool_id, _ = import_pool(cognito)
    cognito.idp.add_custom_attributes(UserPoolId=pool_id, CustomAttributes=[{"Name": "team", "AttributeDataType": "String"}])
    header = cognito.idp.get_csv_header(UserPoolId=pool_id)
    assert header["UserPoolId"] == pool_id
    assert header["CSVHeader"][:3] == ["name", "given_name", "family_name"]
    assert header["CSVHeader"][-3:] == ["custom:team", "cognito:mfa_enabled", "cognito:username"]
    assert "sub" not in header["CSVHeader"] and "email_verified" in header["CSVHeader"]


def test_an_imported_user_resets_their_password_before_signing_in(cognito):
    pool_id, client_id = import_pool(cognito)
    email = cognito_email("imported")
    job = new_job(cognito, pool_id)
    # A PUT without the encryption header S3 signs into the URL is refused, as S3 refuses it.
    refused = requests.put(job["PreSignedUrl"], data=b"x", timeout=30)
    assert refused.status_code == 403 and "<Code>SignatureDoesNotMatch</Code>" in refused.text
    csv = csv_for(cognito, pool_id, [{"cognito:username": "ada", "email": email, "email_verified": "true", "given_name": "Ada",
                                      "cognito:mfa_enabled": "false"}])
    assert upload(job, csv).status_code == 200

    started = cognito.idp.start_user_import_job(UserPoolId=pool_id, JobId=job["JobId"])["UserImportJob"]
    assert started["Status"] == "Pending" and "StartDate" in started
    finished = cognito.idp.describe_user_import_job(UserPoolId=pool_id, JobId=job["JobId"])["UserImportJob"]
    assert (finished["Status"], finished["ImportedUsers"], finished["SkippedUsers"], finished["FailedUsers"]) == ("Succeeded", 1, 0, 0)
    assert finished["CompletionMessage"] == "Import Job Completed Successfully."

    user = cognito.idp.admin_get_user(UserPoolId=pool_id, Username="ada")
    assert user["UserStatus"] == "RESET_REQUIRED"
    assert {a["Name"]: a["Value"] for a in user["UserAttributes"]}["given_name"] == "Ada"
    error = cognito.fails("initiate_auth", ClientId=client_id, AuthFlow="USER_PASSWORD_AUTH",
                          AuthParameters={"USERNAME": "ada", "PASSWORD": COGNITO_PASSWORD})
    assert error == {"Code": "PasswordResetRequiredException", "Message": "Password reset required for the user"}
    cognito.idp.forgot_password(ClientId=client_id, Username="ada")
    cognito.idp.confirm_forgot_password(ClientId=client_id, Username="ada", ConfirmationCode=cognito.code(email), Password=COGNITO_PASSWORD)
    assert cognito.password_auth("ada", client_id=client_id)["AuthenticationResult"]["AccessToken"]


def test_lines_cognito_refuses_fail_and_taken_usernames_are_skipped(cognito):
    pool_id, _ = import_pool(cognito)
    cognito.admin_user(pool_id, "taken", attributes={"email": cognito_email("taken"), "email_verified": "true"})
    job = new_job(cognito, pool_id)
    rows = [
        {"cognito:username": "grace", "email": cognito_email("grace"), "email_verified": "true", "cognito:mfa_enabled": "false",
         "name": "Hopper\\, Grace"},
        {"cognito:username": "taken", "email": cognito_email("again"), "email_verified": "true", "cognito:mfa_enabled": "false"},
        {"cognito:username": "unverified", "email": cognito_email("unverified"), "email_verified": "false", "cognito:mfa_enabled": "false"},
    ]
    assert upload(job, csv_for(cognito, pool_id, rows)).status_code == 200
    cognito.idp.start_user_import_job(UserPoolId=pool_id, JobId=job["JobId"])
    finished = cognito.idp.describe_user_import_job(UserPoolId=pool_id, JobId=job["JobId"])["UserImportJob"]
    assert (finished["Status"], finished["ImportedUsers"], finished["SkippedUsers"], finished["FailedUsers"]) == ("Failed", 1, 1, 1)
    assert finished["CompletionMessage"] == "Too many users have failed or been skipped during the import."
    # `\,` is a comma inside a value.
    grace = cognito.idp.admin_get_user(UserPoolId=pool_id, Username="grace")
    assert {a["Name"]: a["Value"] for a in grace["UserAttributes"]}["name"] == "Hopper, Grace"
    # What each line came to, as AWS logs it to CloudWatch, is the job's import.finished event.
    [event] = [e for e in cognito.fauxth.control("GET", "/events", params={"type": "import.finished", "tenant": pool_id}).json()["events"]]
    assert event["detail"]["log"] == [
        "[SUCCEEDED] Line Number 2 - The import succeeded.",
        "[SKIPPED] Line Number 3 - The user already exists.",
        "[FAILED] Line Number 4 - The User Record does not set any of the auto verified attributes to true. (Example: email_verified to true).",
    ]


def test_jobs_are_listed_newest_first_and_refuse_steps_out_of_turn(cognito):
    pool_id, _ = import_pool(cognito)
    first, second = new_job(cognito, pool_id, "first"), new_job(cognito, pool_id, "second")
    early = cognito.fails("start_user_import_job", UserPoolId=pool_id, JobId=first["JobId"])
    assert early == {"Code": "PreconditionNotMetException", "Message": f"No csv file was uploaded for {first['JobId']}"}
    page = cognito.idp.list_user_import_jobs(UserPoolId=pool_id, MaxResults=1)
    assert [j["JobName"] for j in page["UserImportJobs"]] == ["second"] and page["PaginationToken"]
    rest = cognito.idp.list_user_import_jobs(UserPoolId=pool_id, MaxResults=1, PaginationToken=page["PaginationToken"])
    assert [j["JobName"] for j in rest["UserImportJobs"]] == ["first"] and "PaginationToken" not in rest
    assert upload(second, csv_for(cognito, pool_id, [])).status_code == 200
    cognito.idp.start_user_import_job(UserPoolId=pool_id, JobId=second["JobId"])
    assert cognito.fails("start_user_import_job", UserPoolId=pool_id, JobId=second["JobId"])["Code"] == "PreconditionNotMetException"
    # Fauxth goes through a started job at once, so none is left in progress to stop.
    assert cognito.fails("stop_user_import_job", UserPoolId=pool_id, JobId=second["JobId"])["Code"] == "PreconditionNotMetException"
    missing = cognito.fails("describe_user_import_job", UserPoolId=pool_id, JobId="import-doesnotexist")
    assert missing["Code"] == "ResourceNotFoundException"


def test_the_upload_url_lasts_fifteen_minutes_and_an_unstarted_job_a_day(cognito):
    pool_id, _ = import_pool(cognito)
    cognito.freeze()
    job = new_job(cognito, pool_id)
    cognito.advance(900)
    late = upload(job, csv_for(cognito, pool_id, []))
    assert late.status_code == 403 and "Request has expired" in late.text
    cognito.advance(86_400)
    expired = cognito.idp.describe_user_import_job(UserPoolId=pool_id, JobId=job["JobId"])["UserImportJob"]
    assert expired["Status"] == "Expired" and expired["CompletionMessage"] == "The user import job has expired."
