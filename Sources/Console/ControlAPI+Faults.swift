import AuthCore
import Foundation
import HTTPSupport
import Hummingbird

/// `/_emu/v1/faults`: the fault rules, in order; the scenarios ready to load; the canonical operation
/// names rules match; and the journal of firings.
extension ControlAPI {
    func addFaultRoutes<Context: RequestContext>(to group: RouterGroup<Context>) {
        group.get { _, _ in ControlJSON.response(["rules": .array(emulator.faults.rules().map(Self.rule))]) }
        group.post { request, _ in
            let body = try await ControlRequest(request: request).body()
            let rules = try Self.rules(in: body, engine: emulator.faults)
            emulator.faults.add(rules)
            emulator.record(.faultsChanged, detail: ["added": .array(rules.map { .string($0.id) })])
            let ids = Set(rules.map(\.id))
            return ControlJSON.response(["rules": .array(emulator.faults.rules().filter { ids.contains($0.rule.id) }.map(Self.rule))], status: .created)
        }
        group.delete { _, _ in
            emulator.faults.removeAll()
            emulator.record(.faultsChanged, detail: ["removed": "all"])
            return Response(status: .noContent)
        }
        group.get("journal") { _, _ in
            ControlJSON.response(["firings": .array(emulator.faults.journal().map(Self.firing))])
        }
        group.get("operations") { _, _ in
            ControlJSON.response(["operations": .array(emulator.faults.vocabulary.operations.map(JSON.string)), "meanings": .array(FaultMeaning.allCases.map { .string($0.rawValue) }),
                                  "scenarios": .array(FaultScenarios.all.map { ["name": .string($0.name), "description": .string($0.description)] })])
        }
        group.patch(":id") { request, context in
            let id = try context.parameters.decoded("id")
            let body = try await ControlRequest(request: request).body()
            guard let enabled = body["enabled"]?.boolValue else { throw ControlError.badRequest("enabled: expected a boolean") }
            guard emulator.faults.setEnabled(id, enabled), let entry = emulator.faults.rules().first(where: { $0.rule.id == id }) else {
                throw ControlError.notFound("no fault rule \(id)")
            }
            emulator.record(.faultsChanged, detail: [enabled ? "enabled" : "disabled": .string(id)])
            return ControlJSON.response(Self.rule(entry))
        }
        group.delete(":id") { _, context in
            let id = try context.parameters.decoded("id")
            guard emulator.faults.remove(id) else { throw ControlError.notFound("no fault rule \(id)") }
            emulator.record(.faultsChanged, detail: ["removed": .string(id)])
            return Response(status: .noContent)
        }
    }

    /// A body of one rule, `{"rules": [...]}`, or `{"scenario": "<name>"}`.
    static func rules(in body: [String: JSON], engine: FaultEngine) throws -> [FaultRule] {
        if let name = body["scenario"]?.stringValue {
            guard let rules = FaultScenarios.rules(named: name) else {
                throw ControlError.badRequest("scenario: no scenario \(name) (\(FaultScenarios.all.map(\.name).joined(separator: ", ")))")
            }
            return try engine.parse(list: rules, place: "scenario \(name): rules")
        }
        if let list = body["rules"] {
            guard let items = list.arrayValue else { throw ControlError.badRequest("rules: expected an array") }
            return try engine.parse(list: items)
        }
        return [try engine.parse(.object(body))]
    }

    static func rule(_ entry: (rule: FaultRule, matched: Int, fired: Int, retired: Bool, expiresAt: Date?)) -> JSON {
        guard case .object(var o) = entry.rule.json else { return entry.rule.json }
        o["state"] = ["matched": .int(entry.matched), "fired": .int(entry.fired), "retired": .bool(entry.retired),
                      "expires_at": entry.expiresAt.map(ControlJSON.time) ?? .null]
        return .object(o)
    }

    static func firing(_ f: FaultEngine.Firing) -> JSON {
        ["id": .string(f.id), "rule": .string(f.rule.id), "effect": .string(f.rule.effect.type), "dialect": .string(f.target.dialect.rawValue),
         "operation": .string(f.target.operation), "tenant": JSON(f.target.tenant), "identifier": JSON(f.target.identifier),
         "client_id": JSON(f.target.clientId), "method": .string(f.target.method), "path": .string(f.target.path), "at": ControlJSON.time(f.at)]
    }
}

/// The ready-made fault scenarios in `seed/scenarios/`, compiled into the binary.
public enum FaultScenarios {
    public static var all: [(name: String, description: String)] {
        EmbeddedAssets.paths.filter { $0.hasPrefix("seed/scenarios/") && $0.hasSuffix(".json") }.map { path in
            let name = String(path.dropFirst("seed/scenarios/".count).dropLast(".json".count))
            return (name, document(name)?["description"]?.stringValue ?? "")
        }
    }

    /// A scenario's rules, by name (`flaky-network`).
    public static func rules(named name: String) -> [JSON]? { document(name)?["rules"]?.arrayValue }

    static func document(_ name: String) -> JSON? {
        EmbeddedAssets.file("seed/scenarios/\(name).json").flatMap { try? JSON.parse($0) }
    }

    /// The rules of a file (`{"rules": [...]}` or an array of rules) or of a scenario by name, read by `engine`.
    /// What is wrong is said in words, with the source and the rule's place: `--faults` prints it as it is.
    public static func load(_ pathOrName: String, engine: FaultEngine) throws(FaultSourceError) -> [FaultRule] {
        let list: [JSON]
        if FileManager.default.fileExists(atPath: pathOrName) {
            let json: JSON
            do { json = try JSON.parse(Array(Data(contentsOf: URL(fileURLWithPath: pathOrName)))) } catch let error as JSONSyntaxError {
                throw FaultSourceError(source: pathOrName, problem: "not JSON: \(error)")
            } catch {
                throw FaultSourceError(source: pathOrName, problem: "cannot be read: \(error.localizedDescription)")
            }
            guard let rules = json.arrayValue ?? json["rules"]?.arrayValue else {
                throw FaultSourceError(source: pathOrName, problem: "expected {\"rules\": [...]} or an array of rules")
            }
            list = rules
        } else {
            guard let rules = rules(named: pathOrName) else {
                let names = all.map(\.name)
                throw FaultSourceError(source: pathOrName, problem: "is neither a file nor a scenario\(Suggestion.hint(for: pathOrName, in: names)); the scenarios are \(names.joined(separator: ", "))")
            }
            list = rules
        }
        do { return try engine.parse(list: list) } catch AuthError.invalidInput(let field, let reason) {
            throw FaultSourceError(source: pathOrName, problem: "\(field) \(reason)")
        } catch {
            throw FaultSourceError(source: pathOrName, problem: "\(error)")
        }
    }
}

/// Why `--faults` could not load a file or scenario, in words.
public struct FaultSourceError: Error, CustomStringConvertible {
    public var source: String
    public var problem: String
    public var description: String { "--faults \(source): \(problem)" }
}
