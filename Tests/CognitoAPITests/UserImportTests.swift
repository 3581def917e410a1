import AuthCore
import FauxthTesting
import Foundation
import HTTPTypes
import Testing

/// User import jobs: a job's file goes to its `PreSignedUrl` on this server, a start goes through it at once, and
/// each user is made `RESET_REQUIRED` without a password; a header that is not the pool's fails the whole job.
@Suite struct UserImportTests {
    static let role = "arn:aws:iam::123456789012:role/CognitoImportRole"

    /// A job with `csv` uploaded to it, as AWS's guide uploads one; answers the job id.
    func uploadedJob(_ client: Client, _ csv: String) async throws -> String {
        let job = try await client.cognito("CreateUserImportJob", ["JobName": "import", "UserPoolId": .string(testPool), "CloudWatchLogsRoleArn": .string(Self.role)])
        let put = try await client.send(.put, try uploadPath(job), bytes: Array(csv.utf8), headers: [HTTPField.Name("x-amz-server-side-encryption")!: "aws:kms"])
        #expect(put.status == .ok)
        return try #require(job.json["UserImportJob"]?["JobId"]?.stringValue)
    }

    /// The path of a created job's `PreSignedUrl`, to send to the harness.
    func uploadPath(_ job: Reply) throws -> String {
        let url = try #require(job.json["UserImportJob"]?["PreSignedUrl"]?.stringValue)
        return String(url[try #require(url.range(of: "/_cognito/")).lowerBound...])
    }

    func header(_ client: Client) async throws -> [String] {
        try await client.cognito("GetCSVHeader", ["UserPoolId": .string(testPool)]).json["CSVHeader"]?.arrayValue?.compactMap(\.stringValue) ?? []
    }

    @Test func anImportedUserMustResetTheirPasswordFirst() async throws {
        let harness = try Harness(seed: cognitoSeed(users: []))
        try await harness.run { client in
            let columns = try await header(client)
            let values = ["cognito:username": "ada", "email": "ada@example.com", "email_verified": "TRUE", "cognito:mfa_enabled": "false"]
            let id = try await uploadedJob(client, columns.joined(separator: ",") + "\n" + columns.map { values[$0] ?? "" }.joined(separator: ",") + "\n")
            let started = try await client.cognito("StartUserImportJob", ["UserPoolId": .string(testPool), "JobId": .string(id)])
            #expect(started.json["UserImportJob"]?["Status"] == "Pending")
            let job = try await client.cognito("DescribeUserImportJob", ["UserPoolId": .string(testPool), "JobId": .string(id)]).json["UserImportJob"]
            #expect(job?["Status"] == "Succeeded" && job?["ImportedUsers"] == 1)
            let user = try #require(try harness.emulator.user(in: testPool, .username("ada")))
            #expect(user.emailVerifiedAt != nil && !user.hasPassword)
            let signIn = try await client.passwordAuth("ada", "anything1", clientId: testClient)
            #expect(signIn.json == ["__type": "PasswordResetRequiredException", "message": "Password reset required for the user"])
        }
    }

    @Test func aHeaderThatIsNotThePoolsFailsTheJob() async throws {
        let harness = try Harness(seed: cognitoSeed(users: []))
        try await harness.run { client in
            let id = try await uploadedJob(client, "cognito:username,email,email_verified,cognito:mfa_enabled,shoe_size\nada,ada@example.com,true,false,9\n")
            _ = try await client.cognito("StartUserImportJob", ["UserPoolId": .string(testPool), "JobId": .string(id)])
            let job = try await client.cognito("DescribeUserImportJob", ["UserPoolId": .string(testPool), "JobId": .string(id)]).json["UserImportJob"]
            #expect(job?["Status"] == "Failed" && job?["ImportedUsers"] == 0)
            #expect(job?["CompletionMessage"]?.stringValue?.contains("not the pool's: shoe_size") == true)
            #expect(try harness.emulator.user(in: testPool, .username("ada")) == nil)
        }
    }

    @Test func anUploadNeedsTheEncryptionHeaderAndAValidURL() async throws {
        let harness = try Harness(seed: cognitoSeed(users: []))
        try await harness.run { client in
            let job = try await client.cognito("CreateUserImportJob", ["JobName": "x", "UserPoolId": .string(testPool), "CloudWatchLogsRoleArn": .string(Self.role)])
            let id = try #require(job.json["UserImportJob"]?["JobId"]?.stringValue)
            let plain = try await client.send(.put, "/_cognito/user-import/\(testPool)/\(id)", bytes: Array("a".utf8))
            #expect(plain.status == .forbidden && plain.text.contains("SignatureDoesNotMatch"))
            let forged = try await client.send(.put, "/_cognito/user-import/\(testPool)/\(id)?X-Amz-Security-Token=forged", bytes: Array("a".utf8),
                                               headers: [HTTPField.Name("x-amz-server-side-encryption")!: "aws:kms"])
            #expect(forged.status == .forbidden && forged.text.contains("AccessDenied"))
            // A file past the 10 MB Fauxth takes is S3's EntityTooLarge, and the job keeps no file.
            let huge = try await client.send(.put, try uploadPath(job), bytes: [UInt8](repeating: UInt8(ascii: "a"), count: (10 << 20) + 1),
                                             headers: [HTTPField.Name("x-amz-server-side-encryption")!: "aws:kms"])
            #expect(huge.status == .badRequest && huge.text.contains("EntityTooLarge"))
            let start = try await client.cognito("StartUserImportJob", ["UserPoolId": .string(testPool), "JobId": .string(id)])
            #expect(start.json["__type"] == "PreconditionNotMetException")
        }
    }
}
