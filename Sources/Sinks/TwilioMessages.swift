import AuthCore
import Foundation
import HTTPSupport
import HTTPTypes
import Hummingbird
import NIOCore

/// Twilio's Messages API (`POST /2010-04-01/Accounts/{AccountSid}/Messages.json`), so a backend that
/// texts through a Twilio client can point it at Fauxth: the text lands in the outbox and the answer
/// is Twilio's message resource. Errors use Twilio's codes and shape.
public struct TwilioMessages: Sendable {
    let emulator: Emulator

    public init(emulator: Emulator) { self.emulator = emulator }

    public func addRoutes<Context: RequestContext>(to router: Router<Context>) {
        router.post("2010-04-01/Accounts/:sid/Messages.json") { request, context in
            let sid = try context.parameters.require("sid")
            return try await send(request, account: sid)
        }
    }

    func send(_ request: Request, account sid: String) async throws -> Response {
        // Twilio refuses a request without HTTP Basic credentials; any credentials will do here.
        guard request.headers[.authorization]?.lowercased().hasPrefix("basic ") == true else {
            return Self.error(20003, "Authenticate", status: .unauthorized)
        }
        let form: [String: String]
        do { form = try await request.formFields(limit: 1 << 20) } catch is NIOTooManyBytesError {
            return Self.error(21617, "The concatenated message body exceeds the 1600 character limit.")
        }
        guard let to = form["To"], !to.isEmpty else { return Self.error(21604, "A 'To' phone number is required.") }
        guard let body = form["Body"], !body.isEmpty else { return Self.error(21602, "Message body is required.") }
        let service = form["MessagingServiceSid"]
        guard let from = form["From"] ?? service, !from.isEmpty else { return Self.error(21603, "A 'From' phone number is required.") }
        guard to.hasPrefix("+"), to.dropFirst().allSatisfy(\.isASCIIDigit), (8...16).contains(to.count) else {
            return Self.error(21211, "The 'To' number \(to) is not a valid phone number.")
        }
        try AppMessages.deliverSMS(to: to, from: from, body: body, emulator: emulator)
        let messageSid = "SM" + emulator.generator.bytes(16).map { String(format: "%02x", $0) }.joined()
        let now = Self.rfc2822(emulator.clock.now)
        let uri = "/2010-04-01/Accounts/\(sid)/Messages/\(messageSid).json"
        let answer: JSON = [
            "account_sid": .string(sid), "api_version": "2010-04-01", "body": .string(body), "date_created": .string(now),
            "date_sent": .null, "date_updated": .string(now), "direction": "outbound-api", "error_code": .null, "error_message": .null,
            "from": form["From"].map(JSON.string) ?? .null, "messaging_service_sid": service.map(JSON.string) ?? .null, "num_media": "0",
            "num_segments": .string(String(max(1, (body.count + 159) / 160))), "price": .null, "price_unit": "USD", "sid": .string(messageSid),
            "status": "queued", "subresource_uris": ["media": .string(uri.replacingOccurrences(of: ".json", with: "/Media.json"))],
            "to": .string(to), "uri": .string(uri),
        ]
        return .json(answer, status: .created)
    }

    static func error(_ code: Int, _ message: String, status: HTTPResponse.Status = .badRequest) -> Response {
        .json(["code": .int(code), "message": .string(message), "more_info": .string("https://www.twilio.com/docs/errors/\(code)"),
               "status": .int(status.code)], status: status)
    }

    /// Twilio's dates: `Mon, 16 Aug 2010 03:45:01 +0000`.
    static func rfc2822(_ date: Date) -> String {
        DateFormatter.posixUTC("EEE, dd MMM yyyy HH:mm:ss Z").string(from: date)
    }
}
