"""`--open-deeplinks`: every captured deep link opened where the app runs, through stand-ins for `xcrun` and `adb`
on PATH that record how they were called (the device's shell is played by shlex, which splits as a POSIX shell
does), and the console's Open in app button in Chromium."""
import json
import os
import shlex
import time

import pytest
import requests
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC

from test_console_views import browser, open_view, wait  # noqa: F401 (the browser fixture)

AUTHORIZE = ("/_emu/idp/google/authorize?client_id=c&redirect_uri=myapp%3A%2F%2Fcb&response_type=code&state=s1"
             "&fauxth_account=alice@example.com")
RECORDER = """#!/usr/bin/env python3
import json, os, sys
with open(os.environ["FAUXTH_TEST_RECORD"], "a") as f:
    f.write(json.dumps([os.path.basename(sys.argv[0])] + sys.argv[1:]) + "\\n")
"""


@pytest.fixture
def stand_ins(tmp_path):
    """A bin directory with recording `xcrun`, `adb` and `recorder`, and the environment that puts it on PATH."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name in ("xcrun", "adb", "recorder"):
        (bin_dir / name).write_text(RECORDER)
        (bin_dir / name).chmod(0o755)
    record = tmp_path / "calls.jsonl"
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}", "FAUXTH_TEST_RECORD": str(record)}
    return bin_dir, record, env


def capture(fauxth):
    """Signs in at the fake Google with an app's scheme as the redirect: the emulator captures the deep link."""
    response = requests.get(fauxth.url + AUTHORIZE, allow_redirects=False, timeout=10)
    location = response.headers["Location"]
    assert location.startswith("myapp://cb?code=") and "&state=s1" in location
    return location


def calls(record, count=1, timeout=10):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if record.exists():
            lines = record.read_text().splitlines()
            if len(lines) >= count:
                return [json.loads(line) for line in lines]
        time.sleep(0.05)
    raise AssertionError(f"the opener was not run {count} time(s)")


def opened_events(fauxth, count=1, timeout=10):
    deadline = time.time() + timeout
    while time.time() < deadline:
        events = fauxth.control("GET", "/events", params={"type": "deeplink.opened"}).json()["events"]
        if len(events) >= count:
            return events
        time.sleep(0.05)
    raise AssertionError("no deeplink.opened event")


def test_simctl_opens_each_captured_link_in_the_booted_simulator(start_fauxth, stand_ins):
    _, record, env = stand_ins
    fauxth = start_fauxth("--open-deeplinks", "simctl", env=env)
    assert fauxth.control("GET", "/info").json()["open_deeplinks"] == "simctl"
    location = capture(fauxth)
    assert calls(record) == [["xcrun", "simctl", "openurl", "booted", location]]
    [event] = opened_events(fauxth)
    assert event["detail"]["url"] == location and event["detail"]["succeeded"] is True and event["detail"]["status"] == 0


def test_adb_quotes_the_link_for_the_devices_shell(start_fauxth, stand_ins):
    _, record, env = stand_ins
    fauxth = start_fauxth("--open-deeplinks", "adb", env=env)
    location = capture(fauxth)
    [[program, shell, device_command]] = calls(record)
    assert (program, shell) == ("adb", "shell")
    # What the device's shell makes of it: the whole URL, `&state=s1` included, as am's -d argument.
    assert shlex.split(device_command) == ["am", "start", "-W", "-a", "android.intent.action.VIEW", "-d", location]


def test_a_command_gets_the_link_as_its_last_argument_and_the_button_opens_it_again(start_fauxth, stand_ins, browser):
    bin_dir, record, env = stand_ins
    fauxth = start_fauxth("--open-deeplinks", f"{bin_dir}/recorder --from fauxth", env=env)
    location = capture(fauxth)
    assert calls(record) == [["recorder", "--from", "fauxth", location]]

    open_view(browser, fauxth, "deeplinks")
    wait(browser).until(EC.element_to_be_clickable((By.CSS_SELECTOR, "#deeplink-list li.deeplink"))).click()
    button = wait(browser).until(EC.element_to_be_clickable((By.CSS_SELECTOR, "#deeplink-detail button.open-in-app")))
    # The app's scheme cannot open in a tab: Open goes to the page that shows the link and its commands.
    page = browser.find_element(By.CSS_SELECTOR, "#deeplink-detail a.open").get_attribute("href")
    assert page.endswith("/page") and "/_emu/v1/deeplinks/" in page
    button.click()
    outcome = wait(browser).until(lambda b: b.find_element(By.CSS_SELECTOR, "#deeplink-detail .open-outcome").text)
    assert outcome == f"Opened with {bin_dir}/recorder --from fauxth."
    assert calls(record, count=2)[1] == ["recorder", "--from", "fauxth", location]
    browser.get(page)
    assert wait(browser).until(EC.presence_of_element_located((By.ID, "url"))).get_attribute("value") == location
    assert shlex.split(shlex.split(browser.find_element(By.ID, "android").get_attribute("value"))[2])[-1] == location


def test_a_missing_tool_is_a_failed_event_not_a_crash(start_fauxth, tmp_path):
    env = {**os.environ, "PATH": "/usr/bin:/bin"}
    fauxth = start_fauxth("--open-deeplinks", "simctl", env=env)
    capture(fauxth)
    [event] = opened_events(fauxth)
    assert event["detail"]["succeeded"] is False and event["detail"]["status"] == 127 and "xcrun" in event["detail"]["error"]
    link = fauxth.control("GET", "/deeplinks").json()["deeplinks"][0]
    again = fauxth.control("POST", f"/deeplinks/{link['id']}/open")
    assert again.status_code == 200 and again.json()["succeeded"] is False and again.json()["status"] == 127
    assert fauxth.control("GET", "/health").status_code == 200


def test_without_the_flag_the_control_api_says_how_to_turn_it_on(fauxth):
    capture(fauxth)
    link = fauxth.control("GET", "/deeplinks").json()["deeplinks"][0]
    refused = fauxth.control("POST", f"/deeplinks/{link['id']}/open")
    assert refused.status_code == 409 and refused.json()["error"]["code"] == "no_opener"
    assert "--open-deeplinks" in refused.json()["error"]["message"]
    assert fauxth.control("GET", "/info").json()["open_deeplinks"] is None
