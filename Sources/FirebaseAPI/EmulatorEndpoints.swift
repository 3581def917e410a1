import AuthCore
import Foundation
import HTTPSupport
import Hummingbird

/// The Auth emulator's own endpoints (`/emulator/v1/projects/{p}[/tenants/{t}]/…`): clear accounts, and
/// the codes waiting to be used, which tests read instead of an inbox. The plaintext of an SMS code lives
/// only in the outbox (the store keeps its hash), so the listing reads it back from there.
enum EmulatorEndpoints {
    /// Clears the accounts of the project, or of one of its tenants: as in the emulator, where each tenant
    /// keeps its own store, a project's clear leaves its tenants' accounts. What Fauxth counted against
    /// them beside the database (send intervals, rate windows, lockouts) goes with them.
    static func deleteAccounts(_ call: FirebaseCall) async throws -> Response {
        let scope = try call.projects.scope(project: try call.projectId(), tenant: call.route.tenant)
        try call.emulator.deleteAllUsers(in: scope.coreTenant)
        try call.emulator.forgetTransientState(in: scope.coreTenant)
        return .json([:])
    }

    static func oobCodes(_ call: FirebaseCall) async throws -> Response {
        let scope = try call.projects.scope(project: try call.projectId(), tenant: call.route.tenant)
        let emulator = call.emulator, mailer = OobMailer(call: call, scope: scope)
        let codes = try emulator.liveCodes(in: scope.coreTenant, purposes: OobType.purposes).compactMap { record -> JSON? in
            guard let code = record.linkToken, let type = OobType(purpose: record.purpose) else { return nil }
            let sent = try emulator.messages(MessageFilter(channel: .email, to: record.target, purpose: record.purpose,
                                                           list: ListFilter(tenant: scope.coreTenant, limit: 50)))
            let link = sent.flatMap(\.links).first { $0.contains("oobCode=\(code)") } ?? mailer.link(type, code: code, continueURL: nil)
            var o: [String: JSON] = ["requestType": .string(type.rawValue), "oobCode": .string(code), "oobLink": .string(link)]
            if type == .verifyAndChangeEmail {
                let user = try record.userId.flatMap { try emulator.user(in: scope.coreTenant, id: $0) }
                o["email"] = .string(user?.email ?? record.target)
                o["newEmail"] = .string(record.target)
            } else {
                o["email"] = .string(record.target)
            }
            return .object(o)
        }
        return .json(["oobCodes": .array(codes)])
    }

    static func verificationCodes(_ call: FirebaseCall) async throws -> Response {
        let scope = try call.projects.scope(project: try call.projectId(), tenant: call.route.tenant)
        let emulator = call.emulator
        let codes = try emulator.liveCodes(in: scope.coreTenant, purposes: [.otp, .mfa]).compactMap { record -> JSON? in
            guard record.channel == .sms, let sessionInfo = record.linkToken else { return nil }
            let sent = try emulator.messages(MessageFilter(channel: .sms, to: record.target, list: ListFilter(tenant: scope.coreTenant, limit: 50)))
            guard let code = sent.flatMap(\.codes).first(where: record.isCode) else { return nil }
            return ["code": .string(code), "phoneNumber": .string(record.target), "sessionInfo": .string(sessionInfo)]
        }
        return .json(["verificationCodes": .array(codes)])
    }
}
