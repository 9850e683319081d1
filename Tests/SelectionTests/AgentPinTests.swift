// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import EUATestSupport
@testable import ExternalUserAgentCore
import Testing

/// A managed file that pins an agent pins the program that runs: `executable`, `extra-args` and `headless` follow
/// the managed file unless its `user-options` lets users set them (issue 40, point 9).
@Suite("Managed agent pins lock the program", .onOwnThreads)
struct AgentPinTests {
    static let esr = AgentDescriptor(id: "firefox-esr", kind: .externalBrowser, family: "firefox")
    static let user = """
        [agent-options.firefox]
        executable = "/bin/true"
        extra-args = "--no-remote"
        profile = "work"
        [agent-options.firefox-esr]
        headless = true
        """

    @Test(
        "pinned by preference, allow or a table: the user's executable, extra-args and headless are ignored, each naming the managed file and line",
        arguments: [
            "preference = [\"firefox\"]\n", "allow = [\"firefox>=115\"]\n", "[agent-options.firefox]\nprivate = true\n",
        ])
    func pinnedBy(_ managed: String) throws {
        let configuration = try Layers(user: Self.user, managed: "# the company's\n" + managed).configuration()
        let pin = try #require(configuration.agentPins["firefox"])
        #expect(
            pin.pinnedBy.origin.line == (managed.hasPrefix("[") ? 3 : 2), "the table's first key, else the naming line")
        #expect(pin.lockedOptions == ["executable", "extra-args", "headless"])
        #expect(configuration.options(for: "firefox")["executable"] == nil)
        let options = configuration.options(for: Self.esr)
        #expect(
            options["executable"] == nil && options["extra-args"] == nil && options["headless"] == nil, "\(options)")
        #expect(options["profile"] == "work", "an option that is not locked stays the person's")
        let locked = configuration.lockedOut(for: Self.esr)
        #expect(
            Set(locked.map(\.setting.key.description)) == [
                "agent-options.firefox.executable", "agent-options.firefox.extra-args",
                "agent-options.firefox-esr.headless",
            ])
        #expect(
            locked.allSatisfy {
                $0.description.contains("managed file \(pin.pinnedBy.origin.location) pins the agent 'firefox'")
            })
        #expect(locked.allSatisfy { $0.description.contains("user-options = [") })
    }

    @Test("without a pin, the user's executable is used")
    func unpinned() throws {
        let configuration = try Layers(user: Self.user, managed: "deny = [\"chromium\"]\n").configuration()
        #expect(configuration.agentPins.isEmpty)
        #expect(configuration.options(for: Self.esr)["executable"] == "/bin/true")
        #expect(configuration.lockedOut(for: Self.esr).isEmpty)
    }

    @Test(
        "user-options in the managed table lets users set those again; the managed executable wins as a pinned key; user-options is never an agent option"
    )
    func userOptions() throws {
        var layers = Layers(
            user: Self.user,
            managed: """
                preference = ["firefox"]
                [agent-options.firefox]
                executable = "/usr/bin/firefox-esr"
                user-options = ["extra-args"]
                """)
        layers.code.agentOptions = ["firefox": ["headless": "true"]]
        let configuration = try layers.configuration()
        let options = configuration.options(for: Self.esr)
        #expect(options == ["executable": "/usr/bin/firefox-esr", "extra-args": "--no-remote", "profile": "work"])
        #expect(
            configuration.ignored.contains {
                $0.setting.key.description == "agent-options.firefox.headless"
                    && $0.setting.origin.layer == .code && $0.agentPin != nil
            })
        let executable = try #require(
            configuration.ignored.first { $0.setting.key.description == "agent-options.firefox.executable" })
        #expect(executable.agentPin == nil, "the managed file sets the key itself: an ordinary pinned key")
        #expect(
            configuration.permitted(
                ["executable": "/bin/sh", "extra-args": "-P x", "new-window": "true"], for: Self.esr
            )
            .options == ["extra-args": "-P x", "new-window": "true"])
    }

    @Test("user-options is read from the managed file only, and names locked options only")
    func userOptionsChecked() throws {
        let configuration = try Layers(user: "[agent-options.firefox]\nuser-options = [\"executable\"]\n")
            .configuration()
        #expect(
            configuration.warnings.contains {
                $0.description.contains("user-options is ignored: only the managed file")
            })
        #expect(configuration.options(for: "firefox").isEmpty)
        #expect(throws: ExternalUserAgentError.self) {
            try Layers(managed: "[agent-options.firefox]\nuser-options = [\"profile\"]\n").configuration()
        }
    }
}
