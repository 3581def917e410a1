

def test_findings_of_the_fuzzer_stay_fixed(fuzz_server, tally):
    """Regressions, one request each: what the fuzzer found answered with a 5xx, an empty 413 or an unreadable header."""
    url = fuzz_server.url
    over = "x" * (2 * MB)
    found = [
        # The OAuth callback read its form past the limit into a 500 `unexpected_failure`.
        (requests.post(f"{url}/auth/v1/callback", data={"state": over}, timeout=30), 413, supabase_error),
        # Forms over 64 KiB at the hosted UI and the fake providers were an empty 413.
        (requests.post(f"{url}/login", params={"client_id": COGNITO_CLIENT}, data={"username": over}, timeout=30), 413, oauth_error),
        (requests.post(f"{url}/_emu/idp/apple/token", data={"code": over}, timeout=30), 413, oauth_error),
        (requests.post(f"{url}/2010-04-01/Accounts/AC1/Messages.json", data={"Body": over}, auth=("AC1", "x"), timeout=30), 400, twilio_error),
        # A fake provider's refusal (no such account) escaped the control API as a 500.
        (requests.post(f"{url}/_emu/v1/idp/google/tokens", json={"sub": "nobody"}, timeout=30), 404, control_error),
    ]
    for response, status, error_format in found:
        tally.saw(response, response.url)
        assert response.status_code == status, response.text[:300]
        assert error_format(response), response.text[:300]
    # A Cognito message echoing a 1 MB value made a 1 MB x-amzn-ErrorMessage header, which clients refuse to read.
    with socket.create_connection((url.split("://")[1].rsplit(":", 1)[0], int(url.rsplit(":", 1)[1]))) as sock:
        body = encoded({"ClientId": COGNITO_CLIENT, "Username": "u" * 900_000, "Password": "password123"})
        sock.sendall(b"POST / HTTP/1.1\r\nHost: x\r\nX-Amz-Target: AWSCognitoIdentityProviderService.SignUp\r\n"
                     b"Content-Type: application/x-amz-json-1.1\r\nConnection: close\r\nContent-Length: %d\r\n\r\n" % len(body) + body)
        answer = b"".join(iter(lambda: sock.recv(65536), b""))
    tally.tried += 1
    head = answer.split(b"\r\n\r\n", 1)[0]
    assert head.startswith(b"HTTP/1.1 400"), head[:200]
    assert max(len(line) for line in head.split(b"\r\n")) < 2048, "a header line over 2 KiB"
