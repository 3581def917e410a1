import AuthCore
import Crypto
import Foundation
import HTTPSupport
import HTTPTypes
import Hummingbird

/// User import jobs: `GetCSVHeader`, `CreateUserImportJob`, the upload of the CSV to the job's `PreSignedUrl` (on this
/// server, in place of S3), `StartUserImportJob`, `DescribeUserImportJob`, `ListUserImportJobs` and
/// `StopUserImportJob`. Jobs live in the pool's settings. Cognito works through a started job over minutes; Fauxth
/// works through it at once, answers the start as AWS does (`Pending`), and the next `DescribeUserImportJob` finds it
/// finished. What each line of the file came to, the CloudWatch log AWS writes, is an `import.finished` event.
enum UserImport {
    static let jobsKey = "import_jobs"
    /// The upload URL's life, as S3's (`X-Amz-Expires=899`), on the emulator clock.
    static let uploadLifetime = 899
    /// A job not started within a day is `Expired`.
    static let startWithin: TimeInterval = 86_400
    /// The largest file taken (AWS takes 100 MB; a local pool needs far less, and the file waits in the settings).
    static let largestFile = 10 * 1024 * 1024
    static let paging = Paging.Rule(sizeKey: "MaxResults", bounds: 1...60, defaultSize: 60, tokenKey: "PaginationToken", sizeRequired: true)

    /// The columns of the pool's file: its schema's attributes in `DescribeUserPool`'s order (but `sub` and
    /// `identities`), then `cognito:mfa_enabled` and `cognito:username`.
    static func columns(_ pool: CognitoPool) -> [String] {
        PoolSchema.described(pool.pool["Schema"]?.arrayValue ?? []).compactMap { $0["Name"]?.stringValue }
            .filter { $0 != "sub" && $0 != "identities" } + ["cognito:mfa_enabled", "cognito:username"]
    }

    static func header(_ call: CognitoCall) async throws -> JSON {
        let pool = try call.pool()
        return ["UserPoolId": .string(pool.id), "CSVHeader": .array(columns(pool).map(JSON.string))]
    }

    static func create(_ call: CognitoCall) async throws -> JSON {
        let pool = try call.pool()
        let name = try call.body.required("JobName")
        guard (1...128).contains(name.count), name.wholeMatch(of: #/[\w\s+=,.@-]+/#) != nil else {
            throw CognitoError.invalid("1 validation error detected: Value '\(name)' at 'jobName' failed to satisfy constraint: Member must satisfy regular expression pattern: [\\w\\s+=,.@-]+")
        }
        let role = try call.body.required("CloudWatchLogsRoleArn")
        guard (20...2048).contains(role.count), role.hasPrefix("arn:") else {
            throw CognitoError.invalid("1 validation error detected: Value '\(role)' at 'cloudWatchLogsRoleArn' failed to satisfy constraint: Member must satisfy regular expression pattern: arn:[\\w+=/,.@-]+:[\\w+=/,.@-]+:([\\w+=/,.@-]*)?:[0-9]+:[\\w+=/,.@-]+(:[\\w+=/,.@-]+)?(:[\\w+=/,.@-]+)?")
        }
        let id = "import-" + call.emulator.generator.string(10, alphabet: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
        var job: [String: JSON] = ["JobName": .string(name), "JobId": .string(id), "UserPoolId": .string(pool.id), "Status": "Created",
                                   "CreationDate": .double(call.emulator.clock.now.timeIntervalSince1970), "CloudWatchLogsRoleArn": .string(role),
                                   "ImportedUsers": 0, "SkippedUsers": 0, "FailedUsers": 0]
        job["PasswordHashingAlgorithm"] = try call.body.string("PasswordHashingAlgorithm").map(JSON.string)
        job["PreSignedUrl"] = .string(try uploadURL(pool: pool.id, job: id, call: call))
        try call.pools.update(pool.id) { settings in settings[jobsKey] = .array((settings[jobsKey]?.arrayValue ?? []) + [.object(job)]) }
        return ["UserImportJob": described(job, now: call.emulator.clock.now)]
    }

    static func describe(_ call: CognitoCall) async throws -> JSON {
        let pool = try call.pool()
        return ["UserImportJob": described(try job(try call.body.required("JobId"), in: pool), now: call.emulator.clock.now)]
    }

    /// Newest first, as AWS lists them.
    static func list(_ call: CognitoCall) async throws -> JSON {
        let pool = try call.pool()
        let page = try Paging(call, paging, scope: "ListUserImportJobs \(pool.id)")
        // Keys that sort newest first: the jobs' places in the pool's list, counted down.
        let all = jobs(in: pool)
        let keyed = all.enumerated().map { (String(format: "%08d", all.count - $0.offset), $0.element) }
        let (items, next) = page.page(keyed) { $0.0 }
        return page.answer("UserImportJobs", items.map { described($0.1, now: call.emulator.clock.now) }, next: next)
    }

    /// A started job is finished at once, so there is no job in progress to stop: `PreconditionNotMetException`.
    static func stop(_ call: CognitoCall) async throws -> JSON {
        let pool = try call.pool()
        let found = try job(try call.body.required("JobId"), in: pool)
        let status = described(found, now: call.emulator.clock.now)["Status"]?.stringValue ?? ""
        guard status == "Pending" || status == "InProgress" else {
            throw CognitoError(.preconditionNotMet, "The user import job \(found["JobId"]?.stringValue ?? "") is \(status) and cannot be stopped.")
        }
        return ["UserImportJob": described(found, now: call.emulator.clock.now)]
    }

    /// Answers the job as AWS answers a start (`Pending`, with its `StartDate`), having imported the file.
    static func start(_ call: CognitoCall) async throws -> JSON {
        let pool = try call.pool()
        let id = try call.body.required("JobId")
        let now = call.emulator.clock.now
        // Started (and its file taken) in one change of the pool's settings, so two starts at once import it once.
        let (started, csv) = try changeJob(id, in: pool.id, pools: call.pools) { job -> ([String: JSON], String) in
            guard described(job, now: now)["Status"] == "Created" else {
                throw CognitoError(.preconditionNotMet, "The user import job \(id) has been started already or has expired.")
            }
            guard let csv = job["_csv"]?.stringValue else { throw CognitoError(.preconditionNotMet, "No csv file was uploaded for \(id)") }
            guard !pool.autoVerifiedAttributes.isEmpty else {
                throw CognitoError(.preconditionNotMet, "The user pool must verify email or phone_number automatically (AutoVerifiedAttributes) to import users.")
            }
            job["Status"] = "Pending"
            job["StartDate"] = .double(now.timeIntervalSince1970)
            job.removeValue(forKey: "_csv")
            return (job, csv)
        }
        let outcome = try await UserImportFile(pool: pool, call: call).run(csv)
        var finished = started
        finished["ImportedUsers"] = .int(outcome.imported)
        finished["SkippedUsers"] = .int(outcome.skipped)
        finished["FailedUsers"] = .int(outcome.failed)
        finished["Status"] = .string(outcome.jobFailed == nil && outcome.failed + outcome.skipped == 0 ? "Succeeded" : "Failed")
        finished["CompletionDate"] = .double(now.timeIntervalSince1970)
        finished["CompletionMessage"] = .string(outcome.jobFailed ?? (finished["Status"] == "Succeeded"
            ? "Import Job Completed Successfully." : "Too many users have failed or been skipped during the import."))
        try changeJob(id, in: pool.id, pools: call.pools) { $0 = finished }
        call.emulator.record(.importFinished, tenant: pool.id, origin: call.origin, detail: [
            "job_id": .string(id), "status": finished["Status"] ?? .null, "imported": .int(outcome.imported), "skipped": .int(outcome.skipped),
            "failed": .int(outcome.failed), "log": .array(outcome.log.map(JSON.string))])
        return ["UserImportJob": described(started, now: now)]
    }

    // MARK: The upload

    /// Where the CSV goes: this server, with a token standing in for S3's signature (bound to the pool and job, valid
    /// `uploadLifetime` seconds), in S3's query parameters' places.
    static func uploadURL(pool: String, job: String, call: CognitoCall) throws -> String {
        let now = Int(call.emulator.clock.now.timeIntervalSince1970)
        let token = try JWS.sign(["pool": .string(pool), "job": .string(job), "exp": .int(now + uploadLifetime)], with: uploadKey(call.emulator))
        let query = [("X-Amz-Security-Token", token), ("X-Amz-Algorithm", "AWS4-HMAC-SHA256"),
                     ("X-Amz-SignedHeaders", "host;x-amz-server-side-encryption"), ("X-Amz-Expires", String(uploadLifetime))]
        return "\(call.request.baseURL)/_cognito/user-import/\(pool)/\(job)?" + FormBody.encode(query)
    }

    static func uploadKey(_ emulator: Emulator) -> SigningKey { emulator.keyring.hmacKey("cognito:user-import", generator: emulator.generator) }

    /// `PUT` of the file, as S3 takes it: with `x-amz-server-side-encryption: aws:kms` (signed into the URL, so S3
    /// refuses a PUT without it), before the URL expires, for a job not started yet. S3's errors are XML.
    static func upload(_ request: Request, pools: CognitoPools, pool poolId: String, job id: String) async throws -> Response {
        let emulator = pools.emulator
        guard request.headers[HTTPField.Name("x-amz-server-side-encryption")!] == "aws:kms" else {
            return s3Error("SignatureDoesNotMatch", "The request signature we calculated does not match the signature you provided. Check your key and signing method.")
        }
        let token = request.uri.queryParameters.get("X-Amz-Security-Token") ?? ""
        guard let claims = try? JWS.verify(token, keys: [uploadKey(emulator).verificationKey]).claims,
              claims["pool"]?.stringValue == poolId, claims["job"]?.stringValue == id else {
            return s3Error("AccessDenied", "Access Denied")
        }
        guard !emulator.clock.hasPassed(expiryOf: claims, required: true) else { return s3Error("AccessDenied", "Request has expired") }
        let body: ByteBuffer
        do {
            body = try await request.bodyBytes(limit: largestFile)
        } catch .tooLarge {
            return s3Error("EntityTooLarge", "Your proposed upload exceeds the maximum allowed size", status: .badRequest)
        } catch {
            return s3Error("IncompleteBody", "You did not provide the number of bytes specified by the Content-Length HTTP header", status: .badRequest)
        }
        let taken = try changeJob(id, in: poolId, pools: pools) { job -> Bool in
            guard job["Status"] == "Created" else { return false }
            job["_csv"] = .string(String(decoding: body.readableBytesView, as: UTF8.self))
            return true
        }
        guard taken else { return s3Error("AccessDenied", "Access Denied") }
        return Response(status: .ok, headers: [.eTag: "\"\(Insecure.MD5.hash(data: Array(body.readableBytesView)).hex)\""])
    }

    static func s3Error(_ code: String, _ message: String, status: HTTPResponse.Status = .forbidden) -> Response {
        let xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>\(code)</Code><Message>\(HTMLPage.escape(message))</Message></Error>"
        return Response(status: status, headers: [.contentType: "application/xml"], body: ResponseBody(byteBuffer: ByteBuffer(string: xml)))
    }

    // MARK: Jobs in the pool's settings

    static func jobs(in pool: CognitoPool) -> [[String: JSON]] { (pool.settings[jobsKey]?.arrayValue ?? []).compactMap(\.objectValue) }

    static func job(_ id: String, in pool: CognitoPool) throws -> [String: JSON] {
        guard let job = jobs(in: pool).first(where: { $0["JobId"]?.stringValue == id }) else {
            throw CognitoError(.resourceNotFound, "The user import job \(id) does not exist.")
        }
        return job
    }

    /// Changes job `id` as it is in the pool's settings while the store is held (`CognitoPools.update`): a start, an
    /// upload or a finish made at once each sees the others'.
    @discardableResult
    private static func changeJob<T>(_ id: String, in poolId: String, pools: CognitoPools, _ change: (inout [String: JSON]) throws -> T) throws -> T {
        try pools.update(poolId) { settings in
            var jobs = (settings[jobsKey]?.arrayValue ?? []).compactMap(\.objectValue)
            guard let index = jobs.firstIndex(where: { $0["JobId"]?.stringValue == id }) else {
                throw CognitoError(.resourceNotFound, "The user import job \(id) does not exist.")
            }
            let result = try change(&jobs[index])
            settings[jobsKey] = .array(jobs.map(JSON.object))
            return result
        }
    }

    /// The `UserImportJobType` AWS answers: what is set, without the file; a job left unstarted for a day `Expired`.
    static func described(_ job: [String: JSON], now: Date) -> JSON {
        var o = job.filter { !$0.key.hasPrefix("_") }
        if o["Status"] == "Created", let created = o["CreationDate"]?.doubleValue, now.timeIntervalSince1970 - created > startWithin {
            o["Status"] = "Expired"
            o["CompletionDate"] = .double(created + startWithin)
            o["CompletionMessage"] = "The user import job has expired."
        }
        return .object(o)
    }
}
