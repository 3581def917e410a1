import AuthCore
import Foundation
import HTTPSupport
import Hummingbird

/// Features GoTrue ships switched off by default and Fauxth does not serve yet, answered exactly as a GoTrue with them off answers
/// (`internal/api/middleware.go` `require…Enabled`, `sso.go`, `token_web3.go`), so clients get the
/// vendor's own error. Routes behind a token check it first, as GoTrue's middleware order does.
enum Disabled {
    typealias Handler = @Sendable (Call) async throws -> Response

    static let customProviders: Handler = { _ in throw SupabaseError(status: .notFound, code: .featureDisabled, message: "Custom OAuth providers are disabled") }

    static let scim: Handler = { _ in throw SupabaseError(status: .notFound, code: .featureDisabled, message: "SCIM server is disabled") }

    /// `grant_type=web3` with neither Solana nor Ethereum enabled.
    static func web3() -> SupabaseError {
        SupabaseError(status: .unprocessableContent, code: .web3ProviderDisabled, message: "Web3 provider is disabled")
    }

    /// The same answer, after GoTrue's `requireAuthentication` has let the caller through.
    static func signedIn(_ answer: @escaping Handler) -> Handler {
        { call in
            _ = try Authentication(emulator: call.emulator).require(call.request, project: try call.project())
            return try await answer(call)
        }
    }

    /// The same answer, after GoTrue's `requireAdminCredentials`.
    static func admin(_ answer: @escaping Handler) -> Handler {
        { call in
            try Authentication(emulator: call.emulator).requireAdmin(call.request, project: try call.project())
            return try await answer(call)
        }
    }
}
