import AuthCore
import FauxthTesting
import HTTPTypes
import Testing
@testable import FirebaseAPI

/// Snake-case field names (a form body's `grant_type`, `refresh_token`) read as the camel-case ones the API names.
@Suite struct FirebaseBodyTests {
    @Test(arguments: [
        ("grant_type", "grantType"), ("refresh_token", "refreshToken"), ("already", "already"), ("_a_b", "aB"), ("a__b", "aB"),
        ("a_", "a"), ("a_1b", "a1b"), ("x_Y_z", "xYZ"), ("ünï_cödé", "ünïCödé"),
    ])
    func snakeCaseNamesBecomeCamelCase(_ name: String, _ expected: String) {
        #expect(FirebaseBody.camelCase(name) == expected)
    }
}

/// Numbers where the API names strings, and its `int64` fields. A whole number no `Int` holds (`1e300`) was converted
/// to one, which trapped: `{"email": 1e300}` ended the process, as did a `validSince` of `"1e300"` at the next read.
@Suite struct FirebaseNumberTests {
    @Test(arguments: [(JSON.double(5), "5"), (.double(1.5), "1.5"), (.double(1e300), "1e+300"), (.double(-1e300), "-1e+300"),
                      (.double(9e18), "9e+18"), (.int(7), "7")])
    func aNumberWhereAStringGoesIsItsText(_ value: JSON, _ text: String) {
        #expect(FirebaseFieldRules.string(from: value) == text)
    }

    @Test func aHugeNumberForAStringFieldIsRefusedAsTheFieldsValue() async throws {
        let harness = try Harness(seed: firebaseProject(users: [alice]))
        try await harness.run { client in
            let answer = try await client.send(.post, accounts("signInWithPassword"), json: ["email": .double(1e300), "password": "x"])
            #expect(answer.status == .badRequest)
            #expect(errorMessage(answer) == "INVALID_EMAIL", "read as its text, 1e+300, which is no address")
        }
    }

    @Test func validSinceAndAnImportsCreatedAtAreInt64sInTheYearsAClockKeeps() async throws {
        let harness = try Harness(seed: firebaseProject(users: [alice]))
        try await harness.run { client in
            let owner: HTTPFields = [.authorization: "Bearer owner"]
            let notANumber = try await client.send(.post, accounts("update"), json: ["localId": .string(alice.id!), "validSince": "1e300"], headers: owner)
            #expect(notANumber.status == .badRequest)
            #expect(notANumber.json["error"]?["message"] == #"Invalid value at 'valid_since' (TYPE_INT64), "1e300""#)
            let farOff = try await client.send(.post, accounts("update"), json: ["localId": .string(alice.id!), "validSince": "99999999999999"], headers: owner)
            #expect(farOff.status == .badRequest)
            #expect(errorMessage(farOff) == "INVALID_ARGUMENT : validSince must fall in the years 0001-9999")
            let imported = try await client.send(.post, "/identitytoolkit.googleapis.com/v1/projects/p/accounts:batchCreate",
                                                 json: ["users": [["localId": "imported1", "createdAt": "1e300"]]], headers: owner)
            // Google maps the whole request before importing anyone: one user's value that is no int64 refuses it all.
            #expect(imported.status == .badRequest)
            #expect(imported.json["error"]?["message"] == #"Invalid value at 'users[0].created_at' (TYPE_INT64), "1e300""#)
            let second = try await client.send(.post, "/identitytoolkit.googleapis.com/v1/projects/p/accounts:batchCreate",
                                               json: ["users": [["localId": "imported2"], ["localId": "imported3", "lastLoginAt": .double(1.5)]]], headers: owner)
            #expect(second.json["error"]?["message"] == "Invalid value at 'users[1].last_login_at' (TYPE_INT64), 1.5")
            #expect(try await client.send(.post, accounts("lookup"), json: ["localId": ["imported2"]], headers: owner).json["users"] == nil)
            let whole = try await client.send(.post, "/identitytoolkit.googleapis.com/v1/projects/p/accounts:batchCreate",
                                              json: ["users": [["localId": "imported4", "createdAt": .int(1_700_000_000_000), "validSince": "1700000000"]]],
                                              headers: owner)
            #expect(whole.status == .ok && whole.json["error"] == nil)
            #expect(try await client.send(.post, accounts("lookup"), json: ["localId": [.string(alice.id!)]], headers: owner).status == .ok)
        }
    }
}
