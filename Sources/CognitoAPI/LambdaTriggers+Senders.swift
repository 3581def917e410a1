import AuthCore
import Foundation

/// The custom sender triggers (`CustomEmailSender`, `CustomSMSSender`): instead of sending a message,
/// Cognito gives the function the code (or temporary password) encrypted with the AWS Encryption SDK
/// under the pool's `KMSKeyID`, and the function sends it its own way.
///
/// Cognito invokes these functions asynchronously: what a sender answers, or that it fails or times out,
/// never changes the operation's answer. Fauxth waits for the call (so a test finds the message handed
/// over when the operation returns) but keeps that rule; the `hook.called` event shows how it went.
extension LambdaTriggers {
    static let senders = ["CustomEmailSender", "CustomSMSSender"]

    static func senderTrigger(for channel: Channel) -> String { channel == .email ? "CustomEmailSender" : "CustomSMSSender" }

    /// The function that sends a channel's messages, when the pool sets one.
    func sender(for channel: Channel) -> String? { function(Self.senderTrigger(for: channel)) }

    /// The pool's `KMSKeyID`.
    var kmsKeyId: String? { config["KMSKeyID"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 } }

    /// Calls a custom sender with the code encrypted; answers what the outbox says the message was handed
    /// to. `code` nil is a notification without one (`AccountTakeOverNotification`).
    func handToSender(_ function: String, channel: Channel, cause: CognitoMailer.Cause, user: User, code: String?) async -> String {
        let trigger = Self.senderTrigger(for: channel)
        let handedTo = "\(trigger) \(function)"
        guard let keyArn = kmsKeyId else {
            // Create/UpdateUserPool refuse a sender without a key; a seed can still lack one.
            emulator.record(.hookCalled, tenant: pool.id, userId: user.id, origin: origin, detail: [
                "dialect": "cognito", "point": .string(trigger), "uri": .string(function), "outcome": "not_called",
                "error": "the pool sets no LambdaConfig.KMSKeyID to encrypt the code with",
            ])
            return handedTo
        }
        var request: [String: JSON] = ["type": .string(channel == .email ? "customEmailSenderRequestV1" : "customSMSSenderRequestV1"),
                                       "clientMetadata": cause.clientMetadata, "userAttributes": Self.userAttributes(user, pool: pool)]
        if let code {
            let encrypted = EncryptionSDK.encrypt(Array(code.utf8), keyArn: keyArn, context: ["userpool-id": pool.id], generator: emulator.generator)
            request["code"] = .string(Data(encrypted).base64EncodedString())
        } else {
            request["code"] = .null
        }
        do {
            _ = try await invoke(trigger, source: "\(trigger)_\(cause.source)", userName: CognitoUsers.username(user, pool: pool),
                                 clientId: cause.clientId, request: request, userId: user.id)
        } catch {
            // Asynchronous in Cognito: a failed sender is the event's outcome, not the caller's error.
        }
        return handedTo
    }
}
