import Foundation

/// The names a fault rule may use, which only the dialects know: every canonical operation name, and the
/// vendor error codes each dialect raises. The server gives them to the engine when it builds the dialects,
/// so a rule naming an operation that does not exist (`supabase:sigup`) is refused instead of never firing.
/// Empty (a bare engine in a unit test) means nothing is checked against it.
public struct FaultVocabulary: Sendable {
    /// Canonical operation names, `dialect:operation`, in the order `GET /_emu/v1/faults/operations` lists them.
    public var operations: [String]
    /// Vendor error codes each dialect raises by name. A rule may name another code (one Fauxth never raises)
    /// when it has the vendor's form; these only exempt a real code from looking like a misspelt meaning.
    public var codes: [Dialect: Set<String>]

    public init(operations: [String] = [], codes: [Dialect: Set<String>] = [:]) {
        self.operations = operations
        self.codes = codes
    }

    /// Whether an operation pattern names something: a name exactly, or a glob that matches at least one name.
    func check(operation pattern: String, field: String) throws {
        guard !operations.isEmpty else { return }
        if pattern.contains("*") || pattern.contains("?") {
            guard operations.contains(where: { Glob.matches(pattern, $0, separators: ":") }) else {
                throw AuthError.invalidInput(field: field, reason: "\(pattern) matches no operation (GET /_emu/v1/faults/operations lists them)")
            }
        } else if !operations.contains(pattern) {
            throw AuthError.invalidInput(field: field, reason: "\(pattern) is not an operation\(Suggestion.hint(for: pattern, in: operations))")
        }
    }

    /// The dialects a rule's requests can belong to: its `dialect`, else its operations' prefixes, else all.
    static func dialects(of match: FaultRule.Match) -> [Dialect] {
        if let dialect = match.dialect { return [dialect] }
        let prefixes = match.operations.map { Dialect(rawValue: String($0.prefix { $0 != ":" })) }
        guard !prefixes.isEmpty, !prefixes.contains(nil) else { return Dialect.allCases }
        return Dialect.allCases.filter { prefixes.contains($0) }
    }

    /// An `error` effect's name: a meaning, or a vendor code of a dialect the rule reaches. A name within a
    /// typo of a meaning is refused (nearly always a misspelling: `sever_error`), unless a dialect knows it
    /// as its own code; so is a name in no vendor's form.
    func errorKind(_ name: String, dialects: [Dialect]) throws -> FaultErrorKind {
        let kind = FaultErrorKind(name: name)
        guard case .vendorCode = kind else { return kind }
        let meanings = FaultMeaning.allCases.map(\.rawValue)
        if dialects.contains(where: { codes[$0]?.contains(name) == true }) { return kind }
        if let meaning = Suggestion.nearest(to: name, in: meanings) {
            throw AuthError.invalidInput(field: "effect.error", reason: "\(name) is not a meaning (did you mean \(meaning)?)")
        }
        guard dialects.contains(where: { $0.fitsVendorCode(name) }) else {
            let forms = dialects.map(\.vendorCodeForm).joined(separator: "; ")
            throw AuthError.invalidInput(field: "effect.error", reason: "\(name) is neither a meaning (\(meanings.joined(separator: ", "))) nor a vendor code (\(forms))")
        }
        return kind
    }
}

extension Dialect {
    /// Whether `name` is written as this vendor writes its error codes.
    func fitsVendorCode(_ name: String) -> Bool {
        let pattern = switch self {
        case .supabase: "^[a-z][a-z0-9]*(_[a-z0-9]+)*$"
        case .firebase: "^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$"
        case .cognito: "^[A-Z][A-Za-z0-9]*Exception$"
        }
        return name.range(of: pattern, options: .regularExpression) != nil
    }

    var vendorCodeForm: String {
        switch self {
        case .supabase: "GoTrue's error_code in snake_case, e.g. over_email_send_rate_limit"
        case .firebase: "Identity Toolkit's code in UPPER_CASE, e.g. EMAIL_EXISTS"
        case .cognito: "Cognito's exception type, e.g. NotAuthorizedException"
        }
    }
}
