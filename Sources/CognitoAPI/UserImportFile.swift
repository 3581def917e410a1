import AuthCore
import Foundation

/// An import job's file, read as Cognito reads it ("Creating the user import CSV file"): a header with every column
/// of `GetCSVHeader` once, in any order; then a user a line, values separated by commas (`\,` is a comma in a value),
/// trimmed, empty for none. Each user is made `RESET_REQUIRED`, without a password: they choose one through
/// `ForgotPassword`, which needs the verified email or phone number the file must give them.
struct UserImportFile {
    let pool: CognitoPool
    let call: CognitoCall

    struct Outcome {
        var imported = 0, skipped = 0, failed = 0
        /// A line per user, as AWS logs them to CloudWatch (`[SUCCEEDED] Line Number 2 - The import succeeded.`).
        var log: [String] = []
        /// Why the whole file was refused (a header that is not the pool's), if it was.
        var jobFailed: String?
    }

    func run(_ csv: String) async throws -> Outcome {
        var outcome = Outcome()
        let lines = csv.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).map(String.init)
        guard let headerLine = lines.first, !headerLine.trimmingCharacters(in: .whitespaces).isEmpty else {
            outcome.jobFailed = "The CSV file is empty: its first line must be the header GetCSVHeader answers."
            return outcome
        }
        let header = Self.fields(headerLine), expected = UserImport.columns(pool)
        let missing = expected.filter { !header.contains($0) }, unknown = header.filter { !expected.contains($0) }
        guard missing.isEmpty, unknown.isEmpty, Set(header).count == header.count else {
            outcome.jobFailed = "The CSV header must have each column GetCSVHeader answers once"
                + (missing.isEmpty ? "" : "; missing: \(missing.joined(separator: ", "))")
                + (unknown.isEmpty ? "" : "; not the pool's: \(unknown.joined(separator: ", "))") + "."
            return outcome
        }
        for (offset, line) in lines.enumerated().dropFirst() where !line.trimmingCharacters(in: .whitespaces).isEmpty {
            let number = offset + 1
            let values = Self.fields(line)
            do {
                guard values.count == header.count else { throw CognitoError.invalid("The line has \(values.count) values for \(header.count) columns.") }
                if try await importUser(Dictionary(zip(header, values)) { first, _ in first }) {
                    outcome.imported += 1
                    outcome.log.append("[SUCCEEDED] Line Number \(number) - The import succeeded.")
                } else {
                    outcome.skipped += 1
                    outcome.log.append("[SKIPPED] Line Number \(number) - The user already exists.")
                }
            } catch let error as CognitoError {
                outcome.failed += 1
                outcome.log.append("[FAILED] Line Number \(number) - \(error.message)")
            }
        }
        return outcome
    }

    /// A line's values: split at commas that are not escaped (`\,`), each trimmed.
    static func fields(_ line: String) -> [String] {
        var fields: [String] = [], current = "", escaped = false
        for character in line {
            if escaped {
                current.append(character == "," ? "," : "\\\(character)")
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == "," {
                fields.append(current)
                current = ""
            } else {
                current.append(character)
            }
        }
        if escaped { current.append("\\") }
        fields.append(current)
        return fields.map { $0.trimmingCharacters(in: .whitespaces) }
    }

    /// Makes the user of one line: true when made, false when the username is taken (skipped, not failed); a line
    /// Cognito would refuse throws, with the reason its log gives.
    func importUser(_ row: [String: String]) async throws -> Bool {
        let emulator = call.emulator
        let username = row["cognito:username"] ?? ""
        guard !username.isEmpty, !username.contains(where: \.isWhitespace) else {
            throw CognitoError.invalid("cognito:username must be given, without spaces or tabs.")
        }
        if try CognitoUsers.find(username, pool: pool, emulator: emulator) != nil { return false }
        let mfa = (row["cognito:mfa_enabled"] ?? "").lowercased()
        switch pool.mfaConfiguration {
        case "ON": guard mfa == "true" else { throw CognitoError.invalid("cognito:mfa_enabled must be true: the user pool requires MFA.") }
        case "OFF": guard mfa == "false" else { throw CognitoError.invalid("cognito:mfa_enabled must be false: the user pool has MFA off.") }
        default: guard mfa == "true" || mfa == "false" else { throw CognitoError.invalid("cognito:mfa_enabled must be true or false.") }
        }
        let verified = { (attribute: String) in CognitoUsers.isTrue(row[attribute + "_verified"] ?? "") }
        guard pool.autoVerifiedAttributes.contains(where: verified) else {
            throw CognitoError.invalid("The User Record does not set any of the auto verified attributes to true. (Example: email_verified to true).")
        }
        for attribute in ["email", "phone_number"] where verified(attribute) && (row[attribute] ?? "").isEmpty {
            throw CognitoError.invalid("\(attribute)_verified is true but \(attribute) is empty.")
        }
        let schema = PoolSchema.described(pool.pool["Schema"]?.arrayValue ?? [])
        if let lacking = schema.first(where: { $0["Required"]?.boolValue == true && $0["Name"] != "sub"
                                              && (row[$0["Name"]?.stringValue ?? ""] ?? "").isEmpty })?["Name"]?.stringValue {
            throw CognitoError.invalid("The required attribute \(lacking) is empty.")
        }
        let attributes = row.filter { !$0.key.hasPrefix("cognito:") && !$0.key.hasSuffix("_verified") && !$0.value.isEmpty }
            .sorted { $0.key < $1.key }.map { (name: $0.key, value: $0.value) }
        var new = try SignUp.newUser(username: username, attributes: attributes, pool: pool, emulator: emulator)
        new.emailVerified = verified("email") && new.email != nil
        new.phoneVerified = verified("phone_number") && new.phone != nil
        new.appMetadata[CognitoUsers.statusKey] = "RESET_REQUIRED"
        if mfa == "true" {
            guard new.phone != nil else { throw CognitoError.invalid("cognito:mfa_enabled is true but phone_number is empty.") }
            new.appMetadata[CognitoUsers.enabledMFAKey] = ["SMS_MFA"]
        }
        do {
            _ = try SignUp.create(new, pool: pool, emulator: emulator, origin: call.origin, event: .userCreated)
        } catch let error as CognitoError where error == .usernameTaken {
            return false
        }
        return true
    }
}
