import Foundation

/// One SMTP conversation as a pure state machine: lines in, replies out, and a finished message
/// whenever a `DATA` ends. Accepts every sender and recipient (it is a sink), and any `AUTH PLAIN` or
/// `AUTH LOGIN` credentials, so an app configured with a username and password sends as it would to
/// its real provider. No TLS: `STARTTLS` is not offered.
public struct SMTPSession: Sendable {
    /// A message handed over by `DATA`.
    public struct Envelope: Sendable, Equatable {
        public var from: String
        public var recipients: [String]
        public var data: [UInt8]
    }

    public struct Step: Sendable, Equatable {
        public var replies: [String] = []
        public var delivered: Envelope?
        public var close = false
    }

    private enum State: Sendable { case command, data, authPlain, authLoginUser, authLoginPassword }

    public let hostname: String
    public let maxSize: Int
    private var state = State.command
    private var mailFrom: String?
    private var recipients: [String] = []
    private var data: [UInt8] = []
    private var tooLarge = false

    public init(hostname: String = "fauxth", maxSize: Int = 10 << 20) {
        self.hostname = hostname; self.maxSize = maxSize
    }

    public var greeting: String { "220 \(hostname) ESMTP Fauxth mail sink" }

    /// Handles one line, without its line ending.
    public mutating func receive(_ line: [UInt8]) -> Step {
        switch state {
        case .data: return receiveData(line)
        case .authPlain, .authLoginPassword:
            state = .command
            return Step(replies: ["235 2.7.0 Authentication successful"])
        case .authLoginUser:
            state = .authLoginPassword
            return Step(replies: ["334 UGFzc3dvcmQ6"])
        case .command: return command(String(decoding: line, as: UTF8.self))
        }
    }

    private mutating func command(_ line: String) -> Step {
        let verb = line.prefix { $0 != " " }.uppercased()
        let argument = line.dropFirst(verb.count).trimmingCharacters(in: .whitespaces)
        switch verb {
        case "EHLO":
            reset()
            return Step(replies: ["250-\(hostname) Hello \(argument)", "250-SIZE \(maxSize)", "250-8BITMIME", "250-SMTPUTF8",
                                  "250-AUTH PLAIN LOGIN", "250 HELP"])
        case "HELO":
            reset()
            return Step(replies: ["250 \(hostname)"])
        case "MAIL":
            guard let address = Self.path(argument, after: "FROM:") else { return Step(replies: ["501 5.5.4 Syntax: MAIL FROM:<address>"]) }
            guard mailFrom == nil else { return Step(replies: ["503 5.5.1 Error: nested MAIL command"]) }
            if let size = Self.sizeParameter(argument), size > maxSize {
                return Step(replies: ["552 5.3.4 Error: message file too big"])
            }
            mailFrom = address
            return Step(replies: ["250 2.1.0 Ok"])
        case "RCPT":
            guard mailFrom != nil else { return Step(replies: ["503 5.5.1 Error: need MAIL command"]) }
            guard let address = Self.path(argument, after: "TO:"), !address.isEmpty else {
                return Step(replies: ["501 5.5.4 Syntax: RCPT TO:<address>"])
            }
            recipients.append(address)
            return Step(replies: ["250 2.1.5 Ok"])
        case "DATA":
            guard mailFrom != nil else { return Step(replies: ["503 5.5.1 Error: need MAIL command"]) }
            guard !recipients.isEmpty else { return Step(replies: ["503 5.5.1 Error: need RCPT command"]) }
            state = .data
            return Step(replies: ["354 End data with <CR><LF>.<CR><LF>"])
        case "RSET":
            reset()
            return Step(replies: ["250 2.0.0 Ok"])
        case "NOOP": return Step(replies: ["250 2.0.0 Ok"])
        case "QUIT": return Step(replies: ["221 2.0.0 Bye"], close: true)
        case "VRFY": return Step(replies: ["252 2.0.0 Cannot VRFY user, but will accept message"])
        case "AUTH": return auth(argument)
        case "HELP": return Step(replies: ["214 2.0.0 EHLO HELO MAIL RCPT DATA RSET NOOP QUIT VRFY AUTH"])
        default: return Step(replies: ["500 5.5.2 Error: command not recognized"])
        }
    }

    private mutating func auth(_ argument: String) -> Step {
        let parts = argument.split(separator: " ")
        switch parts.first?.uppercased() {
        case "PLAIN"?:
            guard parts.count == 1 else { return Step(replies: ["235 2.7.0 Authentication successful"]) }
            state = .authPlain
            return Step(replies: ["334 "])
        case "LOGIN"?:
            guard parts.count == 1 else {
                state = .authLoginPassword
                return Step(replies: ["334 UGFzc3dvcmQ6"])
            }
            state = .authLoginUser
            return Step(replies: ["334 VXNlcm5hbWU6"])
        default: return Step(replies: ["504 5.5.4 Unrecognized authentication type"])
        }
    }

    private mutating func receiveData(_ line: [UInt8]) -> Step {
        if line == [UInt8(ascii: ".")] {
            defer { reset() }
            guard !tooLarge else { return Step(replies: ["552 5.3.4 Error: message file too big"]) }
            let envelope = Envelope(from: mailFrom ?? "", recipients: recipients, data: data)
            return Step(replies: ["250 2.0.0 Ok: queued"], delivered: envelope)
        }
        // Dot-stuffing: a line that starts with a dot was sent with one more.
        let content = line.first == UInt8(ascii: ".") ? Array(line.dropFirst()) : line
        if data.count + content.count + 2 > maxSize { tooLarge = true }
        if !tooLarge { data += content + [0x0D, 0x0A] }
        return Step()
    }

    private mutating func reset() {
        state = .command; mailFrom = nil; recipients = []; data = []; tooLarge = false
    }

    /// The address in `FROM:<a@b> SIZE=…` or `TO: <a@b>`; an empty path `<>` is the empty string.
    static func path(_ argument: String, after keyword: String) -> String? {
        guard argument.uppercased().hasPrefix(keyword) else { return nil }
        let rest = argument.dropFirst(keyword.count).trimmingCharacters(in: .whitespaces)
        if rest.hasPrefix("<"), let close = rest.firstIndex(of: ">") { return String(rest[rest.index(after: rest.startIndex)..<close]) }
        return rest.split(separator: " ").first.map(String.init)
    }

    static func sizeParameter(_ argument: String) -> Int? {
        argument.split(separator: " ").first { $0.uppercased().hasPrefix("SIZE=") }.flatMap { Int($0.dropFirst(5)) }
    }
}
