// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import EUATestSupport
import Foundation
import Testing

/// `eua agents` with plugins whose `describe()` never returns: the built binary lists the others, names the
/// hung files under errors and ends within two call deadlines (the shared plugin worker is replaced after
/// each hang, so the plugins behind a hung one are not refused).
@Suite("eua agents with hung plugins", .onOwnThreads, .timeLimit(.minutes(2)))
struct AgentsDeadlineCommandTests {
    /// `PluginLoader`'s default call deadline, which `eua` uses.
    static let callTimeout = 5.0
    /// Process start, plugin loading and a loaded machine.
    static let slack = 4.0

    @Test("two describe() calls that never return: exit 0, both named under errors, every other plugin listed, on time")
    func twoHung() throws {
        let sandbox = try PluginSandbox()
        let hung = try ["liba-hung.so", "libc-hung.so"].map { name in
            try sandbox.plugin(["DESCRIBE_HANGS", "PLUGIN_ID=\"\(name)\""], name: name)
        }
        try sandbox.plugin(["PLUGIN_ID=\"fine\""], name: "libb-fine.so")
        let (result, seconds) = try sandbox.run(["agents", "--json"])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(seconds < Self.callTimeout * 2 + Self.slack, "ended after \(seconds) s")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let agents = try #require(json["agents"] as? [[String: Any]])
        let ids = agents.compactMap { $0["id"] as? String }
        #expect(ids.contains("fine"), "\(ids)")
        #expect(ids.contains("system-browser"), "the bundled plugins behind the hung ones load: \(ids)")
        let errors = try #require(json["errors"] as? [[String: Any]]).filter {
            ($0["path"] as? String)?.hasPrefix(sandbox.plugins.path) == true
        }
        #expect(errors.compactMap { $0["path"] as? String } == hung.map(\.path), "\(errors)")
        for error in errors {
            let message = error["error"] as? String ?? ""
            #expect(message.contains("describe() did not return within 5"), "\(message)")
            #expect(message.contains("remove it from \(sandbox.plugins.path)"), "says what to do: \(message)")
        }
    }
}
