import AuthCore
import FauxthTesting
import Foundation
import HTTPTypes
import Testing

/// A pool's `Schema` as AWS takes it (`CreateUserPool`, `AddCustomAttributes`) and describes it
/// (`DescribeUserPool`'s `SchemaAttributes`, shaped as in the API reference's DescribeUserPool example).
@Suite struct PoolSchemaTests {
    static func attribute(_ schema: [JSON], _ name: String) -> JSON? { schema.first { $0["Name"]?.stringValue == name } }

    static func create(_ client: FauxthTesting.Client, schema: JSON) async throws -> Reply {
        try await client.cognito("CreateUserPool", ["PoolName": "schema", "Schema": schema])
    }

    @Test func describeUserPoolListsEveryAttributeAsAWSDoes() async throws {
        let harness = try Harness()
        try await harness.run { client in
            let created = try await Self.create(client, schema: [
                ["Name": "email", "AttributeDataType": "String", "Required": true, "Mutable": false],
                ["Name": "tenant", "AttributeDataType": "String"],
                ["Name": "level", "AttributeDataType": "Number", "NumberAttributeConstraints": ["MinValue": "1", "MaxValue": "9"]],
                ["Name": "secret", "AttributeDataType": "String", "DeveloperOnlyAttribute": true,
                 "StringAttributeConstraints": ["MinLength": "1", "MaxLength": "64"]],
            ])
            let id = try #require(created.json["UserPool"]?["Id"], "\(created.text)")
            let schema = try await client.cognito("DescribeUserPool", ["UserPoolId": id]).json["UserPool"]?["SchemaAttributes"]?.arrayValue ?? []
            #expect(schema.compactMap { $0["Name"]?.stringValue } == [
                "sub", "name", "given_name", "family_name", "middle_name", "nickname", "preferred_username", "profile", "picture", "website",
                "email", "email_verified", "gender", "birthdate", "zoneinfo", "locale", "phone_number", "phone_number_verified", "address",
                "updated_at", "custom:tenant", "custom:level", "dev:custom:secret",
            ])
            #expect(Self.attribute(schema, "sub") == ["Name": "sub", "AttributeDataType": "String", "DeveloperOnlyAttribute": false, "Mutable": false,
                                                      "Required": true, "StringAttributeConstraints": ["MinLength": "1", "MaxLength": "2048"]])
            #expect(Self.attribute(schema, "email") == ["Name": "email", "AttributeDataType": "String", "DeveloperOnlyAttribute": false,
                                                        "Mutable": false, "Required": true,
                                                        "StringAttributeConstraints": ["MinLength": "0", "MaxLength": "2048"]])
            #expect(Self.attribute(schema, "email_verified") == ["Name": "email_verified", "AttributeDataType": "Boolean",
                                                                 "DeveloperOnlyAttribute": false, "Mutable": true, "Required": false])
            #expect(Self.attribute(schema, "birthdate")?["StringAttributeConstraints"] == ["MinLength": "10", "MaxLength": "10"])
            #expect(Self.attribute(schema, "updated_at") == ["Name": "updated_at", "AttributeDataType": "Number", "DeveloperOnlyAttribute": false,
                                                             "Mutable": true, "Required": false, "NumberAttributeConstraints": ["MinValue": "0"]])
            #expect(Self.attribute(schema, "custom:tenant") == ["Name": "custom:tenant", "AttributeDataType": "String", "DeveloperOnlyAttribute": false,
                                                                "Mutable": true, "Required": false, "StringAttributeConstraints": [:]])
            #expect(Self.attribute(schema, "custom:level")?["NumberAttributeConstraints"] == ["MinValue": "1", "MaxValue": "9"])
            #expect(Self.attribute(schema, "dev:custom:secret") == ["Name": "dev:custom:secret", "AttributeDataType": "String",
                                                                    "DeveloperOnlyAttribute": true, "Mutable": true, "Required": false,
                                                                    "StringAttributeConstraints": ["MinLength": "1", "MaxLength": "64"]])
        }
    }

    /// AddCustomAttributes names the clash by the name asked for and the one that exists.
    @Test func addingAnAttributeThatExistsIsRefused() async throws {
        let harness = try Harness()
        try await harness.run { client in
            let created = try await Self.create(client, schema: [["Name": "secret", "AttributeDataType": "String", "DeveloperOnlyAttribute": true],
                                                                  ["Name": "tenant", "AttributeDataType": "String"]])
            let id = try #require(created.json["UserPool"]?["Id"])
            let dev = try await client.cognito("AddCustomAttributes", ["UserPoolId": id, "CustomAttributes": [["Name": "secret", "AttributeDataType": "String"]]])
            #expect(dev.json == ["__type": "InvalidParameterException", "message": "custom:secret: Existing attribute already has name dev:custom:secret."])
            let plain = try await client.cognito("AddCustomAttributes", ["UserPoolId": id, "CustomAttributes": [["Name": "tenant", "AttributeDataType": "Number"]]])
            #expect(plain.json == ["__type": "InvalidParameterException", "message": "custom:tenant: Existing attribute already has name custom:tenant."])
            let added = try await client.cognito("AddCustomAttributes", ["UserPoolId": id, "CustomAttributes": [["Name": "plan", "AttributeDataType": "String",
                                                                                                                "DeveloperOnlyAttribute": true]]])
            #expect(added.status == .ok)
            let schema = try await client.cognito("DescribeUserPool", ["UserPoolId": id]).json["UserPool"]?["SchemaAttributes"]?.arrayValue ?? []
            #expect(Self.attribute(schema, "dev:custom:plan")?["DeveloperOnlyAttribute"] == true)
        }
    }

    /// A developer-only attribute is the administrator's: `AdminUpdateUserAttributes` writes it, the user's
    /// own `UpdateUserAttributes` may not.
    @Test func aDeveloperOnlyAttributeIsWrittenByAnAdministratorOnly() async throws {
        let schema: JSON = [["Name": "dev:custom:score", "AttributeDataType": "Number", "DeveloperOnlyAttribute": true, "Mutable": true, "Required": false]]
        let harness = try Harness(seed: cognitoSeed(pool: ["Schema": schema]))
        try await harness.run { client in
            let admin = try await client.cognito("AdminUpdateUserAttributes", ["UserPoolId": .string(testPool), "Username": "dave",
                                                                              "UserAttributes": [["Name": "dev:custom:score", "Value": "7"]]])
            #expect(admin.status == .ok, "\(admin.text)")
            let tokens = try await client.signIn("dave", clientId: testClient)
            let mine = try await client.cognito("UpdateUserAttributes", ["AccessToken": tokens["AccessToken"] ?? .null,
                                                                        "UserAttributes": [["Name": "dev:custom:score", "Value": "9"]]])
            #expect(mine.errorType == "NotAuthorizedException")
            let user = try await client.cognito("AdminGetUser", ["UserPoolId": .string(testPool), "Username": "dave"])
            #expect(user.json["UserAttributes"]?.arrayValue?.contains(["Name": "dev:custom:score", "Value": "7"]) == true)
        }
    }

    /// (the schema entry, AWS's message) for `CreateUserPool` and `AddCustomAttributes` alike.
    static let invalidSchemas: [(JSON, String)] = [
        (["Name": "tier", "AttributeDataType": "Banana"], "1 validation error detected: Value 'Banana' at '%@.1.member.attributeDataType' failed to "
            + "satisfy constraint: Member must satisfy enum value set: [Boolean, Number, String, DateTime]"),
        (["Name": "tier"], "Invalid AttributeDataType input, consider using the provided AttributeDataType enum."),
        (["Name": "tier", "AttributeDataType": "String", "Required": true], "Required custom attributes are not supported currently."),
        (["Name": "tier", "AttributeDataType": "String", "StringAttributeConstraints": ["MinLength": "1", "MaxLength": "4096"]],
         "user.custom:tier: String attributes cannot have a length of more than 2048"),
        (["Name": "tier", "AttributeDataType": "String", "StringAttributeConstraints": ["MinLength": "9", "MaxLength": "3"]],
         "user.custom:tier: Max length cannot be less than min length."),
        (["Name": "tier", "AttributeDataType": "String", "StringAttributeConstraints": ["MinLength": "one"]],
         "Invalid StringAttributeConstraints for schema attribute custom:tier"),
        (["Name": "tier", "AttributeDataType": "Number", "NumberAttributeConstraints": ["MinValue": "10", "MaxValue": "1"]],
         "user.custom:tier: Max value cannot be less than min value."),
        (["Name": "tier", "AttributeDataType": "Number", "NumberAttributeConstraints": ["MaxValue": "lots"]],
         "Invalid NumberAttributeConstraints for schema attribute custom:tier"),
        (["Name": "a_name_of_21_letters_", "AttributeDataType": "String"], "1 validation error detected: Value 'a_name_of_21_letters_' at "
            + "'%@.1.member.name' failed to satisfy constraint: Member must have length less than or equal to 20"),
    ]

    @Test(arguments: invalidSchemas)
    func anInvalidCustomAttributeIsRefused(_ attribute: JSON, _ message: String) async throws {
        let harness = try Harness()
        try await harness.run { client in
            let pools = try harness.emulator.tenants().count
            let create = try await Self.create(client, schema: [attribute])
            #expect(create.json == ["__type": "InvalidParameterException", "message": .string(message.replacingOccurrences(of: "%@", with: "schema"))])
            #expect(try harness.emulator.tenants().count == pools, "no pool is made")
            let add = try await client.cognito("AddCustomAttributes", ["UserPoolId": .string(seedPool), "CustomAttributes": [attribute]])
            #expect(add.json == ["__type": "InvalidParameterException",
                                 "message": .string(message.replacingOccurrences(of: "%@", with: "customAttributes"))])
        }
    }

    /// A standard attribute keeps its type and cannot be made developer-only; it may become required or
    /// immutable, and take other length constraints.
    @Test func aStandardAttributeKeepsItsTypeAndVisibility() async throws {
        let harness = try Harness()
        try await harness.run { client in
            for change in [["Name": "email", "AttributeDataType": "Number"], ["Name": "email", "DeveloperOnlyAttribute": true]] as [JSON] {
                let refused = try await Self.create(client, schema: [change])
                #expect(refused.json == ["__type": "InvalidParameterException",
                                         "message": "You can not change AttributeDataType or set developerOnlyAttribute for standard schema attribute email"])
            }
            let allowed = try await Self.create(client, schema: [["Name": "name", "AttributeDataType": "String", "Required": true,
                                                                  "StringAttributeConstraints": ["MinLength": "2", "MaxLength": "64"]]])
            let schema = allowed.json["UserPool"]?["SchemaAttributes"]?.arrayValue ?? []
            #expect(Self.attribute(schema, "name") == ["Name": "name", "AttributeDataType": "String", "DeveloperOnlyAttribute": false, "Mutable": true,
                                                       "Required": true, "StringAttributeConstraints": ["MinLength": "2", "MaxLength": "64"]])
        }
    }
}
