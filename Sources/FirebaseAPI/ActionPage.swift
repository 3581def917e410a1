import AuthCore
import Foundation
import HTTPSupport
import HTTPTypes
import Hummingbird
import NIOCore

/// The page behind `/emulator/action`, filled from `web/firebase-action.html`.
struct ActionPages: Sendable {
    let page: @Sendable (String) -> String?

    struct Content {
        var title: String
        var message: String
        var detail = ""
        var isError = false
        /// The reset form's hidden fields, when the page asks for a new password.
        var form: [String: String]?
        var continueURL: String?
    }

    func render(_ content: Content, status: HTTPResponse.Status = .ok) -> Response {
        let template = page("web/firebase-action.html") ?? "<!doctype html><title>{{title}}</title><h1>{{heading}}</h1><p>{{message}}</p>"
        var values = ["title": content.title, "heading": content.title, "message": content.message, "detail": content.detail,
                      "class": content.isError ? "error" : "", "continueUrl": content.continueURL ?? ""]
        values.merge(content.form ?? [:]) { $1 }
        let html = HTMLPage.fill(template, values: values, sections: ["form": content.form != nil, "continue": content.continueURL != nil])
        return HTMLPage.response(html, status: status)
    }
}

/// `GET|POST /emulator/action`: where the links in Firebase's emails lead. Unlike the Firebase emulator's
/// JSON answer, a person gets a page: the result of a verification, a form for a new password, or what
/// to do with a sign-in link. A client asking for JSON gets the emulator's own answers. Redirects to
/// `continueUrl` on an app scheme are captured as deep links.
enum ActionPage {
    static func handle(_ call: FirebaseCall) async throws -> Response {
        var params: [String: String] = [:]
        for (key, value) in call.request.uri.queryParameters { params[String(key)] = String(value) }
        for (key, value) in call.body.fields { params[key] = value.stringValue }
        let wantsJSON = (call.request.headers[.accept] ?? "").contains("application/json")
        let scope = try scopeOfCode(call, params: params)
        // The link's own `continueUrl` is only followed where a link could have been asked for it: anyone can
        // change it in a link they were sent, and the page is on the emulator's origin (no open redirect).
        let continueURL = params["continueUrl"].flatMap { $0.isEmpty || (try? Oob.checkContinueURL($0, scope: scope)) == nil ? nil : $0 }
        guard let mode = params["mode"].flatMap(OobType.init(mode:)), let code = params["oobCode"], !code.isEmpty else {
            return failure(call, "This link is incomplete: it needs a mode and an oobCode.", json: wantsJSON)
        }
        let actions = OobActions(call: call, scope: scope)
        do {
            switch mode {
            case .passwordReset:
                guard let password = params["newPassword"], !password.isEmpty else {
                    let record = try actions.live(code)
                    if wantsJSON {
                        return .json(["authEmulator": ["error": "missing \"newPassword\" query parameter",
                                                       "instructions": .string("To reset the password for \(record.target), send an HTTP GET request to the following URL with a new password as the newPassword query parameter."),
                                                       "urlTemplate": .string(call.request.uri.description + "&newPassword=NEW_PASSWORD_HERE")]], status: .badRequest)
                    }
                    return call.pages.render(.init(title: "Reset your password", message: "for \(record.target)",
                                                   form: ["oobCode": code, "apiKey": params["apiKey"] ?? "", "tenantId": params["tenantId"] ?? "",
                                                          "continueUrl": continueURL ?? ""]))
                }
                let user = try actions.resetPassword(code, newPassword: password)
                return try done(call, scope: scope, title: "Password changed", message: "You can now sign in with your new password.",
                                email: user.email, userId: user.id, continueURL: continueURL, json: wantsJSON, redirect: false)
            case .verifyEmail, .verifyAndChangeEmail, .recoverEmail:
                let (type, user) = try actions.apply(code)
                let message = type == .verifyEmail ? "Your email has been verified." : "Your sign-in email is now \(user.email ?? "")."
                return try done(call, scope: scope, title: type == .verifyEmail ? "Email verified" : "Email updated", message: message,
                                email: user.email, userId: user.id, continueURL: continueURL, json: wantsJSON, redirect: true)
            case .emailSignIn:
                guard let continueURL else {
                    let record = try actions.live(code)
                    return call.pages.render(.init(title: "Finish signing in in the app",
                                                   message: "The app completes the sign-in of \(record.target) with signInWithEmailLink and this link.",
                                                   detail: "oobCode: \(code)"))
                }
                // Handed to the app whether the code still works or not, as the emulator's page and Firebase's hosted one
                // do: the app's `signInWithEmailLink` finds out (`auth/invalid-action-code`), and shows its own answer.
                let record = try? actions.live(code)
                // The app gets the link's parameters on its own URL, as the emulator hands them over.
                var components = URLComponents(string: continueURL) ?? URLComponents()
                let copied = ["mode", "oobCode", "apiKey", "lang", "tenantId"].compactMap { key in params[key].map { URLQueryItem(name: key, value: $0) } }
                components.queryItems = (components.queryItems ?? []) + copied
                let location = components.string ?? continueURL
                try call.emulator.captureIfAppLink(location, tenant: scope.coreTenant, source: "firebase-action", userId: record?.userId)
                return Response(status: .seeOther, headers: [.location: location])
            }
        } catch let error as FirebaseError where [.invalidOOBCode, .expiredOOBCode, .userNotFound, .userDisabled, .weakPassword].contains(error.code) {
            let reason = error.code == .weakPassword ? "Password should be at least \(max(6, scope.settings.passwordMinLength)) characters."
                : "Your request has expired or the link has already been used."
            return failure(call, reason, json: wantsJSON)
        }
    }

    /// The project and tenant the link's code was issued in (links from admin calls carry no API key of
    /// their project); the link's own `apiKey` and `tenantId` when the code is unknown.
    private static func scopeOfCode(_ call: FirebaseCall, params: [String: String]) throws -> FirebaseScope {
        if let code = params["oobCode"], let tenant = try call.emulator.tenantOfCode(linkToken: code) {
            let parts = tenant.split(separator: ":", maxSplits: 1).map(String.init)
            return try call.projects.scope(project: parts[0], tenant: parts.count == 2 ? parts[1] : nil)
        }
        let project = try call.projects.project(forAPIKey: params["apiKey"] ?? "")
        return try call.projects.scope(project: project, tenant: params["tenantId"].flatMap { $0.isEmpty ? nil : $0 })
    }

    private static func done(_ call: FirebaseCall, scope: FirebaseScope, title: String, message: String, email: String?, userId: String,
                             continueURL: String?, json: Bool, redirect: Bool) throws -> Response {
        if let continueURL { try call.emulator.captureIfAppLink(continueURL, tenant: scope.coreTenant, source: "firebase-action", userId: userId) }
        if let continueURL, redirect { return Response(status: .seeOther, headers: [.location: continueURL]) }
        if json { return .json(["authEmulator": ["success": .string(message), "email": email.map(JSON.string) ?? .null]]) }
        return call.pages.render(.init(title: title, message: message, detail: email ?? "", continueURL: continueURL))
    }

    private static func failure(_ call: FirebaseCall, _ reason: String, json: Bool) -> Response {
        if json { return .json(["authEmulator": ["error": .string(reason)]], status: .badRequest) }
        return call.pages.render(.init(title: "Try again", message: reason, isError: true), status: .badRequest)
    }
}
