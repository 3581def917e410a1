import AuthCore
import Foundation
import HTTPSupport

/// Identity Toolkit's out-of-band actions: what each is called on the wire, in the action link, and in
/// the outbox.
enum OobType: String, CaseIterable, Sendable {
    case passwordReset = "PASSWORD_RESET"
    case verifyEmail = "VERIFY_EMAIL"
    case emailSignIn = "EMAIL_SIGNIN"
    case verifyAndChangeEmail = "VERIFY_AND_CHANGE_EMAIL"
    case recoverEmail = "RECOVER_EMAIL"

    /// The `mode` of the action link.
    var mode: String {
        switch self {
        case .passwordReset: "resetPassword"
        case .verifyEmail: "verifyEmail"
        case .emailSignIn: "signIn"
        case .verifyAndChangeEmail: "verifyAndChangeEmail"
        case .recoverEmail: "recoverEmail"
        }
    }

    init?(mode: String) {
        guard let type = Self.allCases.first(where: { $0.mode == mode }) else { return nil }
        self = type
    }

    var purpose: MessagePurpose {
        switch self {
        case .passwordReset: .resetPassword
        case .verifyEmail: .verifyEmail
        case .emailSignIn: .magicLink
        case .verifyAndChangeEmail: .emailChange
        case .recoverEmail: .recoverEmail
        }
    }

    init?(purpose: MessagePurpose) {
        guard let type = Self.allCases.first(where: { $0.purpose == purpose }) else { return nil }
        self = type
    }

    static let purposes = allCases.map(\.purpose)

    /// How long the code lives when the project sets no `oob_code_ttl`: an hour for a password reset
    /// (Firebase's documented lifetime), six hours for a sign-in link, three days for the rest.
    var defaultLifetime: TimeInterval {
        switch self {
        case .passwordReset: 3600
        case .emailSignIn: 6 * 3600
        case .verifyEmail, .verifyAndChangeEmail, .recoverEmail: 3 * 86400
        }
    }

    /// Subject and body of Firebase's default email template (`%APP_NAME%`, `%EMAIL%`, `%LINK%`…).
    var template: (subject: String, body: String) {
        switch self {
        case .verifyEmail:
            ("Verify your email for %APP_NAME%",
             "Hello %DISPLAY_NAME%,\n\nFollow this link to verify your email address.\n\n%LINK%\n\nIf you didn't ask to verify this address, you can ignore this email.\n\nThanks,\n\nYour %APP_NAME% team")
        case .passwordReset:
            ("Reset your password for %APP_NAME%",
             "Hello,\n\nFollow this link to reset your %APP_NAME% password for your %EMAIL% account.\n\n%LINK%\n\nIf you didn't ask to reset your password, you can ignore this email.\n\nThanks,\n\nYour %APP_NAME% team")
        case .emailSignIn:
            ("Sign in to %APP_NAME% requested at %REQUEST_TIME%",
             "Hello,\n\nWe received a request to sign in to %APP_NAME% using this email address. If you want to sign in with your %EMAIL% account, click this link:\n\n%LINK%\n\nIf you did not request this link, you can safely ignore this email.\n\nThanks,\n\nYour %APP_NAME% team")
        case .verifyAndChangeEmail:
            ("Verify your new email for %APP_NAME%",
             "Hello %DISPLAY_NAME%,\n\nFollow this link to verify your new email address.\n\n%LINK%\n\nIf you didn't ask to change your email, you can ignore this email.\n\nThanks,\n\nYour %APP_NAME% team")
        case .recoverEmail:
            ("Your sign-in email was changed for %APP_NAME%",
             "Hello %DISPLAY_NAME%,\n\nYour sign-in email for %APP_NAME% was changed to %NEW_EMAIL%.\n\nIf you didn't ask to change your email, follow this link to reset your sign-in email.\n\n%LINK%\n\nThanks,\n\nYour %APP_NAME% team")
        }
    }
}

/// Issues out-of-band codes and writes the emails that carry them.
struct OobMailer {
    let call: FirebaseCall
    let scope: FirebaseScope

    /// A code for `type`, sent to `email` unless `send` is false (admin-generated links). Answers the
    /// code and its action link.
    func issue(_ type: OobType, email: String, user: User?, newEmail: String? = nil, continueURL: String?, send: Bool = true) throws
        -> (code: String, link: String) {
        let emulator = call.emulator
        let oobCode = emulator.generator.string(54, alphabet: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        let lifetime = scope.settings.oobCodeTTL ?? type.defaultLifetime
        let target = type == .verifyAndChangeEmail ? (newEmail ?? email) : email
        if send {
            try emulator.admitSend(OutgoingMessage(tenant: scope.coreTenant, channel: .email, to: target, from: sender,
                                                   subject: type.template.subject.replacingOccurrences(of: "%APP_NAME%", with: scope.displayName),
                                                   text: "", purpose: type.purpose), userId: user?.id)
        }
        _ = try emulator.issueCode(in: scope.coreTenant, CodeRequest(userId: user?.id, purpose: type.purpose, channel: .email, target: target,
                                                                     lifetime: lifetime, linkToken: { $0 }, fixedCode: oobCode), origin: call.origin)
        let link = self.link(type, code: oobCode, continueURL: continueURL)
        if send { try deliver(type, to: target, user: user, code: oobCode, link: link, newEmail: newEmail) }
        return (oobCode, link)
    }

    /// `<host>/emulator/action?mode=…&lang=en&oobCode=…&apiKey=…[&continueUrl=…][&tenantId=…]`, the
    /// emulator's link shape.
    func link(_ type: OobType, code: String, continueURL: String?) -> String {
        var items = [URLQueryItem(name: "mode", value: type.mode), URLQueryItem(name: "lang", value: "en"),
                     URLQueryItem(name: "oobCode", value: code), URLQueryItem(name: "apiKey", value: call.linkAPIKey)]
        if let continueURL { items.append(URLQueryItem(name: "continueUrl", value: continueURL)) }
        if let tenant = scope.tenantId { items.append(URLQueryItem(name: "tenantId", value: tenant)) }
        var components = URLComponents(string: call.baseURL + "/emulator/action") ?? URLComponents()
        components.percentEncodedQueryItems = items.map { URLQueryItem(name: $0.name, value: $0.value.map(Self.encode)) }
        return components.string ?? call.baseURL
    }

    private func deliver(_ type: OobType, to recipient: String, user: User?, code: String, link: String, newEmail: String?) throws {
        let values = ["%APP_NAME%": scope.displayName, "%EMAIL%": recipient, "%LINK%": link, "%NEW_EMAIL%": newEmail ?? "",
                      "%DISPLAY_NAME%": user?.userMetadata["displayName"]?.stringValue ?? "",
                      "%REQUEST_TIME%": RFC3339.string(from: call.emulator.clock.now)]
        func fill(_ text: String) -> String { values.reduce(text) { $0.replacingOccurrences(of: $1.key, with: $1.value) } }
        let text = fill(type.template.body).replacingOccurrences(of: "Hello ,", with: "Hello,")
        let html = "<p>" + text.split(separator: "\n\n").map { paragraph in
            paragraph == link ? "<a href=\"\(HTMLPage.escape(link))\">\(HTMLPage.escape(link))</a>" : HTMLPage.escape(String(paragraph))
        }.joined(separator: "</p><p>") + "</p>"
        try call.emulator.deliver(OutgoingMessage(tenant: scope.coreTenant, channel: .email, to: recipient,
                                                  from: sender, subject: fill(type.template.subject),
                                                  text: text, html: html, purpose: type.purpose, codes: [code]), userId: user?.id)
    }

    /// The address Firebase's emails come from.
    var sender: String { "noreply@\(scope.projectId).firebaseapp.com" }

    static func encode(_ value: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return value.addingPercentEncoding(withAllowedCharacters: allowed) ?? value
    }

}
