import AuthCore
import FauxthTesting
import Foundation
import HTTPTypes
import Testing

@Suite struct ConfigAndTenantTests {
    let configPath = "/identitytoolkit.googleapis.com/v2/projects/p/config"
    let tenantsPath = "/identitytoolkit.googleapis.com/v2/projects/p/tenants"

    @Test func aConfigPatchWithAnUpdateMaskChangesOnlyThosePaths() async throws {
        let harness = try Harness(seed: firebaseProject())
        try await harness.run { client in
            let patched = try await client.send(.patch, configPath + "?updateMask=signIn.allowDuplicateEmails", json: [
                "signIn": ["allowDuplicateEmails": true], "emailPrivacyConfig": ["enableImprovedEmailPrivacy": true],
            ], headers: owner)
            #expect(patched.status == .ok)
            #expect(patched.json["signIn"] == ["allowDuplicateEmails": true])
            #expect(patched.json["emailPrivacyConfig"] == ["enableImprovedEmailPrivacy": false])
            // `blockingFunctions` is `{}` until a function is registered, as the emulator's config has it.
            let expected: JSON = ["name": "projects/p/config", "signIn": ["allowDuplicateEmails": true], "blockingFunctions": [:],
                                  "emailPrivacyConfig": ["enableImprovedEmailPrivacy": false]]
            let got = try await client.send(.get, configPath, headers: owner)
            #expect(got.json == expected)
            // Identity Toolkit's UpdateConfig answers the same Config resource as GetConfig.
            #expect(patched.json == got.json)
        }
    }

    @Test func aConfigPatchWithoutAMaskReplacesTheConfig() async throws {
        let harness = try Harness(seed: firebaseProject(["config": ["emailPrivacyConfig": ["enableImprovedEmailPrivacy": true]]]))
        try await harness.run { client in
            let patched = try await client.send(.patch, configPath, json: ["signIn": ["allowDuplicateEmails": true]], headers: owner)
            #expect(patched.json["signIn"] == ["allowDuplicateEmails": true])
            #expect(patched.json["emailPrivacyConfig"] == ["enableImprovedEmailPrivacy": false])
            let notOwner = try await client.send(.patch, configPath + "?key=k", json: ["signIn": ["allowDuplicateEmails": false]])
            #expect(errorMessage(notOwner) == "INSUFFICIENT_PERMISSION")
        }
    }

    @Test func theEmulatorConfigEndpointUpdatesTheFieldsPresentAndTakesEffect() async throws {
        let harness = try Harness(seed: firebaseProject(["config": ["signIn": ["allowDuplicateEmails": true]]], users: [alice]))
        try await harness.run { client in
            let before = try await client.send(.post, accounts("signInWithPassword"), json: ["email": "ghost@example.com", "password": "secret123"])
            #expect(errorMessage(before) == "EMAIL_NOT_FOUND")
            let patched = try await client.send(.patch, "/emulator/v1/projects/p/config", json: ["emailPrivacyConfig": ["enableImprovedEmailPrivacy": true]])
            #expect(patched.json == ["signIn": ["allowDuplicateEmails": true], "emailPrivacyConfig": ["enableImprovedEmailPrivacy": true]])
            let after = try await client.send(.post, accounts("signInWithPassword"), json: ["email": "ghost@example.com", "password": "secret123"])
            #expect(errorMessage(after) == "INVALID_LOGIN_CREDENTIALS")
        }
    }

    @Test func getProjectsAnswersTheAuthorizedDomains() async throws {
        let harness = try Harness(seed: firebaseProject(["authorized_domains": ["app.example.com"]]))
        let reply = try await harness.run { client in try await client.send(.get, "/identitytoolkit.googleapis.com/v1/projects?key=k") }
        #expect(reply.json == ["projectId": "12345",
                               "authorizedDomains": ["localhost", "127.0.0.1", "app.example.com", "p.firebaseapp.com", "p.web.app"]])
    }

    @Test func aCreatedTenantStartsWithSignInMethodsOff() async throws {
        let harness = try Harness(seed: firebaseProject())
        try await harness.run { client in
            let created = try await client.send(.post, tenantsPath, json: ["displayName": "Acme"], headers: owner)
            #expect(created.status == .ok)
            let name = try #require(created.json["name"]?.stringValue)
            #expect(name.wholeMatch(of: #/projects\/p\/tenants\/acme-[a-z0-9]{5}/#) != nil)
            #expect(created.json["displayName"] == "Acme")
            #expect(created.json["allowPasswordSignup"] == false)
            #expect(created.json["mfaConfig"] == ["state": "DISABLED", "enabledProviders": []])
            let tenantId = String(name.split(separator: "/").last!)

            let signUp = try await client.send(.post, accounts("signUp"), json: ["tenantId": .string(tenantId), "email": "t@example.com", "password": "secret123"])
            #expect(errorMessage(signUp) == "OPERATION_NOT_ALLOWED")
            let signIn = try await client.send(.post, accounts("signInWithPassword"), json: ["tenantId": .string(tenantId), "email": "t@example.com",
                                                                                            "password": "secret123"])
            #expect(errorMessage(signIn) == "PASSWORD_LOGIN_DISABLED")
            let reset = try await client.send(.post, accounts("resetPassword"), json: ["tenantId": .string(tenantId), "oobCode": "any"])
            #expect(errorMessage(reset) == "PASSWORD_LOGIN_DISABLED", "the emulator's resetPassword checks password sign-in first")
            let anonymous = try await client.send(.post, accounts("signUp"), json: ["tenantId": .string(tenantId)])
            #expect(errorMessage(anonymous) == "ADMIN_ONLY_OPERATION")
            // The owner still creates its users.
            let adminMade = try await client.send(.post, "/identitytoolkit.googleapis.com/v1/projects/p/tenants/\(tenantId)/accounts",
                                                  json: ["email": "t@example.com", "password": "secret123"], headers: owner)
            #expect(adminMade.status == .ok)

            let bad = try await client.send(.post, tenantsPath, json: ["displayName": "a!"], headers: owner)
            #expect(bad.status == .badRequest)
            #expect(errorMessage(bad)?.hasPrefix("INVALID_ARGUMENT") == true)
        }
    }

    @Test func tenantsAreListedPatchedAndDeleted() async throws {
        let harness = try Harness(seed: firebaseProject())
        try await harness.run { client in
            let one = try await client.send(.post, tenantsPath, json: ["displayName": "Alpha"], headers: owner).json
            let two = try await client.send(.post, tenantsPath, json: ["displayName": "Beta", "allowPasswordSignup": true], headers: owner).json
            #expect(two["allowPasswordSignup"] == true)
            let names = [one["name"], two["name"]].compactMap { $0?.stringValue }.sorted()

            let firstPage = try await client.send(.get, tenantsPath + "?pageSize=1", headers: owner)
            #expect(firstPage.json["tenants"]?.arrayValue?.compactMap { $0["name"]?.stringValue } == [names[0]])
            let token = try #require(firstPage.json["nextPageToken"]?.stringValue)
            #expect(token == names[0].split(separator: "/").last.map(String.init), "the emulator's token is the last tenant's id")
            let secondPage = try await client.send(.get, tenantsPath + "?pageSize=1&pageToken=\(token)", headers: owner)
            #expect(secondPage.json["tenants"]?.arrayValue?.compactMap { $0["name"]?.stringValue } == [names[1]])
            #expect(secondPage.json["nextPageToken"] == nil)

            let alphaId = String(try #require(one["name"]?.stringValue).split(separator: "/").last!)
            let tenantPath = tenantsPath + "/" + alphaId
            let patched = try await client.send(.patch, tenantPath + "?updateMask=allowPasswordSignup",
                                                json: ["allowPasswordSignup": true, "enableAnonymousUser": true], headers: owner)
            #expect(patched.json["allowPasswordSignup"] == true)
            #expect(patched.json["enableAnonymousUser"] == false)
            #expect(try await client.send(.get, tenantPath, headers: owner).json == patched.json)

            let signUp = try await client.send(.post, accounts("signUp"), json: ["tenantId": .string(alphaId), "email": "a@example.com", "password": "secret123"])
            #expect(signUp.status == .ok)
            #expect(try claims(signUp.json["idToken"])["firebase"]?["tenant"] == .string(alphaId))
            let lookup = try await client.send(.post, accounts("lookup"), json: ["idToken": signUp.json["idToken"]!])
            #expect(lookup.json["users"]?[0]?["tenantId"] == .string(alphaId))

            #expect(try await client.send(.delete, tenantPath, headers: owner).json == [:])
            let gone = try await client.send(.get, tenantPath, headers: owner)
            #expect(gone.status == .notFound)
            #expect(errorMessage(gone) == "TENANT_NOT_FOUND")
        }
    }

    /// Without an `updateMask` a tenant PATCH replaces the tenant, unset fields taking production's
    /// defaults (the Firebase emulator's `updateTenant`, as the v2 config PATCH does).
    @Test func aTenantPatchWithoutAMaskReplacesTheTenant() async throws {
        let harness = try Harness(seed: firebaseProject())
        try await harness.run { client in
            let created = try await client.send(.post, tenantsPath, json: ["displayName": "Gamma", "allowPasswordSignup": true,
                                                                          "enableAnonymousUser": true], headers: owner).json
            let name = try #require(created["name"]?.stringValue)
            let patched = try await client.send(.patch, "/identitytoolkit.googleapis.com/v2/" + name, json: ["displayName": "Delta"], headers: owner)
            #expect(patched.status == .ok)
            #expect(patched.json["displayName"] == "Delta")
            #expect(patched.json["allowPasswordSignup"] == false)
            #expect(patched.json["enableAnonymousUser"] == false)
        }
    }

    @Test func aTenantWithAuthDisabledIsProjectDisabled() async throws {
        let off = Seed.TenantSeed(id: "p:off", dialect: .firebase, settings: ["tenant_config": ["allowPasswordSignup": true, "disableAuth": true]])
        let harness = try Harness(seed: firebaseProject(tenants: [off]))
        let reply = try await harness.run { client in
            try await client.send(.post, accounts("signUp"), json: ["tenantId": "off", "email": "x@example.com", "password": "secret123"])
        }
        #expect(errorMessage(reply) == "PROJECT_DISABLED")
    }

    @Test func anUnknownTenantIsCreatedWithEverythingOnAndKeepsItsUsersApart() async throws {
        let harness = try Harness(seed: firebaseProject())
        try await harness.run { client in
            let signUp = try await client.send(.post, accounts("signUp"), json: ["tenantId": "auto", "email": "t@example.com", "password": "secret123"])
            #expect(signUp.status == .ok)
            let outside = try await client.send(.post, accounts("signInWithPassword"), json: ["email": "t@example.com", "password": "secret123"])
            #expect(errorMessage(outside) == "EMAIL_NOT_FOUND")
            let inside = try await client.send(.post, accounts("signInWithPassword"), json: ["tenantId": "auto", "email": "t@example.com", "password": "secret123"])
            #expect(inside.json["localId"] == signUp.json["localId"])
            // Tenant refresh tokens refresh in their tenant.
            let refreshed = try await client.send(.post, tokenEndpoint, json: ["grant_type": "refresh_token", "refresh_token": inside.json["refreshToken"]!])
            #expect(try claims(refreshed.json["id_token"])["firebase"]?["tenant"] == "auto")
        }
        #expect(try harness.emulator.tenant("p:auto") != nil)
    }

    @Test func requestsNamingDifferentTenantsAreTenantIdMismatch() async throws {
        let harness = try Harness(seed: firebaseProject())
        try await harness.run { client in
            let pathAndBody = try await client.send(.post, "/identitytoolkit.googleapis.com/v1/projects/p/tenants/t1/accounts:lookup",
                                                    json: ["tenantId": "t2", "localId": ["x"]], headers: owner)
            #expect(errorMessage(pathAndBody) == "TENANT_ID_MISMATCH")
            let signUp = try await client.send(.post, accounts("signUp"), json: ["tenantId": "t1", "email": "m@example.com", "password": "secret123"])
            let tokenAndBody = try await client.send(.post, accounts("lookup"), json: ["idToken": signUp.json["idToken"]!, "tenantId": "t2"])
            #expect(errorMessage(tokenAndBody) == "TENANT_ID_MISMATCH")
            let custom = try await client.send(.post, accounts("signInWithCustomToken"), json: ["token": #"{"uid":"u","tenant_id":"t1"}"#, "tenantId": "t2"])
            #expect(errorMessage(custom) == "TENANT_ID_MISMATCH")
            // A signed token made for the project is refused in a tenant (the emulator's `tenant_id === state.tenantId`).
            func unsigned(_ claims: JSON) -> String {
                Base64URL.encode(Array(#"{"alg":"none","typ":"JWT"}"#.utf8)) + "." + Base64URL.encode(claims.serializedBytes()) + "."
            }
            let audience = JSON.string("https://identitytoolkit.googleapis.com/google.identity.identitytoolkit.v1.IdentityToolkit")
            let projectToken = try await client.send(.post, accounts("signInWithCustomToken"),
                                                     json: ["token": .string(unsigned(["uid": "u", "aud": audience])), "tenantId": "t1"])
            #expect(errorMessage(projectToken) == "TENANT_ID_MISMATCH")
            let tenantToken = try await client.send(.post, accounts("signInWithCustomToken"),
                                                    json: ["token": .string(unsigned(["uid": "u", "aud": audience, "tenant_id": "t1"])), "tenantId": "t1"])
            #expect(tenantToken.status == .ok)
        }
    }
}
