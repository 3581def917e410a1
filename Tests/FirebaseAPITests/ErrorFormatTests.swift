import AuthCore
import FauxthTesting
import Foundation
import HTTPTypes
import Testing

@Suite struct ErrorFormatTests {
    @Test func aMissingAPIKeyIsPermissionDenied() async throws {
        let harness = try Harness(seed: firebaseProject())
        let (noKey, basic) = try await harness.run { client in
            (try await client.send(.post, "/identitytoolkit.googleapis.com/v1/accounts:signUp", json: [:]),
             try await client.send(.post, "/identitytoolkit.googleapis.com/v1/accounts:signUp", json: [:], headers: [.authorization: "Basic eDp5"]))
        }
        let expected: JSON = ["error": ["code": 403, "message": "The request is missing a valid API key.",
                                        "errors": [["message": "The request is missing a valid API key.", "reason": "forbidden", "domain": "global"]],
                                        "status": "PERMISSION_DENIED"]]
        #expect(noKey.status == .forbidden)
        #expect(noKey.json == expected)
        // A non-Bearer Authorization header is no credential.
        #expect(basic.json == expected)
        #expect(try harness.emulator.users(in: "p").isEmpty)
    }

    @Test func theKeyMayComeInTheGoogApiKeyHeaderAndTheOwnerNeedsNone() async throws {
        let harness = try Harness(seed: firebaseProject())
        let (header, ownerCall) = try await harness.run { client in
            (try await client.send(.post, "/identitytoolkit.googleapis.com/v1/accounts:signUp", json: [:],
                                   headers: [HTTPField.Name("x-goog-api-key")!: "k"]),
             try await client.send(.post, "/identitytoolkit.googleapis.com/v1/projects/p/accounts:query", json: [:],
                                   headers: [.authorization: "bEArEr OWNER"]))
        }
        #expect(header.status == .ok)
        #expect(header.json["localId"]?.stringValue != nil)
        #expect(ownerCall.status == .ok)
        #expect(ownerCall.json["recordsCount"] == "1")
    }

    @Test func aBearerTokenThatIsNotOwnerIsUnauthenticated() async throws {
        let harness = try Harness(seed: firebaseProject())
        let reply = try await harness.run { client in
            try await client.send(.post, projectAccounts("query"), json: [:], headers: [.authorization: "Bearer not-a-google-token"])
        }
        #expect(reply.status == .unauthorized)
        let error = try #require(reply.json["error"])
        #expect(error["code"] == 401)
        #expect(error["status"] == "UNAUTHENTICATED")
        #expect(error["message"]?.stringValue?.hasPrefix("Request had invalid authentication credentials.") == true)
        #expect(error["errors"]?[0]?["reason"] == "authError")
        #expect(error["errors"]?[0]?["location"] == "Authorization")
        #expect(error["errors"]?[0]?["locationType"] == "header")
    }

    @Test func aBadRequestCarriesTheCodeAsMessageAndNoStatus() async throws {
        let harness = try Harness(seed: firebaseProject(users: [alice]))
        let reply = try await harness.run { client in
            try await client.send(.post, accounts("signUp"), json: ["email": "alice@example.com", "password": "secret123"])
        }
        #expect(reply.status == .badRequest)
        #expect(reply.headers[.contentType]?.hasPrefix("application/json") == true)
        #expect(reply.json == ["error": ["code": 400, "message": "EMAIL_EXISTS",
                                         "errors": [["message": "EMAIL_EXISTS", "reason": "invalid", "domain": "global"]]]])
    }

    @Test func malformedJSONAndWrongTypesAreInvalidArgument() async throws {
        let harness = try Harness(seed: firebaseProject())
        try await harness.run { client in
            let broken = try await client.send(.post, accounts("signUp"), raw: "{not json")
            #expect(broken.status == .badRequest)
            #expect(broken.json["error"]?["status"] == "INVALID_ARGUMENT")
            #expect(broken.json["error"]?["message"]?.stringValue?.hasPrefix("Invalid JSON payload received.") == true)
            let notAnObject = try await client.send(.post, accounts("signUp"), raw: "[1,2]")
            #expect(notAnObject.json["error"]?["status"] == "INVALID_ARGUMENT")
            let wrongType = try await client.send(.post, accounts("signInWithPassword"), json: ["email": ["a@example.com"], "password": "secret123"])
            #expect(errorMessage(wrongType) == "Invalid JSON payload received. /email should be string, got an array")
            #expect(wrongType.json["error"]?["status"] == "INVALID_ARGUMENT")
        }
    }

    @Test func anUnknownPathIsNotFoundInFirebasesShape() async throws {
        let harness = try Harness(seed: firebaseProject())
        let (unknownOperation, wrongMethod, noProject) = try await harness.run { client in
            (try await client.send(.post, accounts("doSomething"), json: [:]),
             try await client.send(.get, accounts("signUp")),
             // A project segment of `:` alone ended the process.
             try await client.send(.post, "/identitytoolkit.googleapis.com/v1/projects/:/accounts:lookup?key=k", json: [:]))
        }
        let expected: JSON = ["error": ["code": 404, "message": "Not Found",
                                        "errors": [["message": "Not Found", "reason": "notFound", "domain": "global"]], "status": "NOT_FOUND"]]
        for answer in [unknownOperation, wrongMethod, noProject] {
            #expect(answer.status == .notFound)
            #expect(answer.json == expected)
        }
    }

    @Test func snakeCaseKeysAndIntegerRequestTypesAreAccepted() async throws {
        let harness = try Harness(seed: firebaseProject(users: [alice]))
        try await harness.run { client in
            // The Android SDK sends enums as integers: 1 is PASSWORD_RESET.
            let reset = try await client.send(.post, accounts("sendOobCode"), json: ["request_type": 1, "email": "alice@example.com"])
            #expect(reset.status == .ok)
            #expect(try harness.emulator.messages().first?.purpose == .resetPassword)
            let signedIn = try await client.send(.post, accounts("signInWithPassword"), json: ["email": "alice@example.com", "password": "secret123",
                                                                                              "return_secure_token": true])
            let lookup = try await client.send(.post, accounts("lookup"), json: ["id_token": signedIn.json["idToken"]!])
            #expect(lookup.json["users"]?[0]?["localId"] == "alice-uid")
        }
    }

    /// `targetProjectId` needs the owner, checked before anything else about the request, as the Firebase
    /// emulator checks it.
    @Test func targetProjectIdNeedsAnOwner() async throws {
        let harness = try Harness(seed: firebaseProject(users: [alice]))
        let (signUp, lookup, ownerCall) = try await harness.run { client in
            (try await client.send(.post, accounts("signUp"), json: ["targetProjectId": "p"]),
             try await client.send(.post, accounts("lookup"), json: ["targetProjectId": "p", "localId": ["alice-uid"]]),
             try await client.send(.post, "/identitytoolkit.googleapis.com/v1/accounts:lookup", json: ["targetProjectId": "p", "localId": ["alice-uid"]],
                                   headers: owner))
        }
        let refusal = "INSUFFICIENT_PERMISSION : Only authenticated requests can specify target_project_id."
        #expect(errorMessage(signUp) == refusal)
        #expect(ownerCall.json["users"]?[0]?["localId"] == "alice-uid")
        #expect(lookup.status == .badRequest)
        #expect(errorMessage(lookup) == refusal)
    }

    @Test func theLegacyV3APIIsServedAsV1() async throws {
        let harness = try Harness(seed: firebaseProject(users: [alice]))
        try await harness.run { client in
            let signedIn = try await client.send(.post, "/www.googleapis.com/identitytoolkit/v3/relyingparty/verifyPassword?key=k",
                                                 json: ["email": "alice@example.com", "password": "secret123", "returnSecureToken": true])
            #expect(signedIn.status == .ok)
            #expect(signedIn.json["kind"] == "identitytoolkit#VerifyPasswordResponse")
            let info = try await client.send(.post, "/www.googleapis.com/identitytoolkit/v3/relyingparty/getAccountInfo?key=k",
                                             json: ["idToken": signedIn.json["idToken"]!])
            #expect(info.json["users"]?[0]?["email"] == "alice@example.com")
            let unknown = try await client.send(.post, "/www.googleapis.com/identitytoolkit/v3/relyingparty/signOutUser?key=k", json: [:])
            #expect(unknown.status == .notFound)
        }
    }

    @Test func theHealthCheckAndRecaptchaParamsAnswerAsTheEmulator() async throws {
        let harness = try Harness(seed: firebaseProject())
        let (health, recaptcha) = try await harness.run { client in
            (try await client.send(.get, "/", headers: [.accept: "application/json"]),
             try await client.send(.get, "/identitytoolkit.googleapis.com/v1/recaptchaParams?key=k"))
        }
        #expect(health.json["authEmulator"]?["ready"] == true)
        #expect(recaptcha.json["kind"] == "identitytoolkit#GetRecaptchaParamResponse")
        #expect(recaptcha.json["recaptchaSiteKey"] == "Fake-key__Do-not-send-this-to-Recaptcha_")
    }
}
