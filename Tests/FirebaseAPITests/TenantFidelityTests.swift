import AuthCore
import FauxthTesting
import Foundation
import HTTPTypes
import Testing

/// Tenants as the emulator's operations.ts treats them, where firebase-admin and the JS SDK with `auth.tenantId`
/// meet the difference.
@Suite struct TenantFidelityTests {
    let tenantsPath = "/identitytoolkit.googleapis.com/v2/projects/p/tenants"

    func tenant(_ client: Client, _ body: JSON) async throws -> String {
        let created = try await client.send(.post, tenantsPath, json: body, headers: owner)
        #expect(created.status == .ok, "\(created.text)")
        return String(try #require(created.json["name"]?.stringValue).split(separator: "/").last!)
    }

    /// firebase-admin-node's tenantAuth.createSessionCookie posts to `projects/{p}/tenants/{t}:createSessionCookie`.
    @Test func aTenantsSessionCookieIsServed() async throws {
        let harness = try Harness(seed: firebaseProject())
        try await harness.run { client in
            let id = try await tenant(client, ["displayName": "Cookies", "allowPasswordSignup": true])
            let signedUp = try await client.send(.post, accounts("signUp"), json: ["tenantId": .string(id), "email": "c@example.com",
                                                                                  "password": "secret123", "returnSecureToken": true])
            let cookie = try await client.send(.post, "/identitytoolkit.googleapis.com/v1/projects/p/tenants/\(id):createSessionCookie",
                                               json: ["idToken": signedUp.json["idToken"] ?? .null], headers: owner)
            #expect(cookie.status == .ok, "\(cookie.text)")
            #expect(try claims(cookie.json["sessionCookie"])["firebase"]?["tenant"] == .string(id))
        }
    }

    /// An mfaConfig without a state is off (createTenant fills it in); MANDATORY counts as on, as isMfaEnabled counts it.
    @Test func mfaStatesAreTheEmulators() async throws {
        let harness = try Harness(seed: firebaseProject())
        try await harness.run { client in
            let created = try await client.send(.post, tenantsPath, json: ["displayName": "Stateless", "mfaConfig": ["enabledProviders": ["PHONE_SMS"]]],
                                                headers: owner)
            #expect(created.json["mfaConfig"] == ["state": "DISABLED", "enabledProviders": ["PHONE_SMS"]])
            let mandatory = try await tenant(client, ["displayName": "Mandatory", "allowPasswordSignup": true,
                                                      "mfaConfig": ["state": "MANDATORY", "enabledProviders": ["PHONE_SMS"]]])
            let session = try await client.send(.post, accounts("signUp"), json: ["tenantId": .string(mandatory), "email": "m@example.com",
                                                                                 "password": "secret123", "returnSecureToken": true])
            let verified = try await client.send(.post, "/identitytoolkit.googleapis.com/v1/projects/p/tenants/\(mandatory)/accounts:update",
                                                 json: ["localId": session.json["localId"] ?? .null, "emailVerified": true], headers: owner)
            #expect(verified.status == .ok, "\(verified.text)")
            let start = try await client.send(.post, mfa("mfaEnrollment:start"), json: [
                "tenantId": .string(mandatory), "idToken": session.json["idToken"] ?? .null, "phoneEnrollmentInfo": ["phoneNumber": "+15555550199"],
            ])
            #expect(start.status == .ok, "SMS enrolment is open in a MANDATORY tenant: \(start.text)")
        }
    }

    @Test func linkingAPasswordNeedsPasswordSignInAndListingNeedsAuthOn() async throws {
        let harness = try Harness(seed: firebaseProject())
        try await harness.run { client in
            let id = try await tenant(client, ["displayName": "Anons", "enableAnonymousUser": true])
            let anonymous = try await client.send(.post, accounts("signUp"), json: ["tenantId": .string(id), "returnSecureToken": true])
            let link = try await client.send(.post, accounts("signUp"), json: ["tenantId": .string(id), "idToken": anonymous.json["idToken"] ?? .null,
                                                                              "email": "a@example.com", "password": "secret123"])
            #expect(errorMessage(link) == "OPERATION_NOT_ALLOWED")
            let off = try await tenant(client, ["displayName": "Offline", "disableAuth": true])
            let listed = try await client.send(.get, "/identitytoolkit.googleapis.com/v1/projects/p/tenants/\(off)/accounts:batchGet", headers: owner)
            #expect(errorMessage(listed) == "PROJECT_DISABLED")
        }
    }

    /// firebase-admin's updateTenant and updateProjectConfig read back what they wrote (an empty passwordPolicyConfig made
    /// firebase-admin-node throw; the config's mfa was not answered at all).
    @Test func whatAnAdminSetsIsAnsweredBack() async throws {
        let harness = try Harness(seed: firebaseProject())
        try await harness.run { client in
            let id = try await tenant(client, ["displayName": "Policies"])
            let policy: JSON = ["enforcementState": "ENFORCE", "passwordPolicyVersions": [["customStrengthOptions": ["minPasswordLength": 8]]]]
            let patched = try await client.send(.patch, tenantsPath + "/\(id)?updateMask=passwordPolicyConfig", json: ["passwordPolicyConfig": policy],
                                                headers: owner)
            #expect(patched.json["passwordPolicyConfig"] == policy, "\(patched.text)")
            let config = "/identitytoolkit.googleapis.com/v2/projects/p/config"
            let mfaOn: JSON = ["state": "ENABLED", "providerConfigs": [["state": "ENABLED", "totpProviderConfig": ["adjacentIntervals": 5]]]]
            _ = try await client.send(.patch, config + "?updateMask=mfa", json: ["mfa": mfaOn], headers: owner)
            let read = try await client.send(.get, config, headers: owner)
            #expect(read.json["mfa"] == mfaOn)
            #expect(read.json["signIn"]?["allowDuplicateEmails"] == false)
        }
    }
}
