"""Secrets are compared in constant time: a source audit. Every place that compares a secret the caller sent (client
secrets, SECRET_HASH, PKCE verifiers, codes, password hashes, TOTP codes, SRP's M1, nonces, CSRF tokens) goes
through AuthCore's `constantTimeEquals`; HMAC signatures through swift-crypto's `isValidAuthenticationCode`; refresh
tokens and codes are found by their hash in SQL, which leaks nothing an attacker can steer. The audit fails on a new
`==` between secret-named values, and on a known constant-time comparison that is no longer there."""
import pathlib
import re

import pytest

from conftest import ROOT

pytestmark = pytest.mark.reliability

SOURCES = ROOT / "Sources"
SECRET_NAMES = r"(?:secret|clientSecret|secretHash|verifier|codeVerifier|signature|expectedSignature|passwordHash|valueHash|" \
               r"codeHash|digest|nonce|otp|totpCode|hmac|mac|m1|csrf|apiKey|serviceKey)"
# `secret == x`, `x == secret`, `secret != x` (not comparisons with nil, a literal, or a count).
COMPARISON = re.compile(rf"(?<![\w.]){SECRET_NAMES}\s*[!=]=(?!\s*(?:nil\b|\"|\d))|(?<![!=<>])[!=]=\s*{SECRET_NAMES}\b(?!\s*[.(\[?])",
                        re.IGNORECASE)
# Where the constant-time comparisons are today: (file, how many at least).
KNOWN = {
    "AuthCore/Support/Bytes.swift": 2,
    "AuthCore/Support/TOTP.swift": 1,
    "AuthCore/Support/Blowfish.swift": 1,
    "AuthCore/Support/ImportedHash.swift": 1,
    "AuthCore/Core/Emulator+PKCE.swift": 1,
    # Verification matches typed codes through CodeRecord.isCode.
    "AuthCore/Core/Emulator+Codes.swift": 1,
    "SupabaseAPI/Token.swift": 1,
    "CognitoAPI/Auth.swift": 1,
    "CognitoAPI/CognitoCall.swift": 1,
    "CognitoAPI/SignInFlow.swift": 1,
    "CognitoAPI/SignOut.swift": 1,
    "CognitoAPI/OAuthEndpoints.swift": 1,
    "CognitoAPI/HostedUI.swift": 1,
}


def swift_files():
    return sorted(SOURCES.rglob("*.swift"))


def code_lines(path):
    for number, line in enumerate(path.read_text().splitlines(), 1):
        stripped = line.split("//", 1)[0] if "://" not in line else line
        if not stripped.strip().startswith("///"):
            yield number, stripped


def test_no_secret_is_compared_with_equals(figures):
    offenders = []
    for path in swift_files():
        for number, line in code_lines(path):
            if COMPARISON.search(line):
                offenders.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    figures("source files audited for secret comparisons", len(swift_files()))
    assert not offenders, "compare secrets with constantTimeEquals, not ==:\n" + "\n".join(offenders)


def test_the_audit_catches_what_it_is_for():
    for line in ("guard secret == given else {", "if given != clientSecret {", "return expected.signature == signature",
                 "guard verifier == challenge", "if hmac == computed {", "let ok = codeHash == stored"):
        assert COMPARISON.search(line), line
    for line in ("guard secret != nil", "if client.secret == nil {", "guard signature.count == 32", "if nonce.isEmpty {",
                 "case .s256: digest", "guard constantTimeEquals(secret, expected)"):
        assert not COMPARISON.search(line), line


def test_the_known_comparisons_stay_constant_time():
    missing = []
    for relative, count in KNOWN.items():
        text = (SOURCES / relative).read_text()
        found = len(re.findall(r"constantTimeEquals\(|isValidAuthenticationCode\(", text))
        if found < count:
            missing.append(f"{relative}: {found} constant-time comparisons, {count} expected")
    assert not missing, "\n".join(missing)
    signing = (SOURCES / "AuthCore/Tokens/SigningKey.swift").read_text()
    assert "HMAC<SHA256>.isValidAuthenticationCode" in signing
