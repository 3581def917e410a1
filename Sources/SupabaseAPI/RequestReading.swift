import AuthCore
import Foundation
import HTTPSupport
import Hummingbird

/// A request's JSON object body, read the way GoTrue reads it: unknown keys ignored, `null` as absent,
/// a value of the wrong type refused as `bad_json`, and bodies over 1 MB refused with 413.
struct JSONBody {
    let fields: [String: JSON]

    /// - Parameter emptyAllowed: an empty body reads as `{}`, for endpoints whose every field is optional.
    static func read(_ request: Request, emptyAllowed: Bool = false) async throws -> JSONBody {
        do {
            return JSONBody(fields: try await request.jsonObject())
        } catch .empty where emptyAllowed {
            return JSONBody(fields: [:])
        } catch .tooLarge {
            throw SupabaseError(status: .contentTooLarge, code: .requestEntityTooLarge, message: "Request body too large")
        } catch .empty {
            throw SupabaseError.badJSON("EOF")
        } catch .malformed(let detail) {
            throw SupabaseError.badJSON(detail)
        } catch .notAnObject(let type) {
            throw SupabaseError.badJSON("expected a JSON object, got \(type)")
        }
    }

    func string(_ key: String) throws -> String? {
        switch fields[key] {
        case nil, .null?: return nil
        case .string(let s)?: return s
        case let other?: throw SupabaseError.badJSON("\(key): expected a string, got \(other.typeName)")
        }
    }

    func object(_ key: String) throws -> [String: JSON]? {
        switch fields[key] {
        case nil, .null?: return nil
        case .object(let o)?: return o
        case let other?: throw SupabaseError.badJSON("\(key): expected an object, got \(other.typeName)")
        }
    }
}
