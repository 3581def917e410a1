import AuthCore
import Foundation

/// A pool's `Schema`, checked as `CreateUserPool` and `AddCustomAttributes` check it and described as
/// `DescribeUserPool` lists it (`SchemaAttributes`, as in the API reference's DescribeUserPool example): every
/// standard attribute with its type, mutability and constraints, then the custom ones (`custom:X`, or
/// `dev:custom:X` when developer-only). The messages are Cognito's (as moto's tests record them).
enum PoolSchema {
    struct Standard {
        var name: String
        var type: String
        var mutable = true
        var required = false
        var constraints: JSON?
    }

    static let anyLength: JSON = ["MinLength": "0", "MaxLength": "2048"]

    /// The standard attributes, in DescribeUserPool's order.
    static let standard: [Standard] = [
        Standard(name: "sub", type: "String", mutable: false, required: true, constraints: ["MinLength": "1", "MaxLength": "2048"]),
    ] + ["name", "given_name", "family_name", "middle_name", "nickname", "preferred_username", "profile", "picture", "website", "email"]
        .map { Standard(name: $0, type: "String", constraints: anyLength) } + [
        Standard(name: "email_verified", type: "Boolean"),
        Standard(name: "gender", type: "String", constraints: anyLength),
        Standard(name: "birthdate", type: "String", constraints: ["MinLength": "10", "MaxLength": "10"]),
        Standard(name: "zoneinfo", type: "String", constraints: anyLength), Standard(name: "locale", type: "String", constraints: anyLength),
        Standard(name: "phone_number", type: "String", constraints: anyLength), Standard(name: "phone_number_verified", type: "Boolean"),
        Standard(name: "address", type: "String", constraints: anyLength),
        Standard(name: "updated_at", type: "Number", constraints: ["MinValue": "0"]),
    ]

    /// The data types, in the order Cognito's validation message lists them.
    static let dataTypes = ["Boolean", "Number", "String", "DateTime"]

    static func standard(named name: String) -> Standard? { standard.first { $0.name == name } }

    /// Whether `name` is a custom attribute's (`custom:X`, or `dev:custom:X` for a developer-only one).
    static func isCustom(_ name: String) -> Bool { name.hasPrefix("custom:") || name.hasPrefix("dev:custom:") }

    // MARK: Checking

    /// One entry of `CreateUserPool`'s `Schema` (`list` "schema") or of `AddCustomAttributes`'
    /// `CustomAttributes` (`list` "customAttributes", where every entry is custom), `index` counted from 1,
    /// checked and completed as the pool keeps it.
    static func checked(_ entry: JSON, index: Int, list: String) throws -> JSON {
        guard var o = entry.objectValue else { throw CognitoError(.serialization, "Structure expected for \(list) member \(index)") }
        let path = "\(list).\(index).member"
        guard let given = o["Name"]?.stringValue, !given.isEmpty else {
            throw CognitoError.invalid("1 validation error detected: Value null at '\(path).name' failed to satisfy constraint: Member must not be null")
        }
        guard given.count <= 20 else {
            throw CognitoError.invalid("1 validation error detected: Value '\(given)' at '\(path).name' failed to satisfy constraint: "
                                       + "Member must have length less than or equal to 20")
        }
        if let type = o["AttributeDataType"], !(type.stringValue.map(dataTypes.contains) ?? false) {
            throw CognitoError.invalid("1 validation error detected: Value '\(type.stringValue ?? type.serialized())' at '\(path).attributeDataType' "
                                       + "failed to satisfy constraint: Member must satisfy enum value set: [\(dataTypes.joined(separator: ", "))]")
        }
        // The verification flags are not schema attributes one declares: given, they are custom names (aws-cdk#14699).
        if list == "schema", !isCustom(given), let standard = standard(named: given), !given.hasSuffix("_verified") {
            try checkStandard(&o, standard)
        } else {
            try checkCustom(&o, base: given.hasPrefix("custom:") ? String(given.dropFirst("custom:".count)) : given)
        }
        try checkConstraints(o)
        return .object(o)
    }

    private static func checkStandard(_ o: inout [String: JSON], _ standard: Standard) throws {
        guard (o["AttributeDataType"]?.stringValue ?? standard.type) == standard.type, o["DeveloperOnlyAttribute"]?.boolValue != true else {
            throw CognitoError.invalid("You can not change AttributeDataType or set developerOnlyAttribute for standard schema attribute \(standard.name)")
        }
        o["AttributeDataType"] = .string(standard.type)
        o["DeveloperOnlyAttribute"] = false
        o["Mutable"] = o["Mutable"] ?? .bool(standard.mutable)
        o["Required"] = o["Required"] ?? .bool(standard.required)
    }

    private static func checkCustom(_ o: inout [String: JSON], base: String) throws {
        guard o["AttributeDataType"] != nil else {
            throw CognitoError.invalid("Invalid AttributeDataType input, consider using the provided AttributeDataType enum.")
        }
        guard o["Required"]?.boolValue != true else { throw CognitoError.invalid("Required custom attributes are not supported currently.") }
        let developerOnly = o["DeveloperOnlyAttribute"]?.boolValue ?? false
        o["Name"] = .string((developerOnly ? "dev:custom:" : "custom:") + base)
        o["DeveloperOnlyAttribute"] = .bool(developerOnly)
        o["Mutable"] = o["Mutable"] ?? true
        o["Required"] = false
    }

    /// Lengths are whole numbers from 0 to 2048, values whole numbers, neither bound above the other.
    private static func checkConstraints(_ o: [String: JSON]) throws {
        let name = o["Name"]?.stringValue ?? ""
        switch o["AttributeDataType"]?.stringValue {
        case "String"?:
            guard let constraints = o["StringAttributeConstraints"]?.objectValue else { return }
            let bounds = try ["MinLength", "MaxLength"].map { try number(constraints[$0], kind: "StringAttributeConstraints", of: name, signed: false) }
            if bounds.contains(where: { ($0 ?? 0) > 2048 }) { throw CognitoError.invalid("user.\(name): String attributes cannot have a length of more than 2048") }
            if let min = bounds[0], let max = bounds[1], min > max { throw CognitoError.invalid("user.\(name): Max length cannot be less than min length.") }
        case "Number"?:
            guard let constraints = o["NumberAttributeConstraints"]?.objectValue else { return }
            let bounds = try ["MinValue", "MaxValue"].map { try number(constraints[$0], kind: "NumberAttributeConstraints", of: name, signed: true) }
            if let min = bounds[0], let max = bounds[1], min > max { throw CognitoError.invalid("user.\(name): Max value cannot be less than min value.") }
        default:
            return
        }
    }

    private static func number(_ value: JSON?, kind: String, of name: String, signed: Bool) throws -> Int? {
        guard let value else { return nil }
        guard let number = value.stringValue.flatMap({ Int($0) }) ?? value.intValue, signed || number >= 0 else {
            throw CognitoError.invalid("Invalid \(kind) for schema attribute \(name)")
        }
        return number
    }

    // MARK: Values

    /// What is wrong with `value` for the attribute `name` under the pool's schema (as `described`), if anything:
    /// a String longer or shorter than its `StringAttributeConstraints` allow (counted in UTF-16 units, as the Java
    /// service counts), a Number that is not a whole number or outside its `NumberAttributeConstraints`. The reason
    /// follows Cognito's "Attributes did not conform to the schema: <name>: <reason>"; AWS's own wording of these
    /// reasons is not known.
    static func problem(with value: String, of name: String, in schema: [JSON]) -> String? {
        guard let attribute = schema.first(where: { $0["Name"]?.stringValue == name }) else { return nil }
        func bound(_ constraints: String, _ key: String) -> Int? {
            attribute[constraints]?[key].flatMap { $0.stringValue.flatMap { Int($0) } ?? $0.intValue }
        }
        switch attribute["AttributeDataType"]?.stringValue {
        case "String"?:
            let length = value.utf16.count
            if let max = bound("StringAttributeConstraints", "MaxLength"), length > max { return "String must be no longer than \(max) characters" }
            if let min = bound("StringAttributeConstraints", "MinLength"), length < min { return "String must be no shorter than \(min) characters" }
        case "Number"?:
            guard let number = Int(value) else { return "Number must be a whole number" }
            if let max = bound("NumberAttributeConstraints", "MaxValue"), number > max { return "Number must be no greater than \(max)" }
            if let min = bound("NumberAttributeConstraints", "MinValue"), number < min { return "Number must be no less than \(min)" }
        default:
            break
        }
        return nil
    }

    // MARK: Describing

    /// `SchemaAttributes`: every standard attribute (as the pool's own entry overrides it), then the custom ones.
    static func described(_ entries: [JSON]) -> [JSON] {
        func own(_ name: String) -> [String: JSON]? { entries.first { $0["Name"]?.stringValue == name }?.objectValue }
        let standards: [JSON] = standard.map { standard in
            var o: [String: JSON] = ["Name": .string(standard.name), "AttributeDataType": .string(standard.type), "DeveloperOnlyAttribute": false,
                                     "Mutable": .bool(standard.mutable), "Required": .bool(standard.required)]
            if let constraints = standard.constraints { o[standard.type == "Number" ? "NumberAttributeConstraints" : "StringAttributeConstraints"] = constraints }
            o.merge(own(standard.name) ?? [:]) { $1 }
            return .object(o)
        }
        let customs: [JSON] = entries.compactMap(\.objectValue).filter { isCustom($0["Name"]?.stringValue ?? "") }.map { entry in
            var o: [String: JSON] = ["DeveloperOnlyAttribute": .bool(entry["Name"]?.stringValue?.hasPrefix("dev:") == true), "Mutable": true,
                                     "Required": false, "AttributeDataType": "String"]
            o.merge(entry) { $1 }
            if o["AttributeDataType"] == "String", o["StringAttributeConstraints"] == nil { o["StringAttributeConstraints"] = [:] }
            return .object(o)
        }
        return standards + customs
    }
}
