import Foundation
import Synchronization

/// A dialect's share in a tenant's policies: the vendor's own behaviour (defaults and the tenant's
/// vendor settings), and which rate limits the dialect applies.
public struct VendorPolicies: Sendable {
    public var base: TenantPolicies
    public var applied: Set<PolicyLimit>

    public init(base: TenantPolicies, applied: Set<PolicyLimit>) { self.base = base; self.applied = applied }
}

/// A wait between two messages of one kind, as a vendor setting asks: the setting's window and name,
/// and what the wait is counted per.
public struct SendCooldown: Sendable, Equatable {
    public var window: TimeInterval
    /// What shares one clock.
    public var per: Per
    /// The setting, named in the suppressed message's reason.
    public var source: String

    public enum Per: Sendable, Equatable {
        /// The user's stamp of this kind of message (`User.sentAt`), as GoTrue reads its `*_sent_at`
        /// (`GOTRUE_SMTP_MAX_FREQUENCY`, `GOTRUE_SMS_MAX_FREQUENCY`; its recovery and magic-link emails share
        /// one). It is kept with the account, so the wait holds across a restart or a snapshot, and a new password,
        /// which clears the stamps (`UserChanges.passwordRetiresCodes`), ends it, as in GoTrue.
        case user(SentMessage)
        /// The recipient's last message of this flow (Firebase's `phone_resend_interval`, per number),
        /// on the core's rate windows.
        case recipient(flow: String)
    }

    public init(window: TimeInterval, per: Per, source: String) {
        self.window = window; self.per = per; self.source = source
    }
}

/// Derives a tenant's vendor policies, for `EmulatorOptions.policyDerivers`.
public typealias PolicyDeriver = @Sendable (Tenant) -> VendorPolicies

extension Emulator {
    /// The tenant's effective policies: its vendor's, with its `policies` setting laid over them, as the tenant is
    /// stored (the caller's copy only names it). Kept per tenant until any tenant changes (`tenantGeneration`): every
    /// request with a rate limit asks, and comparing the caller's settings with the kept ones, member by member, was
    /// most of a limit check.
    public func policies(for tenant: Tenant) throws -> TenantPolicies {
        let generation = tenantGeneration
        if let cached = policyCache.withLock({ $0[tenant.id] }), cached.generation == generation { return cached.policies }
        let policies = try derivePolicies(for: try self.tenant(tenant.id) ?? tenant)
        policyCache.withLock { $0[tenant.id] = (generation, policies) }
        return policies
    }

    /// The policies `tenant`'s settings give, worked out now: for settings not stored yet, which are refused here
    /// when malformed rather than at the first sign-in.
    func derivePolicies(for tenant: Tenant) throws -> TenantPolicies {
        let vendor = policyDerivers[tenant.dialect]?(tenant) ?? VendorPolicies(base: TenantPolicies(), applied: PolicyLimit.common)
        return try vendor.base.overlaid(with: tenant.settings["policies"], allowed: vendor.applied)
    }

    /// The effective policies of the tenant with `id`.
    public func policies(in id: String) throws -> TenantPolicies { try policies(for: try requireTenant(id)) }

    /// Replaces a tenant's `policies` setting (checked first; nothing changes when it is refused) and
    /// answers the effective policies. Lockouts and counts already running keep running.
    @discardableResult
    public func setPolicies(in id: String, _ setting: JSON) throws -> TenantPolicies {
        try changeTenantSettings(id) { $0["policies"] = setting.isNull ? nil : setting }
        return try policies(in: id)
    }

    // MARK: Rate limits

    /// Counts a request against a per-client limit of the tenant (`token_per_ip`, `verify_per_ip`,
    /// `otp_per_ip`, `anonymous_per_ip`), or throws `rateLimited`. `client` is what tells clients apart:
    /// the IP address, or a header the vendor is told to trust (GoTrue's `GOTRUE_RATE_LIMIT_HEADER`); a
    /// request with neither counts as one client.
    public func checkRequestLimit(_ limit: PolicyLimit, in tenant: Tenant, client: String?) throws {
        guard let rate = try policies(for: tenant).limits[limit] else { return }
        try rateLimiter.consume("\(tenant.id):policy:\(limit.rawValue):\(client ?? "-")", limit: rate, at: clock.now)
    }

    /// Refuses a message when the last one of the same kind went less than `cooldown.window` ago (to the
    /// user, or to the recipient, as `cooldown.per` says), keeping it in the outbox as suppressed, with
    /// `cooldown.source` as the reason, and throwing `sendCooldown`. A recipient's wait starts here.
    public func checkCooldown(_ cooldown: SendCooldown, for message: OutgoingMessage, userId: String?) throws {
        guard cooldown.window > 0 else { return }
        let wait: TimeInterval
        switch cooldown.per {
        case .user(let kind):
            guard let userId, let last = try user(in: message.tenant, id: userId)?.sentAt[kind] else { return }
            wait = cooldown.window - clock.now.timeIntervalSince(last)
            guard wait > 0 else { return }
        case .recipient(let flow):
            let key = "\(message.tenant):cooldown:\(flow):\(message.to.lowercased())"
            do {
                try rateLimiter.consume(key, limit: RateLimit(count: 1, window: cooldown.window), at: clock.now)
                return
            } catch AuthError.rateLimited(let retryAfter) {
                wait = retryAfter
            }
        }
        try suppress(message, userId: userId, reason: "\(cooldown.source): the last one went less than \(Int(cooldown.window)) s ago")
        throw AuthError.sendCooldown(message.channel, retryAfter: wait)
    }

    /// Admits one code message under the tenant's send limits (`resend_cooldown` and `code_deliveries`
    /// per recipient, then `email_sent` or `sms_sent` per tenant), counting it against each only when
    /// all allow it. A refused message is kept in the outbox as suppressed, with the limit that
    /// refused it, and `sendLimited` is thrown: no code is issued for it. `scope` groups the codes a
    /// cooldown spans (by default the message's purpose); `perRecipient: false` counts the message
    /// against the tenant's quota only (codes the user cannot ask for again, such as MFA codes).
    public func admitSend(_ message: OutgoingMessage, userId: String?, scope: String? = nil, perRecipient: Bool = true) throws {
        let tenant = try requireTenant(message.tenant)
        let policies = try policies(for: tenant)
        let limits = policies.limits
        let recipient = message.to.lowercased()
        let quota: PolicyLimit = message.channel == .email ? .emailSent : .smsSent
        let checks: [(PolicyLimit, String)] = [
            (.resendCooldown, "\(tenant.id):policy:resend_cooldown:\(scope ?? message.purpose.rawValue):\(recipient)"),
            (.codeDeliveries, "\(tenant.id):policy:code_deliveries:\(recipient)"),
            (quota, "\(tenant.id):policy:\(quota.rawValue)"),
        ]
        let counted = checks.compactMap { limit, key in
            perRecipient || !limit.isPerRecipient ? limits[limit].map { (limit, key, $0) } : nil
        }
        guard !counted.isEmpty else { return }
        guard let refused = rateLimiter.consumeAll(counted.map { ($0.1, $0.2) }, at: clock.now) else { return }
        let (limit, _, rate) = counted[refused.index]
        try suppress(message, userId: userId, reason: Self.describe(limit, rate, source: policies.sources[limit]))
        throw AuthError.sendLimited(limit, retryAfter: refused.retryAfter)
    }

    /// Keeps a message the vendor refused to send (a per-user frequency, say) in the outbox, with why.
    func suppress(_ message: OutgoingMessage, userId: String?, reason: String) throws {
        var suppressed = message
        suppressed.text = "(Not sent, so no code or link was issued.)"
        suppressed.html = nil
        suppressed.codes = []
        suppressed.suppressedReason = reason
        try deliver(suppressed, userId: userId)
    }

    private static func describe(_ limit: PolicyLimit, _ rate: RateLimit, source: String?) -> String {
        let name = source ?? limit.rawValue
        return switch limit {
        case .resendCooldown: "\(name): another code was sent to this recipient less than \(Int(rate.window)) s ago"
        case .codeDeliveries: "\(name): \(rate.count) codes per \(Int(rate.window)) s reached for this recipient"
        case .emailSent: "\(name): \(rate.count) emails per \(Int(rate.window)) s reached for this tenant"
        case .smsSent: "\(name): \(rate.count) texts per \(Int(rate.window)) s reached for this tenant"
        case .tokenPerIP, .verifyPerIP, .otpPerIP, .anonymousPerIP, .passkeyPerIP, .ssoPerIP, .samlAssertionPerIP, .clientRegistrationPerIP:
            "\(name): \(rate.count) requests per \(Int(rate.window)) s reached"
        }
    }

    /// Forgets lockouts, rate-limit windows and cached policies: state that lives beside the database.
    func clearTransientState() {
        tenantsChanged()
        rateLimiter.clear()
        lockouts.removeAll()
        policyCache.withLock { $0.removeAll() }
    }
}
