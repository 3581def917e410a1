import Foundation
import HTTPSupport
import Hummingbird

extension FirebaseDialect {
    typealias Handler = @Sendable (FirebaseCall) async throws -> Response

    /// Each operation's handler, one exhaustive switch: a new operation cannot be forgotten.
    static func handler(for operation: FirebaseOperation) -> Handler {
        switch operation {
        case .signUp, .createAccount: SignUp.handle
        case .signInWithPassword: SignIn.password
        case .signInWithCustomToken: SignIn.customToken
        case .signInWithEmailLink: SignIn.emailLink
        case .signInWithIdp: SignInWithIdp.handle
        case .signInWithPhoneNumber: Phone.signIn
        case .sendVerificationCode: Phone.sendCode
        case .sendOobCode: Oob.send
        case .resetPassword: Oob.resetPassword
        case .update: Update.handle
        case .lookup: Lookup.lookup
        case .delete: Lookup.delete
        case .createAuthUri: Lookup.createAuthUri
        case .batchCreate: Admin.batchCreate
        case .batchDelete: Admin.batchDelete
        case .batchGet: Admin.batchGet
        case .query: Admin.query
        case .createSessionCookie: Admin.createSessionCookie
        case .getProjects: Lookup.projects
        case .recaptchaParams: Lookup.recaptchaParams
        case .recaptchaConfig: Lookup.recaptchaConfig
        case .passwordPolicy: SignUp.passwordPolicy
        case .revokeToken: SignInWithIdp.revokeToken
        case .mfaEnrollmentStart: MFA.startEnrollment
        case .mfaEnrollmentFinalize: MFA.finalizeEnrollment
        case .mfaEnrollmentWithdraw: MFA.withdraw
        case .mfaSignInStart: MFA.startSignIn
        case .mfaSignInFinalize: MFA.finalizeSignIn
        case .passkeyEnrollmentStart: Passkeys.startEnrollment
        case .passkeyEnrollmentFinalize: Passkeys.finalizeEnrollment
        case .passkeySignInStart: Passkeys.startSignIn
        case .passkeySignInFinalize: Passkeys.finalizeSignIn
        case .getConfig, .emulatorGetConfig: ProjectConfig.get
        case .updateConfig, .emulatorUpdateConfig: ProjectConfig.update
        case .createTenant: Tenants.create
        case .listTenants: Tenants.list
        case .getTenant: Tenants.get
        case .updateTenant: Tenants.update
        case .deleteTenant: Tenants.delete
        case .createOIDCConfig, .createSAMLConfig: ProviderConfigs.create
        case .listOIDCConfigs, .listSAMLConfigs: ProviderConfigs.list
        case .getOIDCConfig, .getSAMLConfig: ProviderConfigs.get
        case .updateOIDCConfig, .updateSAMLConfig: ProviderConfigs.update
        case .deleteOIDCConfig, .deleteSAMLConfig: ProviderConfigs.delete
        case .refresh: SecureToken.refresh
        case .emulatorDeleteAccounts: EmulatorEndpoints.deleteAccounts
        case .emulatorOobCodes: EmulatorEndpoints.oobCodes
        case .emulatorVerificationCodes: EmulatorEndpoints.verificationCodes
        case .action: ActionPage.handle
        case .authHandler: ProviderWidget.handle
        case .authIframe: ProviderWidget.helperFrame
        case .publicKeysX509: PublicKeys.x509
        case .publicKeysJWKS: PublicKeys.jwks
        }
    }
}
