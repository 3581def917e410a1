import AuthCore
import Foundation
import HTTPSupport
import Hummingbird

/// Reading control API requests: JSON bodies and query parameters, refused with `bad_request`.
struct ControlRequest {
    let request: Request

    /// The JSON object body; an empty body reads as `{}` (every control body is optional or small).
    func body() async throws -> [String: JSON] {
        do {
            return try await request.jsonObject()
        } catch .empty {
            return [:]
        } catch .tooLarge(let limit) {
            throw ControlError(.contentTooLarge, "body_too_large", "request body is over \(limit) bytes")
        } catch .malformed(let detail) {
            throw ControlError.badRequest("malformed JSON body: \(detail)")
        } catch .notAnObject(let type) {
            throw ControlError.badRequest("body must be a JSON object, got \(type)")
        }
    }

    func query(_ name: String) -> String? {
        request.uri.queryParameters.get(name).flatMap { $0.isEmpty ? nil : $0 }
    }

    func enumQuery<T: RawRepresentable>(_ name: String, as type: T.Type) throws -> T? where T.RawValue == String {
        guard let raw = query(name) else { return nil }
        guard let value = T(rawValue: raw) else { throw ControlError.badRequest("\(name): unknown value \(raw)") }
        return value
    }

    func listFilter() throws -> ListFilter {
        var filter = ListFilter(tenant: query("tenant"), since: query("since"))
        if let limit = query("limit") {
            guard let n = Int(limit), n > 0 else { throw ControlError.badRequest("limit: expected a positive integer") }
            filter.limit = n
        }
        return filter
    }

    /// The long-poll timeout in real seconds (the client's patience, not emulator time): default 30, at most 300.
    func timeout() throws -> Double {
        guard let raw = query("timeout") else { return 30 }
        guard let seconds = Double(raw), seconds >= 0, seconds.isFinite else { throw ControlError.badRequest("timeout: expected seconds") }
        return min(seconds, 300)
    }
}

/// The control API's reading of a field: strictly its JSON type, else `bad_request` naming the field.
enum ControlFieldRules: FieldRules {
    static func wrongType(_ key: String, expected: FieldType, got value: JSON) -> any Error {
        ControlError.badRequest("\(key): expected \(expected.withArticle), got \(value.typeName)")
    }
}

/// Control bodies are passed around as plain objects; these read them through the generic reader, with
/// the control API's defaults (an absent boolean is false, an absent object empty).
extension [String: JSON] {
    private var control: Fields<ControlFieldRules> { Fields(fields: self) }

    func string(_ key: String, required: Bool = false) throws -> String? {
        guard let value = try control.string(key) else {
            if required { throw ControlError.badRequest("\(key) is required") }
            return nil
        }
        return value
    }

    func bool(_ key: String) throws -> Bool { try control.bool(key) ?? false }

    /// A boolean only when the body has one: for changes, where absent means "leave it".
    func change(_ key: String) throws -> Bool? { try control.bool(key) }

    /// An object only when the body has one.
    func changedObject(_ key: String) throws -> [String: JSON]? { try control.object(key) }

    func object(_ key: String) throws -> [String: JSON] { try control.object(key) ?? [:] }
}
