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

extension [String: JSON] {
    func string(_ key: String, required: Bool = false) throws -> String? {
        switch self[key] {
        case nil, .null?: if required { throw ControlError.badRequest("\(key) is required") } else { return nil }
        case .string(let s)?: return s
        case let other?: throw ControlError.badRequest("\(key): expected a string, got \(other.typeName)")
        }
    }

    func bool(_ key: String) throws -> Bool {
        switch self[key] {
        case nil, .null?: return false
        case .bool(let b)?: return b
        case let other?: throw ControlError.badRequest("\(key): expected a boolean, got \(other.typeName)")
        }
    }

    /// A boolean only when the body has one: for changes, where absent means "leave it".
    func change(_ key: String) throws -> Bool? { self[key] == nil || self[key] == .null ? nil : try bool(key) }

    /// An object only when the body has one.
    func changedObject(_ key: String) throws -> [String: JSON]? { self[key] == nil || self[key] == .null ? nil : try object(key) }

    func object(_ key: String) throws -> [String: JSON] {
        switch self[key] {
        case nil, .null?: return [:]
        case .object(let o)?: return o
        case let other?: throw ControlError.badRequest("\(key): expected an object, got \(other.typeName)")
        }
    }
}
