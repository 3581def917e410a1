import AuthCore
import FauxthTesting
import Foundation
import HTTPTypes
import Testing

/// Fault rules through the application: each dialect names its operations and renders a fault's error
/// in its own format, with the header naming the rule.
@Suite struct FaultTests {
    static let marker = HTTPField.Name("x-fauxth-fault")!

    @Test func eachDialectRendersTheSameMeaningInItsOwnFormat() async throws {
        let harness = try Harness()
        try await harness.run { client in
            let added = try await client.send(.post, "/_emu/v1/faults", json: ["id": "busy", "effect": ["type": "error", "error": "rate_limited", "retry_after": 7]])
            #expect(added.status == .created && added.json["rules"]?[0]?["state"]?["fired"] == 0)

            let supabase = try await client.send(.post, "/auth/v1/token?grant_type=password", json: ["email": "alice@example.com", "password": "x"])
            #expect(supabase.status == .tooManyRequests && supabase.json["error_code"] == "over_request_rate_limit" && supabase.json["code"] == 429)
            #expect(supabase.headers[.retryAfter] == "7" && supabase.headers[Self.marker] == "busy")

            let firebase = try await client.send(.post, "/identitytoolkit.googleapis.com/v1/accounts:signUp?key=fake-api-key", json: ["email": "n@example.com"])
            #expect(firebase.status == .badRequest && firebase.json["error"]?["message"] == "TOO_MANY_ATTEMPTS_TRY_LATER")

            let cognito = try await client.send(.post, "/", json: ["ClientId": "fauxthlocalclient000000001", "AuthFlow": "USER_PASSWORD_AUTH"],
                                                headers: [HTTPField.Name("X-Amz-Target")!: "AWSCognitoIdentityProviderService.InitiateAuth",
                                                          .contentType: "application/x-amz-json-1.1"])
            #expect(cognito.status == .badRequest && cognito.json["__type"] == "TooManyRequestsException")
            #expect(cognito.headers[HTTPField.Name("x-amzn-ErrorType")!] == "TooManyRequestsException:")

            // The control API and the console are never faulted.
            #expect(try await client.send(.get, "/_emu/v1/health").status == .ok)
            let journal = try await client.send(.get, "/_emu/v1/faults/journal").json["firings"]?.arrayValue ?? []
            #expect(journal.map { $0["operation"]?.stringValue } == ["supabase:token.password", "firebase:accounts.signUp", "cognito:InitiateAuth"])
            #expect(journal.map { $0["tenant"]?.stringValue } == ["default", "demo-fauxth", "us-east-1_fauxth001"])
            #expect(try await client.send(.delete, "/_emu/v1/faults/busy").status == .noContent)
            let free = try await client.send(.post, "/auth/v1/token?grant_type=password", json: ["email": "alice@example.com", "password": "password123"])
            #expect(free.status == .ok && free.headers[Self.marker] == nil)
        }
    }

    @Test func aRawResponseAndAVendorCodeByName() async throws {
        let harness = try Harness()
        try await harness.run { client in
            _ = try await client.send(.post, "/_emu/v1/faults", json: ["rules": [
                ["match": ["operation": "supabase:otp"], "effect": ["type": "error", "error": "over_sms_send_rate_limit", "message": "SMS rate limit exceeded"]],
                ["match": ["operation": "firebase:securetoken.refresh"], "effect": ["type": "response", "status": 502, "headers": ["content-type": "text/html"], "body": "<h1>Bad Gateway</h1>"]],
            ]])
            let otp = try await client.send(.post, "/auth/v1/otp", json: ["phone": "+15555550100"])
            #expect(otp.status == .tooManyRequests && otp.json["error_code"] == "over_sms_send_rate_limit" && otp.json["msg"] == "SMS rate limit exceeded")
            let refresh = try await client.send(.post, "/securetoken.googleapis.com/v1/token?key=fake-api-key", raw: "grant_type=refresh_token&refresh_token=x",
                                                headers: [.contentType: "application/x-www-form-urlencoded"])
            #expect(refresh.status == .badGateway && refresh.text == "<h1>Bad Gateway</h1>" && refresh.headers[.contentType] == "text/html")
            let rules = try await client.send(.get, "/_emu/v1/faults").json["rules"]?.arrayValue ?? []
            #expect(rules.map { $0["state"]?["fired"] } == [1, 1])
        }
    }
}
