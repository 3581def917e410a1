"""The inbox page in a real headless Chromium against a running binary."""

import pytest
import requests
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait


def test_a_new_message_appears_live_with_its_code(fauxth, browser):
    browser.get(f"{fauxth.url}/")
    wait = WebDriverWait(browser, 15)
    wait.until(EC.presence_of_element_located((By.ID, "message-list")))
    requests.post(f"{fauxth.url}/auth/v1/signup", json={"email": "browser@example.com", "password": "secret123"})
    item = wait.until(EC.element_to_be_clickable((By.CSS_SELECTOR, "#message-list li.message")))
    assert "browser@example.com" in item.text
    item.click()
    code = fauxth.control("GET", "/messages", params={"to": "browser@example.com"}).json()["messages"][0]["codes"][0]
    chip = wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, "#message-detail .code-chip")))
    assert chip.text == code
    links = browser.find_elements(By.CSS_SELECTOR, "#message-detail .link-row a")
    assert any("/auth/v1/verify?token=" in link.get_attribute("href") for link in links)


@pytest.fixture
def callback_server():
    """A loopback HTTP server standing in for a web app's OAuth callback: records the query it is opened with."""
    import http.server
    import threading
    import urllib.parse

    seen = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            seen.append(urllib.parse.parse_qs(urllib.parse.urlsplit(self.path).query))
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.end_headers()
            self.wfile.write(b"signed in")

        def log_message(self, *args):
            pass

    server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/callback", seen
    server.shutdown()


def test_the_cognito_hosted_ui_signs_up_confirms_and_returns_to_the_app(fauxth, browser, callback_server):
    """Cognito's hosted UI in a real browser: its form posts end in a redirect to the app's own origin, which the
    page's Content-Security-Policy must allow."""
    import boto3
    import urllib.parse

    callback, seen = callback_server
    idp = boto3.client("cognito-idp", endpoint_url=fauxth.url, region_name="us-east-1", aws_access_key_id="x", aws_secret_access_key="x")
    client_id = idp.create_user_pool_client(UserPoolId="us-east-1_fauxth001", ClientName="browser-app", CallbackURLs=[callback],
                                            AllowedOAuthFlows=["code"], AllowedOAuthScopes=["openid", "email"],
                                            AllowedOAuthFlowsUserPoolClient=True, SupportedIdentityProviders=["COGNITO"])["UserPoolClient"]["ClientId"]
    email = "hosted.browser@example.com"
    query = urllib.parse.urlencode({"response_type": "code", "client_id": client_id, "redirect_uri": callback, "state": "xyz",
                                    "scope": "openid email"})
    browser.get(f"{fauxth.url}/oauth2/authorize?{query}")
    wait = WebDriverWait(browser, 15)
    wait.until(EC.element_to_be_clickable((By.LINK_TEXT, "Sign up"))).click()
    wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, "form[action='/signup']")))
    browser.find_element(By.ID, "username").send_keys(email)
    browser.find_element(By.ID, "password").send_keys("secret123")
    browser.find_element(By.CSS_SELECTOR, "form[action='/signup'] button").click()
    wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, "form[action='/confirm'] #code")))
    assert "h***@e***" in browser.page_source
    code = fauxth.wait_message(email, purpose="verify_email")["codes"][0]
    browser.find_element(By.ID, "code").send_keys(code)
    browser.find_element(By.CSS_SELECTOR, "form[action='/confirm'] button").click()
    wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, "form[action='/login'] #password")))
    assert "Your account is confirmed" in browser.page_source
    assert browser.find_element(By.ID, "username").get_attribute("value") == email
    browser.find_element(By.ID, "password").send_keys("secret123")
    browser.find_element(By.CSS_SELECTOR, "form[action='/login'] button").click()
    wait.until(lambda driver: seen)
    assert seen[0]["state"] == ["xyz"]
    exchanged = requests.post(f"{fauxth.url}/oauth2/token", timeout=30, data={
        "grant_type": "authorization_code", "client_id": client_id, "code": seen[0]["code"][0], "redirect_uri": callback})
    assert exchanged.status_code == 200, exchanged.text
    assert "id_token" in exchanged.json()


def test_firebase_web_redirect_sign_in_leaves_the_event_in_session_storage(fauxth, browser):
    """The /emulator/auth/handler flow as the JS SDK's signInWithRedirect opens it: pick an account at the fake Google,
    and the event the SDK reads is in session storage on the emulator's origin when the app page loads again."""
    import json
    import urllib.parse
    back_to_app = f"{fauxth.url}/_emu/v1/health"
    params = {"apiKey": "fake-api-key", "appName": "[DEFAULT]", "authType": "signInViaRedirect", "providerId": "google.com",
              "redirectUrl": back_to_app, "eventId": "ev-browser"}
    browser.get(f"{fauxth.url}/emulator/auth/handler?{urllib.parse.urlencode(params)}")
    wait = WebDriverWait(browser, 15)
    wait.until(EC.element_to_be_clickable((By.CSS_SELECTOR, "button[name=account][value='100000000000000000001']"))).click()
    wait.until(EC.url_to_be(back_to_app))
    stored = browser.execute_script("return sessionStorage.getItem('firebase:redirectEvent:fake-api-key:[DEFAULT]')")
    event = json.loads(stored)
    assert event["type"] == "signInViaRedirect" and event["eventId"] == "ev-browser" and event["error"] is None
    signed_in = requests.post(f"{fauxth.url}/identitytoolkit.googleapis.com/v1/accounts:signInWithIdp", params={"key": "fake-api-key"},
                              json={"requestUri": event["urlResponse"], "returnSecureToken": True}, timeout=30)
    assert signed_in.status_code == 200 and signed_in.json()["email"] == "alice@example.com"


def test_the_deep_link_interstitial_shows_the_link_an_android_app_would_get(fauxth, browser):
    import urllib.parse
    params = {"apiKey": "fake-api-key", "authType": "signInViaRedirect", "providerId": "google.com", "apn": "com.example.app",
              "fauxth_interstitial": "1"}
    browser.get(f"{fauxth.url}/emulator/auth/handler?{urllib.parse.urlencode(params)}")
    wait = WebDriverWait(browser, 15)
    wait.until(EC.element_to_be_clickable((By.CSS_SELECTOR, "button[name=account][value='100000000000000000001']"))).click()
    shown = wait.until(EC.presence_of_element_located((By.ID, "url"))).get_attribute("value")
    assert shown.startswith("intent://firebase.auth/#Intent;scheme=genericidp;package=com.example.app;")
    assert browser.find_element(By.ID, "android").get_attribute("value").startswith(
        "adb shell \"am start -W -a android.intent.action.VIEW -d 'intent://")
    captured = fauxth.control("GET", "/deeplinks", params={"scheme": "intent"}).json()["deeplinks"]
    assert captured[0]["url"] == shown
