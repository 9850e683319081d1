@testable import ExternalUserAgent
import Foundation
import Testing

private let tomlTestFolder = ProcessInfo.processInfo.environment["TOML_TEST_DIR"]

/// toml-test's TOML 1.0.0 cases (https://github.com/toml-lang/toml-test), from a local checkout named by
/// `TOML_TEST_DIR` (its `tests` folder); skipped without it, so no test needs the network.
@Suite("TOML compliance (toml-test)", .enabled(if: tomlTestFolder != nil))
struct TOMLComplianceTests {
    static let folder = tomlTestFolder

    /// The 1.0.0 files of `kind` (`valid` or `invalid`), as listed in `files-toml-1.0.0`.
    static func files(_ kind: String) throws -> [String] {
        let list = try String(contentsOfFile: "\(folder!)/files-toml-1.0.0", encoding: .utf8)
        return list.split(separator: "\n").map(String.init).filter { $0.hasPrefix(kind + "/") && $0.hasSuffix(".toml") }
    }

    @Test("every valid document reads as toml-test's JSON says")
    func valid() throws {
        var failures: [String] = []
        let files = try Self.files("valid")
        #expect(files.count >= 200, "the 1.0.0 list has 210 valid documents")
        for file in files {
            let text = String(decoding: try Data(contentsOf: URL(fileURLWithPath: "\(Self.folder!)/\(file)")), as: UTF8.self)
            let json = try Data(contentsOf: URL(fileURLWithPath: "\(Self.folder!)/\(file.dropLast(5)).json"))
            do {
                let mine = Self.tagged(.table(try TOMLDocument(parsing: text).root))
                let theirs = Self.tagged(json: try JSONSerialization.jsonObject(with: json))
                if mine != theirs { failures.append("\(file): read as \(mine), expected \(theirs)") }
            } catch {
                failures.append("\(file): \(error)")
            }
        }
        #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")
    }

    @Test("every invalid document is refused (those that are not UTF-8 cannot be a String, so are left out)")
    func invalid() throws {
        var accepted: [String] = []
        let files = try Self.files("invalid")
        #expect(files.count >= 450, "the 1.0.0 list has 499 invalid documents")
        for file in files {
            let data = try Data(contentsOf: URL(fileURLWithPath: "\(Self.folder!)/\(file)"))
            guard let text = String(validating: data, as: UTF8.self) else { continue }
            if (try? TOMLDocument(parsing: text)) != nil { accepted.append(file) }
        }
        #expect(accepted.isEmpty, "\(accepted)")
    }

    /// A value in a canonical form both sides can be compared in (dates by kind only).
    static func tagged(_ value: TOMLValue) -> String {
        switch value {
        case .table(let table):
            "{" + table.keys.sorted().map { "\($0.debugDescription): \(tagged(table[$0]!))" }.joined(separator: ", ") + "}"
        case .array(let elements): "[" + elements.map(tagged).joined(separator: ", ") + "]"
        case .string(let text): "string \(text.debugDescription)"
        case .integer(let value): "integer \(value)"
        case .float(let value): "float \(value.isNaN ? "nan" : "\(value)")"
        case .bool(let value): "bool \(value)"
        case .dateTime(let text):
            text.dropFirst(19).contains { "Zz+-".contains($0) } ? "datetime" : "datetime-local"
        case .date: "date-local"
        case .time: "time-local"
        }
    }

    /// toml-test's JSON (`{"type": "integer", "value": "42"}` for each value) in the same form.
    static func tagged(json: Any) -> String {
        if let array = json as? [Any] { return "[" + array.map { tagged(json: $0) }.joined(separator: ", ") + "]" }
        guard let object = json as? [String: Any] else { return "?" }
        if object.count == 2, let type = object["type"] as? String, let value = object["value"] as? String {
            switch type {
            case "string": return "string \(value.debugDescription)"
            case "integer": return "integer \(Int(value).map(String.init) ?? value)"
            case "float":
                let number = value.hasSuffix("nan") ? .nan : value.hasSuffix("inf") ? (value.hasPrefix("-") ? -.infinity : .infinity)
                    : Double(value) ?? .nan
                return "float \(number.isNaN ? "nan" : "\(number)")"
            case "bool": return "bool \(value)"
            default: return type
            }
        }
        return "{" + object.keys.sorted().map { "\($0.debugDescription): \(tagged(json: object[$0]!))" }
            .joined(separator: ", ") + "}"
    }
}
