import Crypto
import _CryptoExtras
import Foundation

/// A self-signed X.509 v3 certificate around an RSA key, in PEM: what Google publishes for its token
/// keys (`…/robot/v1/metadata/x509/…`), so verifiers that want certificates rather than JWKs can check
/// the emulator's RS256 tokens. Only the public key matters to them; the rest is the minimum DER
/// (RFC 5280) a strict parser accepts.
public enum Certificate {
    public static func pem(for key: SigningKey, commonName: String, notBefore: Date, notAfter: Date) throws -> String? {
        guard let der = try signedDER(for: key, commonName: commonName, notBefore: notBefore, notAfter: notAfter) else { return nil }
        return pem(der: der)
    }

    /// The same certificate in DER, as SAML metadata and XML signatures carry it (base64 in
    /// `X509Certificate`); nil for a key that is not RSA, or if signing failed.
    public static func der(for key: SigningKey, commonName: String, notBefore: Date, notAfter: Date) -> [UInt8]? {
        (try? signedDER(for: key, commonName: commonName, notBefore: notBefore, notAfter: notAfter)) ?? nil
    }

    /// A DER certificate as PEM, 64 characters a line.
    public static func pem(der: [UInt8]) -> String {
        let body = Data(der).base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed])
        return "-----BEGIN CERTIFICATE-----\n\(body)\n-----END CERTIFICATE-----\n"
    }

    private static func signedDER(for key: SigningKey, commonName: String, notBefore: Date, notAfter: Date) throws -> [UInt8]? {
        guard case .rsa(let privateKey) = key.material else { return nil }
        let sha256WithRSA = DER.sequence([DER.oid([1, 2, 840, 113_549, 1, 1, 11]), [0x05, 0x00]])
        let name = DER.sequence([DER.set([DER.sequence([DER.oid([2, 5, 4, 3]), DER.tlv(0x0C, Array(commonName.utf8))])])])
        let serial = Array(SHA256.hash(data: privateKey.publicKey.derRepresentation).prefix(8))
        let tbs = DER.sequence([
            DER.tlv(0xA0, DER.integer([2])), DER.integer(serial), sha256WithRSA, name,
            DER.sequence([DER.time(notBefore), DER.time(notAfter)]), name, Array(privateKey.publicKey.derRepresentation),
        ])
        let signature = try privateKey.signature(for: tbs, padding: .insecurePKCS1v1_5).rawRepresentation
        return DER.sequence([tbs, sha256WithRSA, DER.tlv(0x03, [0x00] + Array(signature))])
    }
}

/// Just enough DER to write a certificate.
enum DER {
    static func tlv(_ tag: UInt8, _ content: [UInt8]) -> [UInt8] { [tag] + length(content.count) + content }

    static func sequence(_ items: [[UInt8]]) -> [UInt8] { tlv(0x30, items.flatMap { $0 }) }

    static func set(_ items: [[UInt8]]) -> [UInt8] { tlv(0x31, items.flatMap { $0 }) }

    /// A non-negative INTEGER from big-endian bytes.
    static func integer(_ bytes: [UInt8]) -> [UInt8] {
        var value = Array(bytes.drop { $0 == 0 })
        if value.isEmpty { value = [0] }
        if value[0] & 0x80 != 0 { value.insert(0, at: 0) }
        return tlv(0x02, value)
    }

    static func oid(_ arcs: [UInt]) -> [UInt8] {
        var bytes: [UInt8] = [UInt8(arcs[0] * 40 + arcs[1])]
        for arc in arcs.dropFirst(2) {
            var chunk: [UInt8] = [UInt8(arc & 0x7F)]
            var rest = arc >> 7
            while rest > 0 {
                chunk.insert(UInt8(rest & 0x7F) | 0x80, at: 0)
                rest >>= 7
            }
            bytes += chunk
        }
        return tlv(0x06, bytes)
    }

    /// A validity time as RFC 5280 §4.1.2.5 wants it: UTCTime through 2049, GeneralizedTime from 2050
    /// (a two-digit year there would read as 19xx, and the certificate as long expired).
    static func time(_ date: Date) -> [UInt8] {
        if date < Date(timeIntervalSince1970: 2_524_608_000) {  // 2050-01-01T00:00:00Z
            return tlv(0x17, Array(DateFormatter.posixUTC("yyMMddHHmmss'Z'").string(from: date).utf8))
        }
        return tlv(0x18, Array(DateFormatter.posixUTC("yyyyMMddHHmmss'Z'").string(from: date).utf8))
    }

    private static func length(_ count: Int) -> [UInt8] {
        guard count >= 0x80 else { return [UInt8(count)] }
        var bytes: [UInt8] = []
        var rest = count
        while rest > 0 {
            bytes.insert(UInt8(rest & 0xFF), at: 0)
            rest >>= 8
        }
        return [0x80 | UInt8(bytes.count)] + bytes
    }
}
