import Crypto
import Foundation
import _CryptoExtras
import AuthCore

/// Keys, certificates and documents shared by the SAML and XML-DSig tests. The RSA keys were made once
/// (Python `cryptography`) so that no test waits for key generation; nothing here is used outside tests.
enum SAMLFixtures {
    static let idpEntityID = "https://idp.example.org/metadata"
    static let spEntityID = "https://sp.example.org/metadata"
    static let acsURL = "https://sp.example.org/acs"
    /// 2026-01-01T00:00:00Z: when the fixtures' responses were issued.
    static let issued = Date(timeIntervalSince1970: 1_767_225_600)

    static let idpKey = rsaKey(idpKeyPEM)
    static let otherKey = rsaKey(otherKeyPEM)
    /// Self-signed certificates written by `Certificate.der`, valid 2020 to 2060 (GeneralizedTime).
    static let idpCertificate = certificate(idpKey, "Fauxth test IdP")
    static let otherCertificate = certificate(otherKey, "Someone else")
    static let signxmlCertificate = Certificate.decodeCertificate(signxmlCertificatePEM) ?? []

    static func rsaKey(_ pem: String) -> SigningKey {
        // A fixture that does not load is a broken test suite, not a case to handle.
        SigningKey(.rsa(try! _RSA.Signing.PrivateKey(pemRepresentation: pem)), kid: nil)
    }

    static func certificate(_ key: SigningKey, _ name: String) -> [UInt8] {
        Certificate.der(for: key, commonName: name, notBefore: Date(timeIntervalSince1970: 1_577_836_800),
                        notAfter: Date(timeIntervalSince1970: 2_840_140_800)) ?? []
    }

    /// An EC P-256 key and its certificate (Python `cryptography`), for ECDSA-SHA256 signatures.
    static let ecKey = SigningKey(.ecdsa(try! P256.Signing.PrivateKey(pemRepresentation: ecKeyPEM)), kid: nil)
    static let ecCertificate = Certificate.decodeCertificate(ecCertificatePEM) ?? []

    static let ecKeyPEM = """
-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgLcO8GZ/smlDgX67N
0NnpI8z8qYy17SGs3ZoZy9pbawqhRANCAAR7PdyBY/RF5B2C23vb+yJLkXLcpbvL
vYwI6wDyXrf+YYcYv3izKaA679xXmIiGbYe6CiC6+E7CniMsnW2oRCPn
-----END PRIVATE KEY-----
"""

    static let ecCertificatePEM = """
-----BEGIN CERTIFICATE-----
MIIBEjCBuaADAgECAgEHMAoGCCqGSM49BAMCMBIxEDAOBgNVBAMMB2VjIHRlc3Qw
IBcNMjAwMTAxMDAwMDAwWhgPMjA2MDAxMDEwMDAwMDBaMBIxEDAOBgNVBAMMB2Vj
IHRlc3QwWTATBgcqhkjOPQIBBggqhkjOPQMBBwNCAAR7PdyBY/RF5B2C23vb+yJL
kXLcpbvLvYwI6wDyXrf+YYcYv3izKaA679xXmIiGbYe6CiC6+E7CniMsnW2oRCPn
MAoGCCqGSM49BAMCA0gAMEUCIQDiLrMtGn1euZAHM+iVmRqMK0KPPbfBGcd166t9
cn6mLAIgDJ+71JFaqe5rx+FjAz11rlxaLGObbHt4DidfxSapXdA=
-----END CERTIFICATE-----
"""

    static let idpKeyPEM = """
-----BEGIN PRIVATE KEY-----
MIIEvAIBADANBgkqhkiG9w0BAQEFAASCBKYwggSiAgEAAoIBAQDAsxAaQWNQHxBH
0/t50ccD3WP2BaLMwArGPjqG99p87awTNon/5t53pOpI7BinXz1M7ueOhkSW0RJF
0pXaMtY0FKPhp8Qpsc1vwgTtTwKo86PxJB3lx3OqsWZ1GK40WaFCHeVzkwn9PqKI
oRMgr45S2BlHyfh7d6DONHS5qFx85g/2uyLCtr7wyo5W73LeEkk3Wx27PLif834F
lK8hu8SjFx62q4C6Lq6znLbEOp6FfxriezlsNdaw/OAJe5leQAdLvdRuQsJld5SG
aR19TsA/KzuktpVFnF7SO1JWrLnRiWdF1vWxgzuFshKy97OCuXVouDIqXcB6vqQF
NQ6/PKAbAgMBAAECggEAFI5FZneZL3/Qzci4J7uP/kKMmj7pqevGenVC6wjffrof
xADqYajwDFVERLkivB/1uxI1E0gRYwE0cMxQ/fC0VuPow3aQ/12fK4/H1MS75Ofw
khWnNs668PdxlYYndyAkipgD1PtXcnNPBUIhdzgi94Vj1PufjRQqzDReSzvBefUl
DRg+BPWcryKdQGJ/4ZeLCrLE1Jc2o8kskqqGiiUs2GM/mY4/a7iA2I6dwNeDt2jF
tTlNIY6Y0Ipeql+SOyMG6aewwvJlnWb0rF10KdAdFuYLX52XH4247+oaQ+fbnb8s
4B7BqdPUDK3aY1T2lA9uQ1tPIcvOLauj9Rht0mrYQQKBgQD30/0Z10apf2e7GLXl
0TDPCQL/ZkhjEJQ7gIbBKdrQISOsuUfDSnn7BhV/rby7/Qf3/HQvb2Z0UYiQC0kx
fz9peMCgGYj60s9CzoQAjwwkwEKzy+OMaO3SLXvaDjH6TYTx3g9tuLnRkCMOspII
kpknj8KS9p0SYPLTNVIf5i3U+wKBgQDHDbZp/OsZL/AV0Mf8u8FW8feb/lA8/TKl
NmTtd7lxr4meRM0hANPqrTfjXHW8Mj9crsUTeheLtctGHYiexd9m1bagE23ZTbh3
GBZPFpqIMoRn2tb2XUqsONTr9e/VwfJrZdDEVZjAndxjWXDENDMdOdTB1uPx09yG
/7IyYMc3YQKBgCSvL4b0s9QBNPSf+sTzCzuKRPRTSqHHYXnRU6EiNe6bCTHXF0VU
L+w1gVct+4MEOHq/1t7yqYLMUt+nnAUEpflR04mfXgRq0h08fpOqmQyTnQwKQTuW
iKWU8AFeGo3HjcdTrIr8Th00LcxOKIm2UY9mm1GvyZ5f1XHoMajhJKWjAoGATHN8
0zpbxYG+8XINzYkDWfR3SIelo7cPw5qfqwEnzX1BGvOL4ZgizGiZJY72fUDDS0Ko
2LE05+j72MMxHOIcyq9chCDSOPr71Wn/74Jb+eGFLypDE76DFqCBTttXsT7bb9pc
E3xYveojoljQ0drGovv6NjTluZTIh2UfuO+otCECgYAdWv8MvQbMVSbbv/Z+6fZu
fTpLVdE3oeSrEB4fcxCi8NcmAbRfndCXBbiGDf03ifopKyQLWoAZbu8YhWpBX8TI
acz9LEUImaXvUX/vYZzv+v1+7Sxb9HbyzXaIXVfUvasHK/7cyrWMx3w3uD7DvWyQ
gaa8RhW3f6Bz+eal/DTf9A==
-----END PRIVATE KEY-----
"""

    static let otherKeyPEM = """
-----BEGIN PRIVATE KEY-----
MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQDHCttmF0VL5miD
RQ0sPSER5anJxC0pFtaz84v7HJJ3PiOSAHdKzTFazu9YC3t6Af0f802l+ueg0bpe
INvOF5MiY+6Y3/oKPR12+4tl8TyAsLf/naQqqYXACZbw4Dw3x0Aw9sdghxDQAlsL
irodEt0CXS7+udvoWmSFZ6EQjnEhRTKfiM9A/y+Ov3HwX1wn8+a7G29u+rxc6lqd
FpQeY62DvWY6QrTmxsCA+QC/OGsAJcsnIgnG02mXVMKn0KramYm4yFlwmfCG2xmE
Jfae3EVq/o0t1twSoQ4w9gg9z0AGhO+t1V15A0kmXg4EzT5dgEbXnM/FzGcirGeb
rHA8gOYnAgMBAAECggEAINow5kPXAzUPcQM3rmKUj8Cpaoz/qzWC0IbVRugrYJUY
B+QdzHHbwJJBPPYANl4XqmtdGJU2H/wd16Vywixv85As9HybZ484ysev9W6Avvjs
FbuuOgBq/AxZJn7MUaSIesxwkgUZCEwrPNdz6pKPefFpbU+99TbeOoqlMfdgws2/
ifgfzWxeYhW9FHZ4ibYRN+LrX1OSweTIn1HE5cq4NcUIZ76mERqstdPOuKlI8pBs
wlSuHbOSNT5u/Bfkv4ib6tDJ3mrjsFNWpEcjTq+l3kkXIVL8lJ1HzjUcGOpKuc5E
0+LeLOw76EuE6yJjneejRwAmg1j3kH0oOiVkZxEQ+QKBgQDmhcmyXx1J4jf1cRYR
xAbWp9pirpydT9hbZXXDmBpRoMUdCpfFUXoxw3tnpMGTh6m1O/4zEnjhRyDQkxCC
di9WT4AsRG9slJhKe9TGsuC5qZEgQpZDc393Ik0ITupWoOAZElx1RlSs1XyLSDbq
bbUlNc6opa57aOv7AHkPFotLnQKBgQDdCmUdXcu//Hi8+8hO9CKTBdT7kFN4KvjN
unJyY8o5A6vQwL3lrDzrH0SkwoUA4/gK93vFzDFzHM7QP82CaMjhLxfVV2kQNllE
2mjQ7chFcbI2yLJQ07iqsFnyUwqY4af+n6URMXcj9aL6l36etzmB5F5vXgpl55mk
QzfEudD3kwKBgQCE6eDoqrS9c+Sl7OU3qxnyTGe7fEgq3+20jOSAuUN7i0H7w67M
g3T8GmUd1j4SrSbpq0Se9+igo51FBXaAclpK3p3daDwClA7W6108j8jI4/8cZag0
DfURoMJfpviwqCNt8UtEByAtYw5jVGjtdAH9CXA1hwn6d/2QBK7IR0xbdQKBgAZy
AibMEF/lxcOE9/9NYSC2X9KCD90GK8Eb+bBaNpBZCg6JQEBNOG2GuOKxBV3UR+xR
8RsAbES2B1XNNnniAlGGpQREizy8yPeYAsxs0pUrzo2IZqKyucTIZacKQtnYYqSr
FQ4eSiITTJBQEJIiN5wRA6vtqxHzoehHSX4ECRLfAoGAVtLWU6GYIcJghme8JfSz
1Earl0ZyOVC6GnVPhQbauilPjgDJOkCRSO4RSJr0Ow8BoDW6ZRf/HKbLw4v84q1J
/lH5LVIWqcuThVxJrRgL+69sNxhZqLJVpy47OONzqtITw9iFJ7Lx2SHXvwvAP/J/
qVHH4p1DrrxgigLA04R6oYY=
-----END PRIVATE KEY-----
"""

    // MARK: Signed by independent implementations

    /// The certificate of the key that signed the next two documents (Python `cryptography`).
    static let signxmlCertificatePEM = """
-----BEGIN CERTIFICATE-----
MIICsjCCAZqgAwIBAgICA+gwDQYJKoZIhvcNAQELBQAwEjEQMA4GA1UEAwwHc2ln
bnhtbDAgFw0yMDAxMDEwMDAwMDBaGA8yMDYwMDEwMTAwMDAwMFowEjEQMA4GA1UE
AwwHc2lnbnhtbDCCASIwDQYJKoZIhvcNAQEBBQADggEPADCCAQoCggEBAMgiLhuX
oh+4RNT0qrkrRjuugeeGKcfIH8psmKPLtIT6K1/aO11gG8mZaXCEhigt/Gm2MXSs
KDXwfE15BIl1aQwY/liI1efIual8rhfcve6uZWo6D5EJlQp5qcQkj2zwW64dXMTJ
vIO8gvLyCtDWUMFa/HVPVg8NyZ2Qo0SDOYiTzvSO8/vTiFA9DjSxz1gKg0UYyLWi
YRewdGzvnFmWnQd8mlCSPki23s2wFMqUMmLpl2I7Bwy74qsoF5F3YmwRcbelZlve
7Bj0PmWXQY5Lz7O+YQTGwh1mD78xIowAyWdeFVsxO9zF3onktibv3hYIQI5eRX/u
TaYsTP/P1BJmEfMCAwEAAaMQMA4wDAYDVR0TAQH/BAIwADANBgkqhkiG9w0BAQsF
AAOCAQEAw6tl7x+zX5QSPx7j0MPSp9D4rke2xHwh+SAnoDUvy0w32O8sK9lH74BW
4AdFVXjM7qveATDAyLNNsWua6VFJQDStjVx4YQij9A3J0FqejB5JDg7W7BoTEBzc
Oo+qp0XaMfuWLaneE2aJHxBZ/ANAfZn7fOuG2UFp2s7Oit+DYe4naMW6K5w381CC
QLLqp8D1dG1mkkc/odeqI4cMEhSrO1Bn3Xyhuww+BrVEVEEPhH+Xc824pywFx3kr
xZFtlEZaOXVABgM2mkddQjVHX9v2Cat7ZGqmB8yqOScbIAhx9MRCpSeSL0UsE5DE
erTUyDSq5qUIGD5z2F+SHcXTi1SlqA==
-----END CERTIFICATE-----
"""

    /// A SAML Assertion signed by Python's signxml 4 (lxml/libxml2 exc-c14n, RSA-SHA256, SHA-256 digest),
    /// the Signature placed after the Issuer; its X509Certificate is wrapped at 64 columns.
    static let signxmlAssertion = #"""
<saml:Assertion xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" ID="_signxml-assertion-1" Version="2.0" IssueInstant="2026-01-01T00:00:00Z"><saml:Issuer>https://idp.example.org/metadata</saml:Issuer><ds:Signature xmlns:ds="http://www.w3.org/2000/09/xmldsig#"><ds:SignedInfo><ds:CanonicalizationMethod Algorithm="http://www.w3.org/2001/10/xml-exc-c14n#"/><ds:SignatureMethod Algorithm="http://www.w3.org/2001/04/xmldsig-more#rsa-sha256"/><ds:Reference URI="#_signxml-assertion-1"><ds:Transforms><ds:Transform Algorithm="http://www.w3.org/2000/09/xmldsig#enveloped-signature"/><ds:Transform Algorithm="http://www.w3.org/2001/10/xml-exc-c14n#"/></ds:Transforms><ds:DigestMethod Algorithm="http://www.w3.org/2001/04/xmlenc#sha256"/><ds:DigestValue>aGrKGRyFSp6De+snXyy+8imHP2Q0/s5J2M4Gn7FUj2s=</ds:DigestValue></ds:Reference></ds:SignedInfo><ds:SignatureValue>LyyUxjHvzXRHoJW/cQodghy83jwHuFz0ocygn2PtI6Wh6IxhgWERaj+vTEHJWMNB4BKNz27EwBsYGEWgmMq/rW/3pVC07bc2YMTKa82yRQ6LxFckHAaUpbDcCWHzyOHdFwkJvzxw2UYuo+0rmoldYT6WBCsQ8ilcfBmXSc1QpHuFAhsnArqp0CbZ+2+bDqsm+Yz7vLtSMRrO3Bc0qz1JlWGXirXXu+Dh5Q46mr9vzzyaUKxMGLSWnlT6ZiFHSjRvEJsy7sLe4HXRdZnUIAW/xw14gSOvAzovxMlN/+Z1Qhu2HBdDtSG8DlQW5Mi7OF/eGpgQxpCR+0P5GME+S4juMA==</ds:SignatureValue><ds:KeyInfo><ds:X509Data><ds:X509Certificate>MIICsjCCAZqgAwIBAgICA+gwDQYJKoZIhvcNAQELBQAwEjEQMA4GA1UEAwwHc2ln
bnhtbDAgFw0yMDAxMDEwMDAwMDBaGA8yMDYwMDEwMTAwMDAwMFowEjEQMA4GA1UE
AwwHc2lnbnhtbDCCASIwDQYJKoZIhvcNAQEBBQADggEPADCCAQoCggEBAMgiLhuX
oh+4RNT0qrkrRjuugeeGKcfIH8psmKPLtIT6K1/aO11gG8mZaXCEhigt/Gm2MXSs
KDXwfE15BIl1aQwY/liI1efIual8rhfcve6uZWo6D5EJlQp5qcQkj2zwW64dXMTJ
vIO8gvLyCtDWUMFa/HVPVg8NyZ2Qo0SDOYiTzvSO8/vTiFA9DjSxz1gKg0UYyLWi
YRewdGzvnFmWnQd8mlCSPki23s2wFMqUMmLpl2I7Bwy74qsoF5F3YmwRcbelZlve
7Bj0PmWXQY5Lz7O+YQTGwh1mD78xIowAyWdeFVsxO9zF3onktibv3hYIQI5eRX/u
TaYsTP/P1BJmEfMCAwEAAaMQMA4wDAYDVR0TAQH/BAIwADANBgkqhkiG9w0BAQsF
AAOCAQEAw6tl7x+zX5QSPx7j0MPSp9D4rke2xHwh+SAnoDUvy0w32O8sK9lH74BW
4AdFVXjM7qveATDAyLNNsWua6VFJQDStjVx4YQij9A3J0FqejB5JDg7W7BoTEBzc
Oo+qp0XaMfuWLaneE2aJHxBZ/ANAfZn7fOuG2UFp2s7Oit+DYe4naMW6K5w381CC
QLLqp8D1dG1mkkc/odeqI4cMEhSrO1Bn3Xyhuww+BrVEVEEPhH+Xc824pywFx3kr
xZFtlEZaOXVABgM2mkddQjVHX9v2Cat7ZGqmB8yqOScbIAhx9MRCpSeSL0UsE5DE
erTUyDSq5qUIGD5z2F+SHcXTi1SlqA==
</ds:X509Certificate></ds:X509Data></ds:KeyInfo></ds:Signature><saml:Subject><saml:NameID Format="urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress">ada@example.org</saml:NameID><saml:SubjectConfirmation Method="urn:oasis:names:tc:SAML:2.0:cm:bearer"><saml:SubjectConfirmationData InResponseTo="_request-1" NotOnOrAfter="2026-01-01T00:05:00Z" Recipient="https://sp.example.org/acs"/></saml:SubjectConfirmation></saml:Subject><saml:Conditions NotBefore="2025-12-31T23:59:00Z" NotOnOrAfter="2026-01-01T00:05:00Z"><saml:AudienceRestriction><saml:Audience>https://sp.example.org/metadata</saml:Audience></saml:AudienceRestriction></saml:Conditions><saml:AuthnStatement AuthnInstant="2026-01-01T00:00:00Z" SessionIndex="_session-1"><saml:AuthnContext><saml:AuthnContextClassRef>urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport</saml:AuthnContextClassRef></saml:AuthnContext></saml:AuthnStatement><saml:AttributeStatement><saml:Attribute Name="urn:oid:0.9.2342.19200300.100.1.3" FriendlyName="mail" NameFormat="urn:oasis:names:tc:SAML:2.0:attrname-format:uri"><saml:AttributeValue xsi:type="xs:string">ada@example.org</saml:AttributeValue></saml:Attribute><saml:Attribute Name="groups" NameFormat="urn:oasis:names:tc:SAML:2.0:attrname-format:basic"><saml:AttributeValue xsi:type="xs:string">admins</saml:AttributeValue><saml:AttributeValue xsi:type="xs:string">r&amp;d &lt;team&gt;</saml:AttributeValue></saml:Attribute></saml:AttributeStatement></saml:Assertion>
"""#

    /// A Response signed by hand with lxml's exclusive C14N and `cryptography`'s RSA: SHA-1 digest,
    /// RSA-SHA512 signature, InclusiveNamespaces PrefixList="xs" on the Reference and "xs samlp" on
    /// SignedInfo, pretty-printed, with a comment and character references inside. signxml's verifier
    /// accepts it.
    static let handmadeResponse = #"""
<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" ID="_handmade-response" Version="2.0" IssueInstant="2026-01-01T00:00:00Z" Destination="https://sp.example.org/acs" InResponseTo="_request-1">
  <saml:Issuer>https://idp.example.org/metadata</saml:Issuer>
  <ds:Signature xmlns:ds="http://www.w3.org/2000/09/xmldsig#"><ds:SignedInfo><ds:CanonicalizationMethod Algorithm="http://www.w3.org/2001/10/xml-exc-c14n#"><ec:InclusiveNamespaces xmlns:ec="http://www.w3.org/2001/10/xml-exc-c14n#" PrefixList="xs samlp"/></ds:CanonicalizationMethod><ds:SignatureMethod Algorithm="http://www.w3.org/2001/04/xmldsig-more#rsa-sha512"/><ds:Reference URI="#_handmade-response"><ds:Transforms><ds:Transform Algorithm="http://www.w3.org/2000/09/xmldsig#enveloped-signature"/><ds:Transform Algorithm="http://www.w3.org/2001/10/xml-exc-c14n#"><ec:InclusiveNamespaces xmlns:ec="http://www.w3.org/2001/10/xml-exc-c14n#" PrefixList="xs"/></ds:Transform></ds:Transforms><ds:DigestMethod Algorithm="http://www.w3.org/2000/09/xmldsig#sha1"/><ds:DigestValue>Aydo8aVo5cVzry93DhyQZIw3ATQ=</ds:DigestValue></ds:Reference></ds:SignedInfo><ds:SignatureValue>vWLH/Un/HDlNu99R8Rgo8S3C4b1iIh4+/Dr1wPYRliLQM3dU8h0GtPwYQQFA1oJLouYptAgzkzoqkg0lk/BnIblSY6lWouxpCrbPo8qR0R3fpi1wMo0Wgp+KvRZQ7TLeN24+8RKjMDDcciJWL4O7kES+WsMVR9fbJBhYd3lesWaQ8Cxnnc8OmLi1eqsrEn+8dd8zz4NmJY07TzGyVnMtjes+HIGNB0lFFQO8KcEzWbb7bnQNNryVu5eznnTEtSGvQN/kVgH16Z2iZyZteYLwKlg8EMuQ/am04B8mymmipVY90jUQ/VdG+nKQ1rZKT9+aU5dvIqO0g776jr3Xdr+SmQ==</ds:SignatureValue><ds:KeyInfo><ds:X509Data><ds:X509Certificate>MIICsjCCAZqgAwIBAgICA+gwDQYJKoZIhvcNAQELBQAwEjEQMA4GA1UEAwwHc2lnbnhtbDAgFw0yMDAxMDEwMDAwMDBaGA8yMDYwMDEwMTAwMDAwMFowEjEQMA4GA1UEAwwHc2lnbnhtbDCCASIwDQYJKoZIhvcNAQEBBQADggEPADCCAQoCggEBAMgiLhuXoh+4RNT0qrkrRjuugeeGKcfIH8psmKPLtIT6K1/aO11gG8mZaXCEhigt/Gm2MXSsKDXwfE15BIl1aQwY/liI1efIual8rhfcve6uZWo6D5EJlQp5qcQkj2zwW64dXMTJvIO8gvLyCtDWUMFa/HVPVg8NyZ2Qo0SDOYiTzvSO8/vTiFA9DjSxz1gKg0UYyLWiYRewdGzvnFmWnQd8mlCSPki23s2wFMqUMmLpl2I7Bwy74qsoF5F3YmwRcbelZlve7Bj0PmWXQY5Lz7O+YQTGwh1mD78xIowAyWdeFVsxO9zF3onktibv3hYIQI5eRX/uTaYsTP/P1BJmEfMCAwEAAaMQMA4wDAYDVR0TAQH/BAIwADANBgkqhkiG9w0BAQsFAAOCAQEAw6tl7x+zX5QSPx7j0MPSp9D4rke2xHwh+SAnoDUvy0w32O8sK9lH74BW4AdFVXjM7qveATDAyLNNsWua6VFJQDStjVx4YQij9A3J0FqejB5JDg7W7BoTEBzcOo+qp0XaMfuWLaneE2aJHxBZ/ANAfZn7fOuG2UFp2s7Oit+DYe4naMW6K5w381CCQLLqp8D1dG1mkkc/odeqI4cMEhSrO1Bn3Xyhuww+BrVEVEEPhH+Xc824pywFx3krxZFtlEZaOXVABgM2mkddQjVHX9v2Cat7ZGqmB8yqOScbIAhx9MRCpSeSL0UsE5DEerTUyDSq5qUIGD5z2F+SHcXTi1SlqA==</ds:X509Certificate></ds:X509Data></ds:KeyInfo></ds:Signature><samlp:Status><samlp:StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:Success"/></samlp:Status>
  <saml:Assertion ID="_handmade-assertion" Version="2.0" IssueInstant="2026-01-01T00:00:00Z">
    <saml:Issuer>https://idp.example.org/metadata</saml:Issuer>
    <!-- comments are not signed -->
    <saml:Subject>
      <saml:NameID Format="urn:oasis:names:tc:SAML:2.0:nameid-format:persistent">  user-42  </saml:NameID>
      <saml:SubjectConfirmation Method="urn:oasis:names:tc:SAML:2.0:cm:bearer">
        <saml:SubjectConfirmationData InResponseTo="_request-1" NotOnOrAfter="2026-01-01T00:05:00.123Z" Recipient="https://sp.example.org/acs"/>
      </saml:SubjectConfirmation>
    </saml:Subject>
    <saml:Conditions NotBefore="2025-12-31T23:59:00Z" NotOnOrAfter="2026-01-01T00:05:00Z">
      <saml:AudienceRestriction><saml:Audience>https://sp.example.org/metadata</saml:Audience></saml:AudienceRestriction>
    </saml:Conditions>
    <saml:AuthnStatement AuthnInstant="2026-01-01T00:00:00Z" SessionIndex="_session-9">
      <saml:AuthnContext><saml:AuthnContextClassRef>urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport</saml:AuthnContextClassRef></saml:AuthnContext>
    </saml:AuthnStatement>
    <saml:AttributeStatement>
      <saml:Attribute Name="note" NameFormat="urn:oasis:names:tc:SAML:2.0:attrname-format:basic"><saml:AttributeValue xsi:type="xs:string">tab	and&#13;cr</saml:AttributeValue></saml:Attribute>
    </saml:AttributeStatement>
  </saml:Assertion>
</samlp:Response>
"""#
}
