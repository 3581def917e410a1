import AuthCore
import Foundation
import HTTPSupport
import Hummingbird
import NIOCore

/// A request's JSON object body, read the way GoTrue reads it: unknown keys ignored, `null` as absent,
/// a value of the wrong type refused as `bad_json`, and bodies over 1 MB refused with 413.
typealias JSONBody = Fields<GoTrueFieldRules>

/// GoTrue's reading of a field: strictly its JSON type, else `bad_json` (Go's `json.Unmarshal` into a struct).
enum GoTrueFieldRules: FieldRules {
    static func wrongType(_ key: String, expected: FieldType, got value: JSON) -> any Error {
        SupabaseError.badJSON("\(key): expected \(expected.withArticle), got \(value.typeName)")
    }
}

/// A request's body, read once when its route matched (GET and HEAD have none): the bytes, and the JSON
/// object they hold or why they hold none. The fault step takes the identifier from it, handlers their
/// fields; a problem with it is answered only when a handler reads it, as GoTrue answers it.
struct ReceivedBody: Sendable {
    let bytes: Result<ByteBuffer, BodyError>
    let object: Result<[String: JSON], BodyError>

    static let none = ReceivedBody(bytes: .success(ByteBuffer()), object: .failure(.empty))

    static func read(_ request: Request) async -> ReceivedBody {
        guard request.method != .get, request.method != .head else { return .none }
        do {
            let bytes = try await request.bodyBytes()
            return ReceivedBody(bytes: .success(bytes), object: Result { () throws(BodyError) in try Request.jsonObject(in: bytes) })
        } catch {
            return ReceivedBody(bytes: .failure(error), object: .failure(error))
        }
    }

    /// The JSON object, as GoTrue reads a body.
    /// - Parameter emptyAllowed: an empty body reads as `{}`, for endpoints whose every field is optional.
    func json(emptyAllowed: Bool = false) throws -> JSONBody {
        do {
            return JSONBody(fields: try object.get())
        } catch .empty where emptyAllowed {
            return JSONBody(fields: [:])
        } catch .tooLarge {
            throw SupabaseError.bodyTooLarge
        } catch .empty {
            throw SupabaseError.badJSON("EOF")
        } catch .malformed(let detail) {
            throw SupabaseError.badJSON(detail)
        } catch .notAnObject(let type) {
            throw SupabaseError.badJSON("expected a JSON object, got \(type)")
        }
    }

    /// The bytes as they came (the OAuth callback's form).
    func raw() throws -> ByteBuffer {
        do { return try bytes.get() } catch .tooLarge { throw SupabaseError.bodyTooLarge }
    }
}
