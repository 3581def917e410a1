"""A redirect to a URL outside the allow list never happens: Supabase's `redirect_to` (on /signup, /otp, /recover,
/authorize and in the email links /verify follows) falls back to the site URL, Cognito's `redirect_uri` and
`logout_uri` outside the client's URLs get an error page and no 302 there, and Firebase's `continueUrl` must be on
an authorized domain, both when a link is asked for and when a link with another `continueUrl` is followed. The
tricky spellings (userinfo, look-alike hosts, backslashes, scheme-relative, percent-encoding, other ports and
schemes) are tried on each."""
import html
import urllib.parse

import pytest
import requests

from conftest import COGNITO_CLIENT, COGNITO_PASSWORD, FIREBASE_API_KEY, Forms
from test_tampering import ANON_KEY

pytestmark = pytest.mark.reliability

SITE_URL = "http://127.0.0.1:3000"  # the seed project's GOTRUE_SITE_URL; its allow list: https://127.0.0.1:3000, myapp://**
EVIL = [
    "https://evil.example",
    "https://evil.example/callback",
    "http://evil.example:3000/",
    "https://127.0.0.1:3000.evil.example/",
    "https://127.0.0.1.evil.example/",
    "https://127.0.0.1:3000@evil.example/",
    "https://localhost@evil.example/",
    "https://user:pass@evil.example/",
    "https://evil.example\\@127.0.0.1:3000/",
    "https://127.0.0.1:3000\\@evil.example/",
    "https://evil.example#@127.0.0.1:3000",
    "https://evil.example?@127.0.0.1:3000",
    "//evil.example",
    "/\\evil.example",
    "\\\\evil.example",
    "https:evil.example",
    "https:/evil.example",
    "https://evil.example%2f127.0.0.1:3000",
    "https://127.0.0.1%3A3000@evil.example",
    "https%3A%2F%2Fevil.example",
    "HTTPS://EVIL.EXAMPLE/",
    " https://evil.example",
    "https://evil.example\t/",
    "javascript:alert(document.domain)//127.0.0.1:3000",
    "data:text/html,<script>alert(1)</script>",
    "myappx://callback",
    "https://evil.example/?next=https://127.0.0.1:3000",
]
# Firebase takes continue URLs on app schemes (the app opens them), as the README says; every web one must be authorized.
FIREBASE_EVIL = [url for url in EVIL if url != "myappx://callback"]


def stays_home(url, allowed_prefixes=(SITE_URL,)):
    """Whether `url` (a Location, a link's redirect) is the site URL or on it: nothing a browser could take elsewhere."""
    for prefix in allowed_prefixes:
        if url == prefix or (url.startswith(prefix) and url[len(prefix)] in "/?#"):
            rest = url[len(prefix):]
            return "\\" not in rest.split("?")[0].split("#")[0] and "@" not in rest.split("/")[0]
    return False


# --- Supabase ----------------------------------------------------------------------------------------------------

def gotrue(fauxth, path, redirect_to, body):
    return requests.post(f"{fauxth.url}/auth/v1/{path}", params={"redirect_to": redirect_to}, json=body, timeout=30,
                         headers={"apikey": ANON_KEY, "X-Supabase-Api-Version": "2024-01-01"})


def newest_link(fauxth, email, purpose):
    message = fauxth.wait_message(email, purpose=purpose)
    [link] = [l for l in message["links"] if "/verify?" in l]
    return link


def test_supabase_email_links_never_carry_an_outside_redirect(fauxth, figures):
    flows = [("otp", "magic_link", lambda: {"email": "alice@example.com"}),
             ("recover", "reset_password", lambda: {"email": "alice@example.com"}),
             ("signup", "confirm_signup", None)]
    tried = 0
    for index, evil in enumerate(EVIL):
        for path, purpose, body in flows:
            email = f"redirect{index}@example.com" if path == "signup" else "alice@example.com"
            payload = body() if body else {"email": email, "password": "secret123"}
            fauxth.control("POST", "/clock/advance", json={"seconds": 2})  # past GOTRUE_SMTP_MAX_FREQUENCY
            response = gotrue(fauxth, path, evil, payload)
            assert response.status_code == 200, (path, evil, response.text)
            link = newest_link(fauxth, email, purpose if path != "signup" else None)
            redirect = urllib.parse.parse_qs(urllib.parse.urlsplit(link).query).get("redirect_to", [SITE_URL])[0]
            assert stays_home(redirect), (path, evil, link)
            location = requests.get(link, allow_redirects=False, timeout=30).headers.get("Location", "")
            assert stays_home(location), (path, evil, location)
            tried += 1
    figures("redirects refused", tried)


def test_supabase_verify_ignores_an_outside_redirect_put_into_a_genuine_link(fauxth, figures):
    for evil in EVIL:
        fauxth.control("POST", "/clock/advance", json={"seconds": 2})
        assert gotrue(fauxth, "otp", f"{SITE_URL}/welcome", {"email": "alice@example.com"}).status_code == 200
        link = newest_link(fauxth, "alice@example.com", "magic_link")
        parts = urllib.parse.urlsplit(link)
        params = dict(urllib.parse.parse_qsl(parts.query))
        assert params["redirect_to"] == f"{SITE_URL}/welcome"
        params["redirect_to"] = evil
        forged = urllib.parse.urlunsplit(parts._replace(query=urllib.parse.urlencode(params)))
        location = requests.get(forged, allow_redirects=False, timeout=30).headers.get("Location", "")
        assert stays_home(location), (evil, location)
    figures("redirects refused", len(EVIL))


def test_supabase_keeps_allowed_redirects(fauxth):
    for allowed in (f"{SITE_URL}/welcome", "https://127.0.0.1:3000", "myapp://auth/callback", "http://localhost:5173/cb"):
        fauxth.control("POST", "/clock/advance", json={"seconds": 2})
        assert gotrue(fauxth, "otp", allowed, {"email": "alice@example.com"}).status_code == 200
        link = newest_link(fauxth, "alice@example.com", "magic_link")
        assert urllib.parse.parse_qs(urllib.parse.urlsplit(link).query)["redirect_to"] == [allowed]


# GoTrue's IsRedirectURLValid (utilities/request.go at supabase/auth bc32168): the site's scheme and host, its port but on
# loopback hosts; then an IP address only when it is a loopback one, no decimal address, no odd host name; then the list.
GOTRUE_RULE_CASES = [
    ("http://localhost:3001/cb", True), ("https://localhost:3000/x", False), ("HTTP://LOCALHOST:3000/x", False),
    ("http://127.0.0.1:5555/cb", True), ("http://[::1]:4000/cb", True), ("http://192.168.1.5/cb", False),
    ("http://2130706433/cb", False), ("https://foo_bar.example.com/cb", False), ("https://a.example.com/cb", True),
    ("https://a.b.example.com/cb", False), ("https://app.example.org/cb", True), ("https://app.example.org/cb?x=1", False),
]


def test_supabase_redirects_follow_gotrues_rule(supabase_project, figures):
    fauxth = supabase_project({"GOTRUE_SITE_URL": "http://localhost:3000", "GOTRUE_SMTP_MAX_FREQUENCY": "1s",
                               "GOTRUE_URI_ALLOW_LIST": "http://192.168.1.5/**,http://2130706433/**,https://*.example.com/**,"
                                                        "https://foo_bar.example.com/**,https://app.example.org/cb"},
                              [{"email": "alice@example.com", "password": "password123", "email_verified": True}])
    for url, allowed in GOTRUE_RULE_CASES:
        fauxth.control("POST", "/clock/advance", json={"seconds": 2})
        assert gotrue(fauxth, "otp", url, {"email": "alice@example.com"}).status_code == 200
        link = newest_link(fauxth, "alice@example.com", "magic_link")
        assert urllib.parse.parse_qs(urllib.parse.urlsplit(link).query)["redirect_to"] == [url if allowed else "http://localhost:3000"], url
    # With no redirect_to, a valid Referer (a browser page's origin) is where the link goes, as GoTrue's GetReferrer has it.
    fauxth.control("POST", "/clock/advance", json={"seconds": 2})
    assert requests.post(f"{fauxth.url}/auth/v1/otp", json={"email": "alice@example.com"}, timeout=30,
                         headers={"apikey": ANON_KEY, "Referer": "http://localhost:5173/"}).status_code == 200
    link = newest_link(fauxth, "alice@example.com", "magic_link")
    assert urllib.parse.parse_qs(urllib.parse.urlsplit(link).query)["redirect_to"] == ["http://localhost:5173/"]
    figures("redirects refused", sum(not allowed for _, allowed in GOTRUE_RULE_CASES))


def test_supabase_authorize_never_sends_the_app_outside_the_allow_list(fauxth, figures):
    for evil in EVIL:
        answer = requests.get(f"{fauxth.url}/auth/v1/authorize", params={"provider": "google", "redirect_to": evil},
                              allow_redirects=False, timeout=30)
        assert answer.status_code == 302, answer.text
        state = urllib.parse.parse_qs(urllib.parse.urlsplit(answer.headers["Location"]).query)["state"][0]
        # The provider answers (here: the person cancelled); /callback sends the browser to the flow's redirect.
        back = requests.get(f"{fauxth.url}/auth/v1/callback", params={"error": "access_denied", "state": state},
                            allow_redirects=False, timeout=30)
        assert back.status_code in (302, 303), back.text
        assert stays_home(back.headers["Location"]), (evil, back.headers["Location"])
    figures("redirects refused", len(EVIL))


# --- Cognito -----------------------------------------------------------------------------------------------------

COGNITO_CALLBACKS = ("http://localhost:3000/callback", "myapp://callback")
COGNITO_LOGOUTS = ("http://localhost:3000/", "myapp://signout")
COGNITO_EVIL = EVIL + ["http://localhost:3000/callback/../evil", "http://localhost:3000/callbackx", "http://localhost:3000/callback?x=1",
                       "http://localhost:3001/callback", "https://localhost:3000/callback", "HTTP://LOCALHOST:3000/callback",
                       "http://localhost:3000/callback#x", "myapp://callback.evil.example", "myapp://callback@evil.example"]


def refused_page(response, what):
    """A refusal shown to the person: a page, or (Cognito's redirect_mismatch) a redirect to the domain's own /error page."""
    if response.status_code == 302:
        location = urllib.parse.urlsplit(response.headers["Location"])
        assert not location.netloc and location.path == "/error", (what, response.headers["Location"])
        response = requests.get(urllib.parse.urljoin(response.url, response.headers["Location"]), allow_redirects=False, timeout=30)
    assert response.status_code in (200, 400), (what, response.status_code, response.text[:200])
    assert "Location" not in response.headers, (what, response.headers.get("Location"))
    assert "html" in response.headers.get("Content-Type", ""), what


def test_cognito_authorize_and_login_refuse_an_outside_redirect_uri(cognito, figures):
    base = {"response_type": "code", "client_id": COGNITO_CLIENT, "scope": "openid email", "state": "s"}
    tried = 0
    for evil in COGNITO_EVIL:
        for path in ("oauth2/authorize", "login"):
            response = requests.get(f"{cognito.url}/{path}", params={**base, "redirect_uri": evil}, allow_redirects=False, timeout=30)
            refused_page(response, (path, evil))
            tried += 1
        # Even with the right password posted, the login form never sends anyone to a URL the client does not list.
        browser = requests.Session()
        page = browser.get(f"{cognito.url}/login", params={**base, "redirect_uri": COGNITO_CALLBACKS[0]}, timeout=30)
        [form] = [f for f in Forms(page.text).forms if "password" in f["fields"]]
        fields = {**form["fields"], "username": "alice@example.com", "password": COGNITO_PASSWORD, "redirect_uri": evil}
        action = urllib.parse.urljoin(page.url, form["action"] or page.url)
        action = action.replace(urllib.parse.quote(COGNITO_CALLBACKS[0], safe=""), urllib.parse.quote(evil, safe=""))
        posted = browser.post(action, data=fields, allow_redirects=False, timeout=30)
        location = posted.headers.get("Location", "")
        assert not location or location.startswith(COGNITO_CALLBACKS) or location.startswith("/"), (evil, location)
        if location.startswith("/"):
            assert urllib.parse.urlsplit(location).path in ("/login", "/oauth2/authorize", "/error"), location
        tried += 1
    figures("redirects refused", tried)


def test_cognito_logout_refuses_an_outside_logout_uri(cognito, figures):
    for evil in COGNITO_EVIL + ["http://localhost:3000", "http://localhost:3000/x"]:
        response = requests.get(f"{cognito.url}/logout", params={"client_id": COGNITO_CLIENT, "logout_uri": evil},
                                allow_redirects=False, timeout=30)
        refused_page(response, evil)
        # Signing in again after logout goes through /login, which checks redirect_uri itself.
        again = requests.get(f"{cognito.url}/logout", allow_redirects=True, timeout=30, params={
            "client_id": COGNITO_CLIENT, "redirect_uri": evil, "response_type": "code"})
        assert all(not r.headers.get("Location", "/").startswith(evil) or not evil for r in again.history), evil
        assert urllib.parse.urlsplit(again.url).netloc == urllib.parse.urlsplit(cognito.url).netloc, again.url
    for allowed in COGNITO_LOGOUTS:
        response = requests.get(f"{cognito.url}/logout", params={"client_id": COGNITO_CLIENT, "logout_uri": allowed},
                                allow_redirects=False, timeout=30)
        assert response.status_code == 302 and response.headers["Location"] == allowed
    figures("redirects refused", len(COGNITO_EVIL) * 2)


# --- Firebase ----------------------------------------------------------------------------------------------------

def test_firebase_continue_urls_must_be_on_an_authorized_domain(firebase, figures):
    for evil in FIREBASE_EVIL:
        response = firebase.call("accounts:sendOobCode", {"requestType": "PASSWORD_RESET", "email": "alice@example.com",
                                                          "continueUrl": evil})
        assert response.status_code == 400, (evil, response.text)
        assert response.json()["error"]["message"].split(" :")[0] in ("UNAUTHORIZED_DOMAIN", "INVALID_CONTINUE_URI"), (evil, response.text)
    ok = firebase.call("accounts:sendOobCode", {"requestType": "PASSWORD_RESET", "email": "alice@example.com",
                                                "continueUrl": "http://localhost:3000/done"})
    assert ok.status_code == 200, ok.text
    figures("redirects refused", len(FIREBASE_EVIL))


def test_firebase_action_links_never_continue_outside_the_authorized_domains(firebase, figures):
    """The action page follows `continueUrl` from the link itself, so a link whose `continueUrl` was swapped for
    another site must not take the person there."""
    tried = 0
    for evil in FIREBASE_EVIL:
        for request_type, mode in (("VERIFY_EMAIL", "verifyEmail"), ("EMAIL_SIGNIN", "signIn")):
            body = {"requestType": request_type, "email": "bob@example.com", "continueUrl": "http://localhost:3000/done",
                    "returnOobLink": True}
            if request_type == "EMAIL_SIGNIN":
                body["canHandleCodeInApp"] = True
            response = firebase.admin("POST", "/accounts:sendOobCode", json=body)
            assert response.status_code == 200, response.text
            link = response.json()["oobLink"]
            parts = urllib.parse.urlsplit(link)
            params = dict(urllib.parse.parse_qsl(parts.query))
            assert params["mode"] == mode
            params["continueUrl"] = evil
            forged = urllib.parse.urlunsplit(parts._replace(query=urllib.parse.urlencode(params)))
            followed = requests.get(forged, allow_redirects=False, timeout=30)
            location = followed.headers.get("Location", "")
            assert not location or stays_home(location, ("http://localhost:3000",)), (mode, evil, location)
            assert f'href="{html.escape(evil, quote=True)}"' not in followed.text, (mode, evil)
            tried += 1
    figures("redirects refused", tried)
