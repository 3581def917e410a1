import Foundation

/// The operations a user who has a verified second factor may do only from a session that proved it
/// (`aal2`): the assurance rules, written once (GoTrue's `UserUpdate`, `validateFactors` and
/// `UnenrollFactor` apply them).
public enum AssuranceRequirement: String, Sendable, Equatable, CaseIterable {
    /// A new email, phone or password.
    case credentialChange = "credential_change"
    /// Another factor, once one is verified.
    case factorEnrollment = "factor_enrollment"
    /// Removing a verified factor.
    case verifiedFactorRemoval = "verified_factor_removal"
}

extension Emulator {
    /// The highest assurance level `userId` can reach: `aal2` once a factor is verified, else `aal1`.
    public func highestAssurance(in tenant: String, userId: String) throws -> String {
        try factors(in: tenant, userId: userId).contains(where: \.verified) ? "aal2" : "aal1"
    }

    /// Refuses (`insufficientAAL`) what `requirement` guards when `session` is below the level its user
    /// can reach. `factor` is the factor being removed, for `verifiedFactorRemoval`.
    public func requireAssurance(_ requirement: AssuranceRequirement, session: Session, factor: Factor? = nil) throws {
        guard session.aal != "aal2" else { return }
        let needed = switch requirement {
        case .credentialChange, .factorEnrollment: try highestAssurance(in: session.tenant, userId: session.userId) == "aal2"
        case .verifiedFactorRemoval: factor?.verified ?? false
        }
        if needed { throw AuthError.insufficientAAL(requirement) }
    }
}
