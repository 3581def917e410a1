"""The inbox page in a real headless Chromium against a running binary."""
import shutil

import pytest
import requests
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait


@pytest.fixture
def browser():
    options = webdriver.ChromeOptions()
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu"):
        options.add_argument(argument)
    chromium = shutil.which("chromium")
    if chromium:
        options.binary_location = chromium
    driver = webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=options)
    yield driver
    driver.quit()


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
