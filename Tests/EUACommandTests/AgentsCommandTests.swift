// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import EUATestSupport
import Foundation
import Testing

/// `eua agents`, run as the built binary: its JSON keys are a contract other tools read.
@Suite("eua agents", .onOwnThreads, .timeLimit(.minutes(1)))
struct AgentsCommandTests {
    struct Listing: Decodable {
        struct Agent: Decodable {
            var id, kind, family, name, path, plugin: String
            var version: String?
            var available: Bool
            var reasons: [String]
        }
        struct Failure: Decodable { var path, error, code: String }
        var agents: [Agent]
        var errors: [Failure]
    }

    func agents(_ arguments: [String], environment: [String: String] = [:]) throws -> ProcessResult {
        try ProcessRunner.run(
            try TestPaths.product("eua"), ["agents"] + arguments,
            environment: environment.merging(["EUA_PLUGIN_PATH": environment["EUA_PLUGIN_PATH"] ?? ""]) { $1 })
    }

    @Test("--json lists headless (testDouble) and the C example, each with its .so path")
    func json() throws {
        let result = try agents(["--json"])
        #expect(result.status == 0)
        let listing = try JSONDecoder().decode(Listing.self, from: Data(result.stdout.utf8))
        let headless = try #require(listing.agents.first { $0.id == "headless" })
        #expect(headless.kind == "testDouble")
        #expect(headless.path == TestPaths.productsFolder.appendingPathComponent("libEUAHeadless.so").path)
        let example = try #require(listing.agents.first { $0.id == "example-c" })
        #expect(example.path.hasSuffix("/libEUAExampleC.so"))
        #expect(listing.errors.isEmpty)
        #expect(result.stdout.split(separator: "\n").count == 1, "one JSON object, one line")
        for key in ["\"id\"", "\"kind\"", "\"name\"", "\"version\"", "\"path\""] {
            #expect(
                result.stdout.components(separatedBy: key).count - 1 >= listing.agents.count, "every agent has \(key)")
        }
    }

    @Test("--json gives each agent its family: firefox-esr is of the firefox family; headless is its own")
    func families() throws {
        let listing = try JSONDecoder().decode(Listing.self, from: Data(try agents(["--json"]).stdout.utf8))
        #expect(listing.agents.first { $0.id == "headless" }?.family == "headless")
        #expect(
            listing.agents.first { $0.id == "firefox-esr" }?.family == "firefox",
            "Debian's firefox-esr is installed by scripts/bootstrap")
        #expect(listing.agents.first { $0.id == "chromium" }?.family == "chromium")
    }

    @Test("eua open --agent with a name no agent has: exit 2, the name, and the agents that exist")
    func unknownAgent() throws {
        let result = try ProcessRunner.run(
            try TestPaths.product("eua"), ["open", "--agent", "nope", "https://example.com/"],
            environment: ["EUA_PLUGIN_PATH": ""])
        #expect(result.status == 2)
        #expect(result.stderr.contains("no agent has the id or family 'nope'"), "\(result.stderr)")
        #expect(result.stderr.contains("firefox-esr (family firefox)") && result.stderr.contains("headless"))
    }

    @Test("bad plugins on EUA_PLUGIN_PATH are reported in errors with their paths, and the exit is 0")
    func badPlugins() throws {
        let folder = try TemporaryFolder()
        let text = folder.url.appendingPathComponent("libX.so")
        try Data("hello".utf8).write(to: text)
        let copy = folder.url.appendingPathComponent("libEUAHeadlessCopy.so")
        try FileManager.default.copyItem(at: try TestPaths.product("libEUAHeadless.so"), to: copy)
        try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: copy.path)

        let result = try agents(["--json"], environment: ["EUA_PLUGIN_PATH": folder.path])
        #expect(result.status == 0)
        let listing = try JSONDecoder().decode(Listing.self, from: Data(result.stdout.utf8))
        #expect(Set(listing.errors.map(\.path)) == [text.path, copy.path])
        #expect(listing.errors.first { $0.path == text.path }?.code == "pluginNotLoadable")
        #expect(listing.errors.first { $0.path == copy.path }?.error.contains("writable by everyone") == true)
        #expect(listing.agents.contains { $0.id == "headless" }, "good plugins still load")
    }

    @Test("the table form lines up in columns and lists refused plugins")
    func table() throws {
        let folder = try TemporaryFolder()
        try Data("hello".utf8).write(to: folder.url.appendingPathComponent("libX.so"))
        let result = try agents([], environment: ["EUA_PLUGIN_PATH": folder.path])
        #expect(result.status == 0)
        let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let header = try #require(lines.first)
        #expect(header.hasPrefix("ID "))
        let pathColumn = try #require(header.range(of: "PATH")).lowerBound.utf16Offset(in: header)
        for line in lines.dropFirst().prefix(while: { !$0.isEmpty }) {
            #expect(line.dropFirst(pathColumn).hasPrefix("/"), "column PATH lines up: \(line)")
        }
        #expect(result.stdout.contains("Refused plugins:"))
        #expect(result.stdout.contains("libX.so: not a loadable shared library"))
    }
}
