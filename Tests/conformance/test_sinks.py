"""The app's own messages: Python's smtplib sends plain, HTML, multipart and non-ASCII mail to the SMTP sink, and the
official twilio client sends a text to the Twilio-shaped endpoint; each lands in the inbox with its codes and links."""
import smtplib
from email.message import EmailMessage
from email.mime.multipart import MIMEMultipart
from email.mime.text import MIMEText

import pytest
import requests


@pytest.fixture(scope="module")
def sink():
    from conftest import Fauxth
    fauxth = Fauxth("--smtp-port", "0", "--deterministic", "3")
    host, port = fauxth.control("GET", "/info").json()["smtp"].rsplit(":", 1)
    fauxth.smtp = (host, int(port))
    yield fauxth
    fauxth.stop()


def send(sink, message, login=False):
    with smtplib.SMTP(*sink.smtp, timeout=10) as smtp:
        if login:
            smtp.login("app-user", "app-password")
        smtp.send_message(message)


def test_a_plain_message_lands_with_its_code_and_link(sink):
    message = EmailMessage()
    message["From"], message["To"], message["Subject"] = "app@example.com", "plain@example.com", "Your sign-in code"
    message.set_content("Your code is 482913.\nOr open myapp://auth/callback?token=abc\n")
    send(sink, message, login=True)
    landed = sink.wait_message("plain@example.com", timeout=5)
    assert (landed["tenant"], landed["purpose"], landed["channel"], landed["status"]) == ("app", "app", "email", "sent")
    assert landed["subject"] == "Your sign-in code" and landed["from"] == "app@example.com"
    assert landed["codes"] == ["482913"] and "myapp://auth/callback?token=abc" in landed["links"]


def test_an_html_only_message_still_has_its_code(sink):
    message = MIMEText("<p>Reset your password: <a href=\"https://app.example.com/reset?t=x1\">reset</a></p><p>Code <b>771204</b></p>",
                       "html", "utf-8")
    message["From"], message["To"], message["Subject"] = "app@example.com", "html@example.com", "Reset"
    send(sink, message)
    landed = sink.wait_message("html@example.com", timeout=5)
    assert landed["html"].startswith("<p>Reset your password")
    assert landed["codes"] == ["771204"] and "https://app.example.com/reset?t=x1" in landed["links"]


def test_a_multipart_non_ascii_message_to_two_people_lands_twice_decoded(sink):
    message = MIMEMultipart("alternative")
    message["From"] = "Équipe <team@example.com>"
    message["To"] = "anna@example.com, bo@example.com"
    message["Subject"] = "Votre code – 123456 ✓"
    message.attach(MIMEText("Bonjour Anaïs, votre code : 123456", "plain", "utf-8"))
    message.attach(MIMEText("<p>Bonjour Anaïs, votre code&nbsp;: <b>123456</b></p>", "html", "utf-8"))
    send(sink, message)
    for to in ("anna@example.com", "bo@example.com"):
        landed = sink.wait_message(to, timeout=5)
        assert landed["subject"] == "Votre code – 123456 ✓"
        assert landed["from"] == "Équipe <team@example.com>"
        assert landed["text"] == "Bonjour Anaïs, votre code : 123456"
        assert "Anaïs" in landed["html"] and landed["codes"] == ["123456"]


def test_bad_commands_get_smtp_errors_and_the_connection_goes_on(sink):
    with smtplib.SMTP(*sink.smtp, timeout=10) as smtp:
        assert smtp.docmd("RCPT", "TO:<x@example.com>")[0] == 503
        assert smtp.docmd("BOGUS")[0] == 500
        assert smtp.noop()[0] == 250


def test_the_twilio_client_sends_a_text_that_lands_in_the_inbox(sink):
    from twilio.rest import Client
    client = Client("AC00000000000000000000000000000001", "auth-token")
    client.api.base_url = sink.url
    sent = client.messages.create(to="+15555550177", from_="+15555550100", body="Your Acme code is 604122")
    assert sent.sid.startswith("SM") and sent.status == "queued" and sent.to == "+15555550177"
    landed = sink.wait_message("+15555550177", timeout=5)
    assert (landed["channel"], landed["tenant"], landed["codes"]) == ("sms", "app", ["604122"])
    from twilio.base.exceptions import TwilioRestException
    with pytest.raises(TwilioRestException) as raised:
        client.messages.create(to="not-a-number", from_="+15555550100", body="x")
    assert raised.value.code == 21211 and raised.value.status == 400
    unauthenticated = requests.post(f"{sink.url}/2010-04-01/Accounts/AC1/Messages.json", data={"To": "+15555550177", "Body": "x"}, timeout=10)
    assert unauthenticated.status_code == 401 and unauthenticated.json()["code"] == 20003
