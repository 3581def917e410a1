import AuthCore
import Foundation

/// GoTrue's checks of the values a request names, before anything is looked up.
enum Validation {
    /// GoTrue's `validateEmail` (`internal/api/mail.go`): required, at most 255 characters, the format
    /// `badoux/checkmail` (the version GoTrue pins) accepts, lower-cased. Stricter than the core's own
    /// check, which every vendor passes: GoTrue refuses `xx:;x@x.x`.
    static func email(_ raw: String?) throws -> String {
        guard let raw, !raw.isEmpty else { throw SupabaseError.validation("An email address is required") }
        guard raw.utf8.count <= 255 else { throw SupabaseError.validation("An email address is too long") }
        guard isEmailFormat(raw) else { throw AuthError.invalidEmail }
        return raw.lowercased()
    }

    /// `^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@label(\.label)*$`, a label being 1 to 63 letters, digits and
    /// hyphens that starts and ends with a letter or digit. By hand: a Regex is parsed again on every call.
    static func isEmailFormat(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard let at = bytes.firstIndex(of: UInt8(ascii: "@")), at > 0 else { return false }
        guard bytes[..<at].allSatisfy({ isAlphanumeric($0) || localSpecials.contains($0) }) else { return false }
        let labels = bytes[(at + 1)...].split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        return labels.allSatisfy { label in
            guard (1...63).contains(label.count), let first = label.first, let last = label.last else { return false }
            return isAlphanumeric(first) && isAlphanumeric(last) && label.allSatisfy { isAlphanumeric($0) || $0 == UInt8(ascii: "-") }
        }
    }

    private static let localSpecials = Set(".!#$%&'*+/=?^_`{|}~-".utf8)

    private static func isAlphanumeric(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }

    /// GoTrue's `IsValidMessageChannel`: `sms` (the default) or `whatsapp` (its Twilio providers', for which the outbox
    /// stands in), anything when the send SMS hook is on.
    static func channel(_ raw: String?, config: SupabaseConfig) throws {
        let channel = raw.flatMap { $0.isEmpty ? nil : $0 } ?? "sms"
        guard config.hooks[.sendSMS] != nil || channel == "sms" || channel == "whatsapp" else {
            throw SupabaseError.validation("Invalid channel, supported values are 'sms' or 'whatsapp'. "
                + "'whatsapp' is only supported if Twilio or Twilio Verify is used as the provider.")
        }
    }

    /// GoTrue's `validatePhone`: E.164 after dropping the `+` and spaces (`formatPhoneNumber`; dashes and brackets stay,
    /// and fail), or 400 with its message.
    static func phone(_ raw: String) throws -> String {
        guard !raw.contains(where: { "-()".contains($0) }), let phone = try? Identifiers.phone(raw) else { throw AuthError.invalidPhone }
        return phone
    }

    /// An id GoTrue reads with `uuid.FromString`, so any case names the same record; nil when it is not
    /// a UUID. Fauxth's own ids are lower-case.
    static func uuid(_ raw: String) -> String? {
        UUID(uuidString: raw).map { $0.uuidString.lowercased() }
    }
}
