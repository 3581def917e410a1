import AuthCore
import FauxthTesting
import Foundation
import HTTPTypes
import Testing

/// JSON 1.1 as the AWS SDKs read it: errors in the body's `__type` and in `x-amzn-ErrorType` (with
/// Cognito's trailing colon), a request id on every answer, and `application/x-amz-json-1.1`.
@Suite struct ErrorFormatTests {
    @Test func anErrorCarriesItsTypeInTheBodyAndInHeaders() async throws {
        let harness = try Harness()
        let reply = try await harness.run { client in try await client.passwordAuth("alice@example.com", "wrong-password1") }
        #expect(reply.status == .badRequest)
        #expect(reply.json == ["__type": "NotAuthorizedException", "message": "Incorrect username or password."])
        #expect(reply.headers[.xAmznErrorType] == "NotAuthorizedException:")
        #expect(reply.headers[.xAmznErrorMessage] == "Incorrect username or password.")
        #expect(reply.headers[.xAmznRequestId]?.isEmpty == false)
        #expect(reply.headers[.contentType] == "application/x-amz-json-1.1")
    }

    @Test func aSuccessHasTheJSON11ContentTypeAndItsOwnRequestId() async throws {
        let harness = try Harness()
        let (first, second) = try await harness.run { client in
            (try await client.cognito("DescribeUserPool", ["UserPoolId": .string(seedPool)]),
             try await client.cognito("DescribeUserPool", ["UserPoolId": .string(seedPool)]))
        }
        #expect(first.status == .ok)
        #expect(first.headers[.contentType] == "application/x-amz-json-1.1")
        #expect(first.headers[.xAmznErrorType] == nil)
        let ids = [first.headers[.xAmznRequestId], second.headers[.xAmznRequestId]].compactMap { $0 }
        #expect(ids.count == 2)
        #expect(ids[0] != ids[1])
        #expect(first.json["UserPool"]?["Id"] == .string(seedPool))
    }

    @Test func anUnknownOperationIsAJSON400NamingIt() async throws {
        let harness = try Harness()
        try await harness.run { client in
            let unknown = try await client.cognito("DescribeRiskConfiguration", ["UserPoolId": .string(seedPool)])
            #expect(unknown.status == .badRequest)
            #expect(unknown.headers[.contentType] == "application/x-amz-json-1.1")
            #expect(unknown.errorType == "UnknownOperationException")
            #expect(unknown.message?.contains("DescribeRiskConfiguration") == true)
            #expect(unknown.headers[.xAmznErrorType] == "UnknownOperationException:")

            let otherService = try await client.send(.post, "/", raw: "{}", headers: [
                .xAmzTarget: "AmazonS3.ListBuckets", .contentType: "application/x-amz-json-1.1",
            ])
            #expect(otherService.status == .badRequest)
            #expect(otherService.errorType == "UnknownOperationException")
            #expect(otherService.message?.contains("AmazonS3.ListBuckets") == true)
        }
    }

    @Test func malformedJSONAndWrongTypesAreSerializationExceptions() async throws {
        let harness = try Harness()
        try await harness.run { client in
            let broken = try await client.send(.post, "/", raw: "{\"ClientId\": ", headers: [
                .xAmzTarget: "AWSCognitoIdentityProviderService.InitiateAuth", .contentType: "application/x-amz-json-1.1",
            ])
            #expect(broken.status == .badRequest)
            #expect(broken.errorType == "SerializationException")
            #expect(broken.headers[.xAmznErrorType] == "SerializationException:")

            let array = try await client.send(.post, "/", raw: "[1]", headers: [
                .xAmzTarget: "AWSCognitoIdentityProviderService.InitiateAuth", .contentType: "application/x-amz-json-1.1",
            ])
            #expect(array.errorType == "SerializationException")

            let wrongType = try await client.cognito("SignUp", ["ClientId": .string(seedClient), "Username": 42, "Password": .string(password)])
            #expect(wrongType.errorType == "SerializationException")
            #expect(try harness.emulator.userCount(in: seedPool) == 3)
        }
    }

    @Test func aMissingMemberIsAValidationError() async throws {
        let harness = try Harness()
        let reply = try await harness.run { client in
            try await client.cognito("InitiateAuth", ["AuthFlow": "USER_PASSWORD_AUTH", "AuthParameters": ["USERNAME": "alice@example.com"]])
        }
        #expect(reply.status == .badRequest)
        #expect(reply.errorType == "InvalidParameterException")
        #expect(reply.message?.contains("'clientId'") == true)
        #expect(reply.message?.contains("Member must not be null") == true)
        #expect(reply.message == "1 validation error detected: Value null at 'clientId' failed to satisfy constraint: Member must not be null")
    }

    @Test func unknownPoolsAndClientsAreResourceNotFound() async throws {
        let harness = try Harness()
        try await harness.run { client in
            let pool = try await client.cognito("DescribeUserPool", ["UserPoolId": "us-east-1_Nope00000"])
            #expect(pool.json == ["__type": "ResourceNotFoundException", "message": "User pool us-east-1_Nope00000 does not exist."])
            let clientReply = try await client.passwordAuth("alice@example.com", clientId: "nosuchclient00000000000000")
            #expect(clientReply.errorType == "ResourceNotFoundException")
            #expect(clientReply.message == "User pool client nosuchclient00000000000000 does not exist.")
        }
    }

    @Test func browsersMayCallTheAPIAcrossOrigins() async throws {
        let harness = try Harness()
        let preflight = try await harness.run { client in
            try await client.send(.options, "/", headers: [
                .origin: "http://localhost:3000", .accessControlRequestMethod: "POST",
                .accessControlRequestHeaders: "content-type,x-amz-target,x-amz-user-agent",
            ])
        }
        #expect(preflight.status == .noContent)
        #expect(preflight.headers[.accessControlAllowOrigin] == "http://localhost:3000")
        let allowed = (preflight.headers[.accessControlAllowHeaders] ?? "").lowercased()
        #expect(allowed.contains("x-amz-target") && allowed.contains("x-amz-user-agent"))
    }

    @Test func browsersMayReadTheErrorHeaders() async throws {
        let harness = try Harness()
        let reply = try await harness.run { client in
            try await client.send(.post, "/", raw: "{}", headers: [
                .xAmzTarget: "AWSCognitoIdentityProviderService.GetUser", .contentType: "application/x-amz-json-1.1",
                .origin: "http://localhost:3000",
            ])
        }
        #expect(reply.errorType == "InvalidParameterException")
        #expect(reply.headers[.accessControlAllowOrigin] == "http://localhost:3000")
        // Cognito exposes them on the answer itself, which is where browsers read Access-Control-Expose-Headers.
        let exposed = (reply.headers[.accessControlExposeHeaders] ?? "").lowercased()
        #expect(exposed.contains("x-amzn-errortype"))
        #expect(exposed.contains("x-amzn-requestid"))
    }
}
