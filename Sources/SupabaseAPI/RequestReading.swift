import AuthCore
import Foundation
import HTTPSupport
import Hummingbird

/// A request's JSON object body, read the way GoTrue reads it: unknown keys ignored, `null` as absent,
/// a value of the wrong type refused as `bad_json`, and bodies over 1 MB refused with 413.
typealias JSONBody = Fields<GoTrueFieldRules>

/// GoTrue's reading of a field: strictly its JSON type, else `bad_json` (Go's `json.Unmarshal` into a struct).
enum GoTrueFieldRules: FieldRules {
    static func wrongType(_ key: String, expected: FieldType, got value: JSON) -> any Error {
        SupabaseError.badJSON("\(key): expected \(expected.withArticle), got \(value.typeName)")
    }
}

extension JSONBody {
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
}
