import AuthCore
import Foundation
import HTTPSupport

/// Groups, kept in the pool's settings, and memberships, kept on each user (`cognito:groups` in its app
/// metadata), which is where the tokens read them.
enum Groups {
    static let settable: Set = ["GroupName", "Description", "RoleArn", "Precedence"]

    /// The model's constraints on a group's fields, refused in AWS's validation words: a name of letters, marks,
    /// symbols, numbers and punctuation (no spaces), an IAM role ARN of 20 to 2,048 characters, a precedence of
    /// zero or more, a description of at most 2,048. Fauxth stored any value, and a junk ARN then reached tokens'
    /// `cognito:roles`.
    static func checkFields(_ fields: [String: JSON]) throws {
        func refuse(_ value: String, _ member: String, _ constraint: String) -> CognitoError {
            CognitoError.invalid("1 validation error detected: Value '\(value)' at '\(member)' failed to satisfy constraint: \(constraint)")
        }
        if let name = fields["GroupName"]?.stringValue, !name.isEmpty, name.wholeMatch(of: #/[\p{L}\p{M}\p{S}\p{N}\p{P}]+/#) == nil {
            throw refuse(name, "groupName", "Member must satisfy regular expression pattern: [\\p{L}\\p{M}\\p{S}\\p{N}\\p{P}]+")
        }
        if let arn = fields["RoleArn"]?.stringValue {
            guard (20...2048).contains(arn.count) else {
                throw refuse(arn, "roleArn", arn.count < 20 ? "Member must have length greater than or equal to 20"
                                                           : "Member must have length less than or equal to 2048")
            }
            // The model's ArnType pattern.
            let pattern = #/arn:[\w+=\/,.@-]+:[\w+=\/,.@-]+:([\w+=\/,.@-]*)?:[0-9]+:[\w+=\/,.@-]+(:[\w+=\/,.@-]+)?(:[\w+=\/,.@-]+)?/#
            guard arn.wholeMatch(of: pattern) != nil else { throw CognitoError.invalid("Invalid ARN format \(arn)") }
        }
        if let precedence = fields["Precedence"], precedence != .null {
            guard let value = precedence.intValue, value >= 0 else {
                throw refuse(precedence.intValue.map(String.init) ?? "\(precedence)", "precedence", "Member must have value greater than or equal to 0")
            }
        }
        if let description = fields["Description"]?.stringValue, description.count > 2048 {
            throw refuse(description, "description", "Member must have length less than or equal to 2048")
        }
    }

    static func manage(_ call: CognitoCall) async throws -> JSON {
        let poolId = try call.body.required("UserPoolId")
        if call.action == .listGroups {
            let groups = try call.pools.pool(poolId).groups
            return try page(call, groups, scope: "ListGroups \(poolId)", poolId: poolId)
        }
        let name = try call.body.required("GroupName")
        if [.createGroup, .updateGroup].contains(call.action) { try checkFields(call.body.fields) }
        let now = JSON.double(call.emulator.clock.now.timeIntervalSince1970)
        let answer: JSON = try call.pools.update(poolId) { settings in
            var groups = (settings["groups"]?.arrayValue ?? []).compactMap(\.objectValue)
            let index = groups.firstIndex { $0["GroupName"]?.stringValue == name }
            switch call.action {
            case .createGroup:
                guard index == nil else { throw CognitoError(.groupExists, "A group with the name \(name) already exists.") }
                var group = call.body.fields.filter { settable.contains($0.key) }
                group["CreationDate"] = now
                group["LastModifiedDate"] = now
                groups.append(group)
                settings["groups"] = .array(groups.map(JSON.object))
                return ["Group": described(group, poolId: poolId)]
            case .getGroup:
                guard let index else { throw CognitoError(.resourceNotFound, "Group not found.") }
                return ["Group": described(groups[index], poolId: poolId)]
            case .updateGroup:
                guard let index else { throw CognitoError(.resourceNotFound, "Group not found.") }
                groups[index].merge(call.body.fields.filter { settable.contains($0.key) }) { $1 }
                groups[index]["LastModifiedDate"] = now
                settings["groups"] = .array(groups.map(JSON.object))
                return ["Group": described(groups[index], poolId: poolId)]
            default:
                guard let index else { throw CognitoError(.resourceNotFound, "Group not found.") }
                groups.remove(at: index)
                settings["groups"] = .array(groups.map(JSON.object))
                return [:]
            }
        }
        if call.action == .deleteGroup {
            for user in try members(name, poolId: poolId, emulator: call.emulator) { try setGroups(user, removing: name, emulator: call.emulator) }
        }
        return answer
    }

    static func membership(_ call: CognitoCall) async throws -> JSON {
        let pool = try call.pool()
        if call.action == .adminListGroupsForUser {
            let user = try CognitoUsers.require(try call.body.required("Username"), pool: pool, emulator: call.emulator)
            let names = Set(CognitoUsers.groups(user))
            let groups = pool.groups.filter { names.contains($0["GroupName"]?.stringValue ?? "") }
            return try page(call, groups, scope: "AdminListGroupsForUser \(pool.id) \(user.id)", poolId: pool.id)
        }
        let name = try call.body.required("GroupName")
        guard pool.groups.contains(where: { $0["GroupName"]?.stringValue == name }) else { throw CognitoError(.resourceNotFound, "Group not found.") }
        if call.action == .listUsersInGroup {
            let paging = try Paging(call, .groups, scope: "ListUsersInGroup \(pool.id) \(name)")
            // One more than a page, in the store's id order: whether it comes back says whether there is a next page.
            let found = try members(name, poolId: pool.id, after: paging.after, limit: paging.size + 1, emulator: call.emulator)
            let users = found.prefix(paging.size)
            let next = found.count > paging.size ? users.last.map { paging.token(after: $0.id) } : nil
            return paging.answer("Users", users.map { .object(CognitoUsers.record($0, pool: pool)) }, next: next)
        }
        let user = try CognitoUsers.require(try call.body.required("Username"), pool: pool, emulator: call.emulator)
        if call.action == .adminAddUserToGroup {
            try setGroups(user, adding: name, emulator: call.emulator)
        } else {
            try setGroups(user, removing: name, emulator: call.emulator)
        }
        return [:]
    }

    /// The group's members in id order, after the id `after`: found by the store's query, not by reading the pool.
    static func members(_ group: String, poolId: String, after: String? = nil, limit: Int = Int.max, emulator: Emulator) throws -> [User] {
        try emulator.usersByID(in: poolId, after: after, limit: limit, matching: UserFilter(.appMetadataList(CognitoUsers.groupsKey), value: group))
    }

    /// The group Cognito makes for a pool's users of one identity provider, `<pool id>_<provider name>`, made if the
    /// pool lacks it: every user that provider signs up is in it, so their tokens carry it in `cognito:groups`.
    static func providerGroup(_ providerName: String, poolId: String, pools: CognitoPools) throws -> String {
        let name = "\(poolId)_\(providerName)"
        let now = JSON.double(pools.emulator.clock.now.timeIntervalSince1970)
        try pools.update(poolId) { settings in
            var groups = settings["groups"]?.arrayValue ?? []
            guard !groups.contains(where: { $0["GroupName"]?.stringValue == name }) else { return }
            groups.append(["GroupName": .string(name), "CreationDate": now, "LastModifiedDate": now])
            settings["groups"] = .array(groups)
        }
        return name
    }

    /// Adds or removes one group; adding twice is a no-op, as in Cognito.
    static func setGroups(_ user: User, adding: String? = nil, removing: String? = nil, emulator: Emulator) throws {
        var groups = CognitoUsers.groups(user).filter { $0 != removing }
        if let adding, !groups.contains(adding) { groups.append(adding) }
        try emulator.updateUser(in: user.tenant, id: user.id, UserChanges(appMetadata: [CognitoUsers.groupsKey: groups.isEmpty ? .null : .array(groups.map(JSON.string))]))
    }

    /// A page of groups, in name order.
    private static func page(_ call: CognitoCall, _ groups: [[String: JSON]], scope: String, poolId: String) throws -> JSON {
        let paging = try Paging(call, .groups, scope: scope)
        let (page, next) = paging.page(groups) { $0["GroupName"]?.stringValue ?? "" }
        return paging.answer("Groups", page.map { described($0, poolId: poolId) }, next: next)
    }

    static func described(_ group: [String: JSON], poolId: String) -> JSON {
        var o = group
        o["UserPoolId"] = .string(poolId)
        return .object(o)
    }

    /// The IAM roles a member of `names` carries in its ID token (`CreateGroup`'s `Precedence`): `cognito:roles`, every
    /// role of its groups, the best-placed group's first; `cognito:preferred_role`, the role of the group with the lowest
    /// precedence (a null one below any number), none when groups tied there name different roles.
    static func roles(of names: [String], in pool: CognitoPool) -> (roles: [String], preferred: String?) {
        let member = Set(names)
        let withRoles = pool.groups.filter { member.contains($0["GroupName"]?.stringValue ?? "") }
            .compactMap { group in group["RoleArn"]?.stringValue.map { (role: $0, precedence: group["Precedence"]?.intValue) } }
        func rank(_ precedence: Int?) -> Int { precedence ?? Int.max }
        let ordered = withRoles.enumerated().sorted { (rank($0.element.precedence), $0.offset) < (rank($1.element.precedence), $1.offset) }.map(\.element)
        var roles: [String] = []
        for entry in ordered where !roles.contains(entry.role) { roles.append(entry.role) }
        guard let best = ordered.first else { return ([], nil) }
        let tied = Set(ordered.filter { rank($0.precedence) == rank(best.precedence) }.map(\.role))
        return (roles, tied.count == 1 ? best.role : nil)
    }
}
