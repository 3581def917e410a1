import AuthCore
import Foundation
import HTTPSupport
import HTTPTypes
import Hummingbird

/// Google's public keys for ID tokens, at the paths Google serves them: the JWKS
/// (`/www.googleapis.com/service_accounts/v1/jwk/securetoken@system.gserviceaccount.com`) and the
/// `{kid: certificate}` map (`/www.googleapis.com/robot/v1/metadata/x509/securetoken@system.gserviceaccount.com`),
/// for projects that sign their tokens (`id_token_signing: RS256`).
enum PublicKeys {
    static func jwks(_ call: FirebaseCall) async throws -> Response {
        let key = try call.emulator.keyring.rsaKey(FirebaseTokens.keyScope)
        let keys = JWKS(publishing: [key.verificationKey]).keys
        let body = JSON.array(keys.compactMap { jwk in (try? JSONEncoder().encode(jwk)).flatMap { try? JSON.parse($0) } })
        return .json(["keys": body], headers: cacheControl)
    }

    static func x509(_ call: FirebaseCall) async throws -> Response {
        let key = try call.emulator.keyring.rsaKey(FirebaseTokens.keyScope)
        let now = call.emulator.clock.now
        guard let kid = key.kid, let pem = try Certificate.pem(for: key, commonName: "securetoken.system.gserviceaccount.com",
                                                                 notBefore: now.addingTimeInterval(-86400), notAfter: now.addingTimeInterval(14 * 86400)) else {
            throw FirebaseError.internalError()
        }
        return .json([kid: .string(pem)], headers: cacheControl)
    }

    static let cacheControl: HTTPFields = [.cacheControl: "public, max-age=3600"]
}
