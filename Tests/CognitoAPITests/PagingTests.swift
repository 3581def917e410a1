import AuthCore
import FauxthTesting
import Foundation
import HTTPTypes
import Testing

/// Every list operation pages as the AWS model says: a page size within the operation's bounds
/// (`Limit` or `MaxResults`), a token for the next page while there is one, and AWS's
/// `InvalidParameterException` for a size out of bounds or a token the service did not issue.
@Suite struct PagingTests {
    /// One list operation: what it is called with, its size and token members, the result member, the
    /// name each item is known by, and how many items the pool holds once `populate` ran.
    struct Listing: Sendable, CustomTestStringConvertible {
        var operation: String
        var body: JSON
        var sizeKey = "Limit"
        var tokenKey = "NextToken"
        var resultKey: String
        var nameKey: String
        var maximum = 60
        var testDescription: String { operation }
    }

    static let pool = JSON.string(testPool)
    static let listings: [Listing] = [
        Listing(operation: "ListGroups", body: ["UserPoolId": pool], resultKey: "Groups", nameKey: "GroupName"),
        Listing(operation: "ListUsersInGroup", body: ["UserPoolId": pool, "GroupName": "group0"], resultKey: "Users", nameKey: "Username"),
        Listing(operation: "AdminListGroupsForUser", body: ["UserPoolId": pool, "Username": "dave"], resultKey: "Groups", nameKey: "GroupName"),
        Listing(operation: "ListIdentityProviders", body: ["UserPoolId": pool], sizeKey: "MaxResults", resultKey: "Providers", nameKey: "ProviderName"),
        Listing(operation: "ListResourceServers", body: ["UserPoolId": pool], sizeKey: "MaxResults", resultKey: "ResourceServers",
                nameKey: "Identifier", maximum: 50),
        Listing(operation: "ListUserPoolClients", body: ["UserPoolId": pool], sizeKey: "MaxResults", resultKey: "UserPoolClients", nameKey: "ClientId"),
        Listing(operation: "ListUsers", body: ["UserPoolId": pool], tokenKey: "PaginationToken", resultKey: "Users", nameKey: "Username"),
    ]

    /// Five of everything: groups (dave in all of them), members of `group0`, identity providers,
    /// resource servers, clients and users.
    static func populate(_ client: FauxthTesting.Client) async throws {
        for i in 0..<5 {
            _ = try await client.cognito("CreateGroup", ["UserPoolId": pool, "GroupName": .string("group\(i)")])
            _ = try await client.cognito("AdminAddUserToGroup", ["UserPoolId": pool, "Username": "dave", "GroupName": .string("group\(i)")])
            _ = try await client.cognito("CreateIdentityProvider", ["UserPoolId": pool, "ProviderName": .string("Idp\(i)"), "ProviderType": "OIDC",
                                                                    "ProviderDetails": ["client_id": "x", "authorize_scopes": "openid"]])
            _ = try await client.cognito("CreateResourceServer", ["UserPoolId": pool, "Identifier": .string("https://api\(i).example.com"), "Name": "api"])
            if i > 0 {
                _ = try await client.cognito("CreateUserPoolClient", ["UserPoolId": pool, "ClientName": .string("client\(i)")])
                _ = try await client.cognito("AdminCreateUser", ["UserPoolId": pool, "Username": .string("user\(i)"), "MessageAction": "SUPPRESS"])
                _ = try await client.cognito("AdminAddUserToGroup", ["UserPoolId": pool, "Username": .string("user\(i)"), "GroupName": "group0"])
            }
        }
    }

    static func call(_ client: FauxthTesting.Client, _ listing: Listing, size: Int? = nil, token: JSON? = nil) async throws -> Reply {
        var body = listing.body.objectValue ?? [:]
        if let size { body[listing.sizeKey] = .int(size) }
        if let token { body[listing.tokenKey] = token }
        return try await client.cognito(listing.operation, .object(body))
    }

    @Test(arguments: listings)
    func pagesOfTwoCoverEveryItemOnce(_ listing: Listing) async throws {
        let harness = try Harness(seed: cognitoSeed())
        try await harness.run { client in
            try await Self.populate(client)
            let all = try await Self.call(client, listing).json[listing.resultKey]?.arrayValue ?? []
            #expect(all.count == 5, "\(listing.operation): \(all.count) items")
            var seen: [String] = [], token: JSON?, pages = 0
            repeat {
                let reply = try await Self.call(client, listing, size: 2, token: token)
                let items = try #require(reply.json[listing.resultKey]?.arrayValue, "\(reply.text)")
                #expect(items.count <= 2)
                seen += items.compactMap { $0[listing.nameKey]?.stringValue }
                token = reply.json[listing.tokenKey]
                pages += 1
            } while token != nil && pages < 10
            #expect(pages == 3)
            #expect(seen.count == 5 && Set(seen).count == 5, "\(seen)")
            #expect(Set(seen) == Set(all.compactMap { $0[listing.nameKey]?.stringValue }))
        }
    }

    @Test(arguments: listings)
    func aSizeOutOfBoundsOrAForeignTokenIsRefused(_ listing: Listing) async throws {
        let harness = try Harness(seed: cognitoSeed())
        try await harness.run { client in
            try await Self.populate(client)
            let member = listing.sizeKey.prefix(1).lowercased() + listing.sizeKey.dropFirst()
            let tooMany = try await Self.call(client, listing, size: listing.maximum + 1)
            #expect(tooMany.json == ["__type": "InvalidParameterException", "message": .string(
                "1 validation error detected: Value '\(listing.maximum + 1)' at '\(member)' failed to satisfy constraint: "
                    + "Member must have value less than or equal to \(listing.maximum)")])
            let negative = try await Self.call(client, listing, size: -1)
            #expect(negative.errorType == "InvalidParameterException")
            #expect(negative.message?.contains("Member must have value greater than or equal to") == true)

            let forged = try await Self.call(client, listing, size: 2, token: "bm90IGEgdG9rZW4=")
            #expect(forged.errorType == "InvalidParameterException", "\(forged.text)")
            let garbage = try await Self.call(client, listing, size: 2, token: "%%%")
            #expect(garbage.errorType == "InvalidParameterException")
        }
    }

    /// A token belongs to the listing that issued it: a `ListGroups` token does not page `ListResourceServers`.
    @Test func aTokenOfAnotherListingIsRefused() async throws {
        let harness = try Harness(seed: cognitoSeed())
        try await harness.run { client in
            try await Self.populate(client)
            let groups = try await client.cognito("ListGroups", ["UserPoolId": Self.pool, "Limit": 1])
            let token = try #require(groups.json["NextToken"])
            let servers = try await client.cognito("ListResourceServers", ["UserPoolId": Self.pool, "MaxResults": 1, "NextToken": token])
            #expect(servers.errorType == "InvalidParameterException")
            #expect(servers.message?.hasPrefix("Paging marker ") == true, "\(servers.text)")
        }
    }
}
