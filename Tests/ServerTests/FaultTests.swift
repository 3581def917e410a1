import AuthCore
import Console
import FauxthTesting
import Foundation
import HTTPTypes
import Server
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

    /// A misspelt key, operation, meaning or effect type is refused with the field and the nearest valid name,
    /// instead of a rule that matches everything or never fires; a list names the rule by place and id.
    static let mistakes: [(JSON, String)] = [
        (["match": ["operaton": "supabase:signup"], "effect": ["type": "close"]],
         "match.operaton is not a field of a rule's match (did you mean operation?)"),
        (["match": ["operation": "supabase:sigup"], "effect": ["type": "close"]], "match.operation supabase:sigup is not an operation (did you mean supabase:signup?)"),
        (["match": ["operation": "firebase:nothing.*"], "effect": ["type": "close"]], "match.operation firebase:nothing.* matches no operation"),
        (["effect": ["type": "error", "error": "sever_error"]], "effect.error sever_error is not a meaning (did you mean server_error?)"),
        (["match": ["dialect": "cognito"], "effect": ["type": "error", "error": "over_sms_send_rate_limit"]],
         "effect.error over_sms_send_rate_limit is neither a meaning"),
        (["effect": ["type": "hang", "ms": 10]], "effect.ms is not a field of a hang effect (its fields: type, max_ms)"),
        (["effect": ["type": "clsoe"]], "(did you mean close?)"),
        (["effect": ["type": "close"], "schedule": ["time": 1]], "schedule.time is not a field of a rule's schedule (did you mean times?)"),
        (["efect": ["type": "close"]], "efect is not a field of a rule (did you mean effect?)"),
    ]

    @Test(arguments: mistakes)
    func aMistakeInARuleIsNamed(rule: JSON, message: String) async throws {
        let harness = try Harness()
        try await harness.run { client in
            let reply = try await client.send(.post, "/_emu/v1/faults", json: rule)
            #expect(reply.status == .badRequest && reply.json["error"]?["code"] == "invalid_input")
            #expect(reply.json["error"]?["message"]?.stringValue?.contains(message) == true, "\(reply.text)")
            #expect(try await client.send(.get, "/_emu/v1/faults").json["rules"]?.arrayValue?.isEmpty == true)
        }
    }

    /// The scenarios shipped in seed/scenarios pass the same reader, so each names real operations.
    @Test func everyBuiltInScenarioLoads() async throws {
        let harness = try Harness()
        #expect(FaultScenarios.all.count >= 6)
        try await harness.run { client in
            for scenario in FaultScenarios.all {
                let reply = try await client.send(.post, "/_emu/v1/faults", json: ["scenario": .string(scenario.name)])
                #expect(reply.status == .created, "\(scenario.name): \(reply.text)")
            }
        }
    }

    @Test func aListNamesTheWrongRuleAndAListingPostsBackAsItIs() async throws {
        let harness = try Harness()
        try await harness.run { client in
            let reply = try await client.send(.post, "/_emu/v1/faults", json: ["rules": [
                ["id": "fine", "match": ["operation": "cognito:InitiateAuth"], "effect": ["type": "error", "error": "NotAuthorizedException"]],
                ["id": "typo", "match": ["operation": "supabase:token.pasword"], "effect": ["type": "close"]],
            ]])
            #expect(reply.json["error"]?["message"] == #"rules[1] (id "typo") match.operation supabase:token.pasword is not an operation (did you mean supabase:token.password?)"#)
            // Nothing of a refused list is added; GET's rules (with their state) are accepted back as they are.
            #expect(try await client.send(.get, "/_emu/v1/faults").json["rules"]?.arrayValue?.isEmpty == true)
            _ = try await client.send(.post, "/_emu/v1/faults", json: ["id": "a", "match": ["operation": "supabase:*"], "effect": ["type": "delay", "ms": 1]])
            let listing = try await client.send(.get, "/_emu/v1/faults").json
            #expect(try await client.send(.post, "/_emu/v1/faults", json: listing).status == .created)
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

    /// A Supabase project's own port and a Cognito pool's own domain serve the same routes, which name
    /// their operations and their tenant the same way.
    @Test func ownPortsNameTheirProjectAndPool() async throws {
        var seed = try SeedLoader.builtIn()
        seed.tenants.append(Seed.TenantSeed(id: "second", dialect: .supabase, settings: [
            "port": 0, "gotrue_env": ["GOTRUE_JWT_SECRET": "second-project-secret-with-32-characters"],
        ]))
        seed.tenants.append(Seed.TenantSeed(id: "eu-west-1_OwnDomain1", dialect: .cognito, settings: [
            "domain": "own-domain", "hosted_ui_port": 19_444,
            "clients": [["ClientId": "owndomainclient00000000001", "CallbackURLs": ["http://localhost:3000/cb"], "AllowedOAuthFlows": ["code"],
                         "AllowedOAuthScopes": ["openid"], "AllowedOAuthFlowsUserPoolClient": true, "SupportedIdentityProviders": ["COGNITO"]]],
        ]))
        let harness = try Harness(seed: seed)
        try await harness.run { client in
            _ = try await client.send(.post, "/_emu/v1/faults", json: ["id": "down", "effect": ["type": "error", "error": "unavailable"]])
        }
        try await harness.runProject("second") { client in
            for path in ["/token?grant_type=password", "/auth/v1/token?grant_type=password"] {
                let reply = try await client.send(.post, path, json: ["email": "carol@example.com", "password": "x"])
                #expect(reply.status == .serviceUnavailable && reply.json["error_code"] == "unexpected_failure" && reply.headers[Self.marker] == "down")
            }
            #expect(try await client.send(.get, "/nothing").headers[Self.marker] == nil)
        }
        try await harness.runProject("eu-west-1_OwnDomain1") { client in
            let login = try await client.send(.get, "/login?client_id=owndomainclient00000000001")
            #expect(login.status == .serviceUnavailable && login.json["error"] == "temporarily_unavailable")
            // The pool's keys are no operation.
            #expect(try await client.send(.get, "/eu-west-1_OwnDomain1/.well-known/jwks.json").status == .ok)
        }
        let journal = try await harness.run { try await $0.send(.get, "/_emu/v1/faults/journal").json["firings"]?.arrayValue ?? [] }
        let named: [[String?]] = journal.map { firing in ["operation", "tenant", "identifier", "path"].map { firing[$0]?.stringValue } }
        let expected: [[String?]] = [
            ["supabase:token.password", "second", "carol@example.com", "/token"],
            ["supabase:token.password", "second", "carol@example.com", "/auth/v1/token"],
            ["cognito:login.get", "eu-west-1_OwnDomain1", nil, "/login"],
        ]
        #expect(named == expected)
    }

    /// A delay still gives the dialect's own error, marked; a rule that is armed but matches nothing
    /// leaves every answer as it was, bodies and forms included (each is read once, by the route).
    @Test func aDelayedErrorIsMarkedAndAnArmedRuleChangesNothingElse() async throws {
        let harness = try Harness()
        try await harness.run { client in
            _ = try await client.send(.post, "/_emu/v1/faults", json: ["rules": [
                ["id": "late", "match": ["operation": "supabase:token.refresh_token"], "effect": ["type": "delay", "ms": 1]],
                ["id": "never", "match": ["operation": "cognito:DeleteUserPool"], "effect": ["type": "close"]],
            ]])
            let late = try await client.send(.post, "/auth/v1/token?grant_type=refresh_token", json: ["refresh_token": "nope"])
            #expect(late.status == .badRequest && late.json["error_code"] == "validation_failed" && late.headers[Self.marker] == "late")

            let signedIn = try await client.send(.post, "/auth/v1/token?grant_type=password", json: ["email": "alice@example.com", "password": "password123"])
            #expect(signedIn.status == .ok && signedIn.headers[Self.marker] == nil)
            let callback = try await client.send(.post, "/auth/v1/callback", raw: "state=forged&code=c", headers: [.contentType: "application/x-www-form-urlencoded"])
            #expect(callback.status == .badRequest && callback.json["error_code"] == "bad_oauth_state")
            let badJSON = try await client.send(.post, "/auth/v1/signup", raw: "{", headers: [.contentType: "application/json"])
            #expect(badJSON.json["error_code"] == "bad_json")
            let refresh = try await client.send(.post, "/securetoken.googleapis.com/v1/token?key=fake-api-key", raw: "grant_type=refresh_token&refresh_token=x",
                                                headers: [.contentType: "application/x-www-form-urlencoded"])
            #expect(refresh.json["error"]?["message"] == "INVALID_REFRESH_TOKEN")
            let token = try await client.send(.post, "/oauth2/token", raw: "grant_type=client_credentials&client_id=nobody",
                                              headers: [.contentType: "application/x-www-form-urlencoded"])
            #expect(token.status == .badRequest && token.json["error"] == "invalid_client")
            let unknown = try await client.send(.post, "/", json: [:], headers: [HTTPField.Name("X-Amz-Target")!: "AWSCognitoIdentityProviderService.Nope"])
            #expect(unknown.json["__type"] == "UnknownOperationException")
        }
        #expect(harness.emulator.faults.journal().map(\.rule.id) == ["late"])
    }
}
