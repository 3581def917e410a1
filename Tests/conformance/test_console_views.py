"""The console's views in a real headless Chromium against a running binary: each flow a tester clicks through, checked
against the emulator's state and the official SDKs, with a screenshot of every view in light and dark saved as an
artifact (.build/console-screenshots/)."""
import json

import pytest
import requests
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import Select, WebDriverWait
from supabase import create_client
from supabase_auth.errors import AuthApiError, AuthError

from conftest import ROOT, jwt_claims, start_chromium

ANON_KEY = (
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJpc3MiOiJzdXBhYmFzZS1kZW1vIiwicm9sZSI6ImFub24iLCJleHAiOjE5ODM4MTI5OTZ9."
    "CRXP1A7WOeoJeXxjNni43kdQwgnWNReilDMblYTn_I0"
)
ALICE = "00000000-0000-4000-8000-00000000a11c"
SCREENSHOTS = ROOT / ".build" / "console-screenshots"
VIEWS = ["inbox", "deeplinks", "users", "sessions", "events", "faults", "clock", "connect"]


@pytest.fixture
def browser(chromium_temp):
    """Chromium at a desktop size, failing the test if the console logged an error."""
    driver = start_chromium(chromium_temp, "--window-size=1280,860", capabilities={"goog:loggingPrefs": {"browser": "ALL"}})
    yield driver
    errors = [entry for entry in driver.get_log("browser") if entry["level"] == "SEVERE" and "favicon" not in entry["message"]]
    driver.quit()
    assert not errors, f"the console logged errors: {errors}"


def open_view(browser, fauxth, view):
    browser.get(f"{fauxth.url}/_emu/#{view}")
    section = WebDriverWait(browser, 15).until(EC.visibility_of_element_located((By.ID, f"view-{view.split('/')[0]}")))
    return section


def wait(browser, seconds=15):
    return WebDriverWait(browser, seconds)


def sign_up(fauxth, email):
    return create_client(fauxth.url, ANON_KEY).auth.sign_up({"email": email, "password": "secret123"})


def test_a_sign_up_appears_live_and_its_code_chip_copies_the_code(fauxth, browser):
    open_view(browser, fauxth, "inbox")
    browser.execute_cdp_cmd("Browser.grantPermissions", {"origin": fauxth.url, "permissions": ["clipboardReadWrite", "clipboardSanitizedWrite"]})
    sign_up(fauxth, "live@example.com")
    item = wait(browser).until(EC.element_to_be_clickable((By.CSS_SELECTOR, "#message-list li.message")))
    assert "live@example.com" in item.text
    assert browser.find_element(By.ID, "unread-count").text == "1" and browser.title.startswith("(1)")
    item.click()
    code = fauxth.control("GET", "/messages", params={"to": "live@example.com"}).json()["messages"][0]["codes"][0]
    chip = wait(browser).until(EC.visibility_of_element_located((By.CSS_SELECTOR, "#message-detail .code-chip")))
    assert chip.text == code
    chip.find_element(By.XPATH, "following-sibling::button").click()
    copied = browser.execute_async_script("navigator.clipboard.readText().then(arguments[0], () => arguments[0](null))")
    assert copied == code


def test_following_the_verification_link_verifies_the_user(fauxth, browser):
    sign_up(fauxth, "follow@example.com")
    [user] = fauxth.control("GET", "/tenants/default/users", params={"email": "follow@example.com"}).json()["users"]
    assert not user["email_verified"]
    open_view(browser, fauxth, "inbox")
    wait(browser).until(EC.element_to_be_clickable((By.CSS_SELECTOR, "#message-list li.message"))).click()
    follow = wait(browser).until(EC.element_to_be_clickable((By.CSS_SELECTOR, "#message-detail a.follow")))
    assert "/auth/v1/verify?token=" in follow.get_attribute("href")
    follow.click()
    wait(browser).until(lambda _: fauxth.control("GET", f"/tenants/default/users/{user['id']}").json()["email_verified"])


def test_the_deep_link_view_shows_a_captured_redirect_with_its_parameters(fauxth, browser):
    auth = create_client(fauxth.url, ANON_KEY).auth
    auth.sign_up({"email": "deep@example.com", "password": "secret123", "options": {"email_redirect_to": "myapp://auth/callback"}})
    link = next(l for l in fauxth.wait_message("deep@example.com")["links"] if "/auth/v1/verify" in l)
    requests.get(link, allow_redirects=False, timeout=10)
    open_view(browser, fauxth, "deeplinks")
    item = wait(browser).until(EC.element_to_be_clickable((By.CSS_SELECTOR, "#deeplink-list li.deeplink")))
    assert "myapp" in item.text
    item.click()
    detail = wait(browser).until(EC.visibility_of_element_located((By.ID, "deeplink-detail")))
    params = [row.text for row in detail.find_elements(By.CSS_SELECTOR, "tr.param-row")]
    assert any("access_token" in p for p in params) or any("code" in p for p in params), params
    commands = [c.text for c in detail.find_elements(By.CSS_SELECTOR, "code.sim-command")]
    assert any(c.startswith("xcrun simctl openurl booted 'myapp://auth/callback") for c in commands)
    # The device's shell parses the command again, so the URL (with its `&`s) is quoted for it inside double quotes.
    assert any(c.startswith("adb shell \"am start -W -a android.intent.action.VIEW -d 'myapp://auth/callback") for c in commands)


def test_advancing_the_clock_from_the_page_expires_a_code(fauxth, browser):
    fauxth.control("POST", "/clock/freeze")
    sign_up(fauxth, "late@example.com")
    code = fauxth.wait_message("late@example.com")["codes"][0]
    open_view(browser, fauxth, "clock")
    before = fauxth.control("GET", "/clock").json()["now"]
    wait(browser).until(EC.element_to_be_clickable((By.CSS_SELECTOR, 'button[data-advance="86400"]'))).click()
    wait(browser).until(lambda _: fauxth.control("GET", "/clock").json()["now"] != before)
    wait(browser).until(lambda b: b.find_element(By.ID, "clock-now").text[:10] != before[:10])
    with pytest.raises(AuthApiError) as raised:
        create_client(fauxth.url, ANON_KEY).auth.verify_otp({"email": "late@example.com", "token": code, "type": "signup"})
    assert raised.value.code == "otp_expired"


def test_a_fault_added_from_a_scenario_fires(fauxth, browser):
    open_view(browser, fauxth, "faults")
    select = wait(browser).until(EC.presence_of_element_located((By.ID, "scenario-select")))
    wait(browser).until(lambda _: len(Select(select).options) > 1)
    Select(select).select_by_value("first-two-calls-fail")
    browser.find_element(By.ID, "add-scenario").click()
    wait(browser).until(lambda b: b.find_elements(By.CSS_SELECTOR, "#fault-list li.fault"))
    with pytest.raises(AuthError):
        create_client(fauxth.url, ANON_KEY).auth.sign_in_with_password({"email": "alice@example.com", "password": "password123"})
    firing = wait(browser).until(EC.visibility_of_element_located((By.CSS_SELECTOR, "#fault-journal li.firing")))
    assert "supabase" in firing.text
    # Switched off from the page, the rule lets the next sign-in through.
    toggle = browser.find_element(By.CSS_SELECTOR, "#fault-list li.fault input.toggle")
    toggle.click()
    wait(browser).until(lambda _: not any(r["enabled"] for r in fauxth.control("GET", "/faults").json()["rules"] if r["id"].endswith("supabase")))
    assert create_client(fauxth.url, ANON_KEY).auth.sign_in_with_password({"email": "alice@example.com", "password": "password123"}).session


def test_a_user_disabled_from_the_page_gets_the_dialects_disabled_error(fauxth, browser):
    open_view(browser, fauxth, f"users/default/{ALICE}")
    disable = wait(browser).until(EC.element_to_be_clickable((By.CSS_SELECTOR, '#user-detail button[data-action="disable"]')))
    disable.click()
    wait(browser).until(lambda _: fauxth.control("GET", f"/tenants/default/users/{ALICE}").json()["disabled"])
    wait(browser).until(EC.element_to_be_clickable((By.CSS_SELECTOR, '#user-detail button[data-action="enable"]')))
    with pytest.raises(AuthApiError) as raised:
        create_client(fauxth.url, ANON_KEY).auth.sign_in_with_password({"email": "alice@example.com", "password": "password123"})
    assert raised.value.code == "user_banned"


def test_every_view_renders_in_light_and_dark_and_at_phone_width(fauxth, browser):
    # Something in each view: a message, a deep link, a session, a fault rule and its firing, a snapshot.
    auth = create_client(fauxth.url, ANON_KEY).auth
    auth.sign_up({"email": "shots@example.com", "password": "secret123", "options": {"email_redirect_to": "myapp://auth/callback"}})
    link = next(l for l in fauxth.wait_message("shots@example.com")["links"] if "/auth/v1/verify" in l)
    requests.get(link, allow_redirects=False, timeout=10)
    auth.sign_in_with_password({"email": "alice@example.com", "password": "password123"})
    fauxth.control("POST", "/faults", json={"scenario": "flaky-network"})
    fauxth.control("POST", "/snapshots", json={"name": "clean"})
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    for scheme in ("light", "dark"):
        browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": scheme}]})
        for width in (1280, 375):
            browser.set_window_size(width, 860)
            for view in VIEWS:
                section = open_view(browser, fauxth, view)
                assert section.is_displayed()
                others = [v for v in VIEWS if v != view]
                assert not any(browser.find_element(By.ID, f"view-{v}").is_displayed() for v in others)
                current = browser.find_element(By.CSS_SELECTOR, f'#nav a[data-view="{view}"]')
                assert current.get_attribute("aria-current") == "page"
                # Nothing wider than the window at phone width.
                overflow = browser.execute_script("return document.documentElement.scrollWidth - window.innerWidth")
                assert overflow <= 1, f"{view} overflows by {overflow}px at {width}px"
                browser.save_screenshot(str(SCREENSHOTS / f"{view}-{scheme}-{width}.png"))
    background = {}
    for scheme in ("light", "dark"):
        browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": scheme}]})
        background[scheme] = browser.execute_script("return getComputedStyle(document.body).backgroundColor")
    assert background["light"] != background["dark"]


def test_a_passkey_added_from_the_page_is_the_users(fauxth, browser):
    from test_supabase_admin import SERVICE_ROLE_KEY
    open_view(browser, fauxth, f"users/default/{ALICE}")
    wait(browser).until(EC.element_to_be_clickable((By.CSS_SELECTOR, '#user-detail button[data-action="add-passkey"]'))).click()
    wait(browser).until(EC.text_to_be_present_in_element((By.CSS_SELECTOR, "#user-detail .action-status"), "Passkey added"))
    # GoTrue's admin route lists it as the user's; the virtual authenticator holds its private key.
    listed = requests.get(f"{fauxth.url}/auth/v1/admin/users/{ALICE}/passkeys", timeout=30,
                          headers={"apikey": SERVICE_ROLE_KEY, "Authorization": f"Bearer {SERVICE_ROLE_KEY}"})
    assert listed.status_code == 200 and len(listed.json()) == 1, listed.text
    assert len(fauxth.control("GET", "/webauthn/credentials", params={"tenant": "default"}).json()["credentials"]) == 1


def test_a_long_link_code_is_a_short_chip_that_copies_whole_and_never_widens_the_list(fauxth, browser):
    # Firebase's password reset carries a 50-odd-character oobCode.
    fauxth.control("POST", "/tenants/demo-fauxth/users", json={"email": "oob@example.com", "password": "secret123"})
    sent = requests.post(f"{fauxth.url}/identitytoolkit.googleapis.com/v1/accounts:sendOobCode", params={"key": "fake-api-key"},
                         json={"requestType": "PASSWORD_RESET", "email": "oob@example.com"}, timeout=30)
    assert sent.status_code == 200, sent.text
    code = fauxth.wait_message("oob@example.com")["codes"][0]
    assert len(code) > 40
    browser.set_window_size(375, 800)
    open_view(browser, fauxth, "inbox")
    browser.execute_cdp_cmd("Browser.grantPermissions", {"origin": fauxth.url, "permissions": ["clipboardReadWrite", "clipboardSanitizedWrite"]})
    item = wait(browser).until(EC.presence_of_element_located((By.CSS_SELECTOR, "#message-list li.message")))
    mini = item.find_element(By.CSS_SELECTOR, ".mini-code")
    assert mini.text == f"{code[:6]}…{code[-4:]}" and mini.get_attribute("title") == code
    assert item.find_element(By.CSS_SELECTOR, ".tenant").text == "demo-fauxth"
    # Nothing in the list is wider than the list.
    widths = browser.execute_script("const l = document.getElementById('message-list'); return [l.scrollWidth, l.clientWidth];")
    assert widths[0] <= widths[1], widths
    browser.execute_script("arguments[0].click()", item)
    chip = wait(browser).until(EC.visibility_of_element_located((By.CSS_SELECTOR, "#message-detail .code-chip")))
    assert chip.text == f"{code[:6]}…{code[-4:]}"
    browser.execute_script("arguments[0].click()", chip.find_element(By.XPATH, "following-sibling::button"))
    copied = browser.execute_async_script("navigator.clipboard.readText().then(arguments[0], () => arguments[0](null))")
    assert copied == code


def test_the_faults_view_follows_rules_changed_through_the_api(fauxth, browser):
    open_view(browser, fauxth, "faults")
    wait(browser).until(EC.presence_of_element_located((By.ID, "fault-list")))
    added = fauxth.control("POST", "/faults", json={"id": "from-a-test", "match": {"operation": "supabase:signup"},
                                                    "effect": {"type": "error", "error": "server_error"}})
    assert added.status_code == 201
    wait(browser).until(lambda b: "from-a-test" in b.find_element(By.ID, "fault-list").text)
    assert fauxth.control("DELETE", "/faults/from-a-test").status_code == 204
    wait(browser).until(lambda b: "from-a-test" not in b.find_element(By.ID, "fault-list").text)
    events = fauxth.control("GET", "/events", params={"type": "faults.changed"}).json()["events"]
    assert [e["detail"] for e in events[:2]] == [{"removed": "from-a-test"}, {"added": ["from-a-test"]}]


def test_each_user_row_names_its_tenant(fauxth, browser):
    open_view(browser, fauxth, "users")
    item = wait(browser).until(EC.presence_of_element_located((By.CSS_SELECTOR, "#user-list li.user")))
    assert item.find_element(By.CSS_SELECTOR, ".tenant").text


def test_at_phone_width_the_list_flows_with_the_page_and_opening_a_row_shows_its_detail(fauxth, browser):
    for n in range(25):
        sign_up(fauxth, f"narrow{n}@example.com")
    fauxth.wait_message("narrow24@example.com")
    browser.set_window_size(375, 800)
    open_view(browser, fauxth, "inbox")
    wait(browser).until(lambda b: len(b.find_elements(By.CSS_SELECTOR, "#message-list li.message")) == 25)
    # No box of its own to scroll: the whole list is laid out, and the page scrolls.
    pane = browser.execute_script("const p = document.querySelector('#view-inbox .list-pane'); return [p.scrollHeight, p.clientHeight];")
    assert pane[0] <= pane[1] + 1, pane
    last = browser.find_elements(By.CSS_SELECTOR, "#message-list li.message")[-1]
    browser.execute_script("arguments[0].scrollIntoView()", last)
    last.click()
    detail = wait(browser).until(EC.visibility_of_element_located((By.CSS_SELECTOR, "#message-detail .code-chip")))
    wait(browser).until(lambda b: 0 <= b.execute_script("return document.getElementById('message-detail').getBoundingClientRect().top") < 400)
    assert detail.text


def test_the_connect_view_has_a_snippet_for_each_sdk_apps_use_with_the_android_emulators_address(fauxth, browser):
    open_view(browser, fauxth, "connect")
    wait(browser).until(lambda b: len(b.find_elements(By.CSS_SELECTOR, ".snippet-block")) >= 12)
    blocks = {b.find_element(By.CSS_SELECTOR, ".snippet-head span").text: b.find_element(By.CSS_SELECTOR, "pre").get_attribute("textContent")
              for b in browser.find_elements(By.CSS_SELECTOR, ".snippet-block")}
    for title in ["supabase-js", "supabase-js in React Native", "supabase-swift", "supabase_flutter", "Firebase JS SDK",
                  "@react-native-firebase/auth", "Firebase iOS (Swift)", "Firebase Android (Kotlin)", "Amplify JS (v6)",
                  "Amplify Swift and Android (amplifyconfiguration.json)", "boto3"]:
        assert title in blocks, (title, sorted(blocks))
    port = fauxth.url.rsplit(":", 1)[1]
    assert f'"http://10.0.2.2:{port}"' in blocks["supabase_flutter"] and f'"{fauxth.url}"' in blocks["supabase_flutter"]
    assert f'Firebase.auth.useEmulator("10.0.2.2", {port})' in blocks["Firebase Android (Kotlin)"]
    assert f'useEmulator(withHost: "127.0.0.1", port: {port})' in blocks["Firebase iOS (Swift)"]
    # Amplify Swift refuses an endpoint with a scheme and always uses https: a bare host, behind an https proxy.
    amplify = json.loads(blocks["Amplify Swift and Android (amplifyconfiguration.json)"])
    assert amplify["auth"]["plugins"]["awsCognitoAuthPlugin"]["CognitoUserPool"]["Default"]["Endpoint"] == "cognito.localhost"
    proxy = next(text for title, text in blocks.items() if title.startswith("Amplify Swift and Android: an https proxy"))
    assert proxy == f"caddy reverse-proxy --from cognito.localhost --to 127.0.0.1:{port}"
    # Copy takes the whole snippet.
    browser.execute_cdp_cmd("Browser.grantPermissions", {"origin": fauxth.url, "permissions": ["clipboardReadWrite", "clipboardSanitizedWrite"]})
    block = next(b for b in browser.find_elements(By.CSS_SELECTOR, ".snippet-block")
                 if b.find_element(By.CSS_SELECTOR, ".snippet-head span").text == "supabase-swift")
    browser.execute_script("arguments[0].click()", block.find_element(By.CSS_SELECTOR, "button.copy"))
    copied = browser.execute_async_script("navigator.clipboard.readText().then(arguments[0], () => arguments[0](null))")
    assert copied == blocks["supabase-swift"]


def test_a_user_is_added_and_its_custom_claims_edited_from_the_console(fauxth, browser):
    open_view(browser, fauxth, "users/demo-fauxth")
    wait(browser).until(lambda b: Select(b.find_element(By.ID, "users-tenant")).first_selected_option.get_attribute("value") == "demo-fauxth")
    browser.find_element(By.ID, "users-add").click()
    form = wait(browser).until(EC.visibility_of_element_located((By.ID, "new-user-form")))
    form.find_element(By.NAME, "email").send_keys("claims@example.com")
    form.find_element(By.NAME, "password").send_keys("secret123")
    form.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    def text_of(css):
        # Read by script: the detail re-renders as it loads, so an element found a moment ago may be gone.
        return browser.execute_script("return document.querySelector(arguments[0])?.textContent || ''", css)

    wait(browser).until(lambda _: "claims@example.com" in text_of("#user-detail .detail-title"))
    [user] = fauxth.control("GET", "/tenants/demo-fauxth/users", params={"email": "claims@example.com"}).json()["users"]

    type_into = """const box = document.querySelector('[data-metadata="app_metadata"] textarea');
        box.value = arguments[0]; box.dispatchEvent(new Event('input'));
        document.querySelector('button[data-save="app_metadata"]').click();"""

    def edit_claims(text):
        wait(browser).until(EC.element_to_be_clickable((By.CSS_SELECTOR, '#user-detail button[data-edit="app_metadata"]'))).click()
        wait(browser).until(lambda _: text_of('[data-metadata="app_metadata"] textarea') is not None
                            and browser.execute_script("return !!document.querySelector('[data-metadata=\"app_metadata\"] textarea')"))
        assert "Custom claims" in text_of('[data-metadata="app_metadata"] h3')
        # Typed and saved in one script: the detail re-renders on live events, so a located element may be replaced.
        browser.execute_script(type_into, text)
        # Saved when the section shows the new object again (the message is the same for each save).
        wait(browser).until(lambda _: text_of('[data-metadata="app_metadata"] pre') and json.loads(text_of('[data-metadata="app_metadata"] pre')) == json.loads(text))
        assert "Saved" in text_of("#user-detail .action-status")

    def claims():
        signed_in = requests.post(f"{fauxth.url}/identitytoolkit.googleapis.com/v1/accounts:signInWithPassword", params={"key": "fake-api-key"},
                                  json={"email": "claims@example.com", "password": "secret123", "returnSecureToken": True}, timeout=30).json()
        return jwt_claims(signed_in["idToken"])

    edit_claims('{"admin": true, "plan": "pro"}')
    assert (claims().get("admin"), claims().get("plan")) == (True, "pro")
    # Saving the object without a key removes it.
    edit_claims('{"plan": "pro"}')
    assert "admin" not in claims() and claims()["plan"] == "pro"
    assert fauxth.control("GET", f"/tenants/demo-fauxth/users/{user['id']}").json()["app_metadata"] == {"plan": "pro"}
    # Not JSON: said, and nothing saved.
    wait(browser).until(EC.element_to_be_clickable((By.CSS_SELECTOR, '#user-detail button[data-edit="app_metadata"]'))).click()
    wait(browser).until(lambda _: browser.execute_script("return !!document.querySelector('[data-metadata=\"app_metadata\"] textarea')"))
    browser.execute_script(type_into, "{oops")
    wait(browser).until(lambda _: "Not JSON" in text_of("#user-detail .action-status"))
    assert claims()["plan"] == "pro"


def test_one_tenant_selection_is_shared_by_every_view_and_the_tab_counts_follow_it(fauxth, browser):
    def badge(view):
        return browser.execute_script(f"return document.querySelector('#nav a[data-view=\"{view}\"]').getAttribute('data-badge') || ''")

    def selects():
        return browser.execute_script("return ['filter-tenant', 'deeplinks-tenant', 'users-tenant', 'sessions-tenant', 'events-tenant']"
                                      ".map((id) => document.getElementById(id).value)")

    def rows(css, attribute="data-tenant"):
        return browser.execute_script(f"return [...document.querySelectorAll('{css}')].map((row) => row.getAttribute('{attribute}'))")

    firebase_key = {"key": "fake-api-key"}
    requests.post(f"{fauxth.url}/auth/v1/token?grant_type=password", headers={"apikey": ANON_KEY}, timeout=30,
                  json={"email": "alice@example.com", "password": "password123"}).raise_for_status()
    for _ in range(2):
        requests.post(f"{fauxth.url}/identitytoolkit.googleapis.com/v1/accounts:signInWithPassword", params=firebase_key, timeout=30,
                      json={"email": "alice@example.com", "password": "password123", "returnSecureToken": True}).raise_for_status()

    def sessions_in(tenant):
        return len(fauxth.control("GET", f"/tenants/{tenant}/sessions").json()["sessions"])

    tenants = {t["id"]: t["user_count"] for t in fauxth.control("GET", "/tenants").json()["tenants"]}

    # Every tenant at first: the users of each, and counts over all of them.
    open_view(browser, fauxth, "users")
    wait(browser).until(lambda _: len(set(rows("#user-list li.user"))) >= 3)
    assert "in all tenants" in browser.find_element(By.ID, "user-count").text
    assert selects() == [""] * 5
    wait(browser).until(lambda _: badge("users") == str(sum(tenants.values())))
    wait(browser).until(lambda _: badge("sessions") == str(sum(sessions_in(t) for t in tenants)))

    # Messages for two tenants arrive while the users view shows.
    sign_up(fauxth, "shared-selection@example.com")
    requests.post(f"{fauxth.url}/identitytoolkit.googleapis.com/v1/accounts:sendOobCode", params=firebase_key, timeout=30,
                  json={"requestType": "PASSWORD_RESET", "email": "alice@example.com"}).raise_for_status()
    wait(browser).until(lambda _: badge("inbox") == "2")

    # One choice in one view is every view's, and every count follows it.
    Select(browser.find_element(By.ID, "users-tenant")).select_by_value("demo-fauxth")
    wait(browser).until(lambda _: rows("#user-list li.user") and set(rows("#user-list li.user")) == {"demo-fauxth"})
    assert selects() == ["demo-fauxth"] * 5
    wait(browser).until(lambda _: badge("users") == str(tenants["demo-fauxth"]))
    wait(browser).until(lambda _: badge("sessions") == str(sessions_in("demo-fauxth")) and badge("inbox") == "1")
    open_view(browser, fauxth, "sessions")
    wait(browser).until(lambda _: rows("#session-rows tr.session") == ["demo-fauxth"] * sessions_in("demo-fauxth"))
    open_view(browser, fauxth, "inbox")
    wait(browser).until(lambda _: browser.execute_script(
        "return [...document.querySelectorAll('#message-list li.message .tenant')].map((t) => t.textContent)") == ["demo-fauxth"])

    # The choice outlives a reload; "All tenants" in any view brings every tenant back everywhere.
    browser.refresh()
    wait(browser).until(lambda _: selects() == ["demo-fauxth"] * 5)
    open_view(browser, fauxth, "sessions")
    Select(browser.find_element(By.ID, "sessions-tenant")).select_by_value("")
    wait(browser).until(lambda _: sorted(rows("#session-rows tr.session")) == sorted(
        [t for t in tenants for _ in range(sessions_in(t))]))
    assert selects() == [""] * 5
    wait(browser).until(lambda _: badge("users") == str(sum(tenants.values()) + 1))
