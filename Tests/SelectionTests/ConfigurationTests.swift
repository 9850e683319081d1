// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import EUATestSupport
@testable import ExternalUserAgentCore
import Foundation
import Testing

@Suite("Layered configuration", .onOwnThreads)
struct ConfigurationTests {
    @Test("no files at all: the built-in defaults, every file 'not found'")
    func defaults() throws {
        let configuration = try Layers().configuration()
        #expect(configuration.preference == ["*"])
        #expect(configuration.allowTestAgents == false)
        #expect(configuration.files.map(\.status) == [.notFound, .notFound, .notFound])
        #expect(configuration.files.map(\.layer) == [.system, .user, .managed])
        #expect(configuration[.preference]?.origin.layer == .defaults)
    }

    @Test("each layer beats the weaker ones, and the winner's origin names file and line")
    func strength() throws {
        var layers = Layers(
            system: "preference = [\"chromium\"]\n[receiver]\nport = 8400\n",
            user: "# mine\npreference = [\"firefox\"]\n")
        var configuration = try layers.configuration()
        #expect(configuration.preference == ["firefox"])
        #expect(configuration[.preference]?.origin.layer == .user)
        #expect(configuration[.preference]?.origin.line == 2)
        #expect(configuration[.receiverPort]?.origin.layer == .system)
        #expect(configuration[.receiverPort]?.origin.line == 3)
        #expect(configuration.receiverOptions == ["port": "8400"])

        layers.environment = ["EUA_AGENT": "tab"]
        configuration = try layers.configuration()
        #expect(configuration.preference == ["tab"])
        #expect(configuration[.preference]?.origin.description == "environment EUA_AGENT")

        layers.code.preference = ["typist", "*"]
        configuration = try layers.configuration()
        #expect(configuration.preference == ["typist", "*"])
        #expect(configuration[.preference]?.origin.layer == .code)
    }

    @Test("XDG_CONFIG_DIRS: the first folder is the strongest system file")
    func xdgOrder() throws {
        let folder = try TemporaryFolder()
        for (name, agent) in [("a", "first"), ("b", "second")] {
            let dir = try folder.folder("\(name)/eua")
            try Data("preference = [\"\(agent)\"]\n".utf8).write(to: dir.appendingPathComponent("config.toml"))
        }
        let sources = ConfigurationSources.standard(
            environment: [
                "XDG_CONFIG_DIRS": "\(folder.path)/a:\(folder.path)/b", "XDG_CONFIG_HOME": "\(folder.path)/none",
            ],
            managedFile: "\(folder.path)/none.toml")
        let configuration = try Configuration.load(sources: sources)
        #expect(configuration.preference == ["first"])
        #expect(sources.userFile == "\(folder.path)/none/eua/config.toml")
    }

    @Test(
        "a managed pin is beaten by nothing; every attempt is ignored and names the pin",
        arguments: [ConfigurationLayer.system, .user, .environment, .code])
    func managedPin(_ layer: ConfigurationLayer) throws {
        var layers = Layers(managed: "\n\npreference = [\"firefox\"]\nallow-test-agents = false\n")
        let attempt = "preference = [\"webview\", \"*\"]\nallow-test-agents = true\n"
        switch layer {
        case .system: layers.system = attempt
        case .user: layers.user = attempt
        case .environment: layers.environment = ["EUA_AGENT": "webview,*", "EUA_ALLOW_TEST_AGENTS": "1"]
        default: layers.code = CodeConfiguration(preference: ["webview", "*"], allowTestAgents: true)
        }
        let configuration = try layers.configuration()
        #expect(configuration.preference == ["firefox"])
        #expect(configuration.allowTestAgents == false)
        #expect(configuration[.preference]?.origin.layer == .managed)
        let ignored = configuration.ignored.filter { $0.setting.origin.layer == layer }
        #expect(Set(ignored.map(\.setting.key)) == [.preference, .allowTestAgents])
        for entry in ignored {
            #expect(entry.pinnedBy.origin.source.hasSuffix("etc/managed.toml"))
            #expect(entry.description.contains("is ignored: the key is pinned"))
            #expect(entry.description.contains("managed.toml:3") || entry.description.contains("managed.toml:4"))
        }
    }

    @Test("a managed file does not pin keys it does not set")
    func managedOnlyPinsItsKeys() throws {
        let configuration = try Layers(user: "[receiver]\npath = \"/mine\"\n", managed: "[receiver]\nport = 8400\n")
            .configuration()
        #expect(configuration.receiverOptions == ["port": "8400", "path": "/mine"])
        #expect(configuration.ignored.isEmpty)
    }

    @Test("broken TOML: file:line and what the parser expected")
    func brokenTOML() throws {
        let layers = Layers(user: "preference = [\"firefox\"]\nallow-test-agents = tru\n")
        let error = try #require(throws: ExternalUserAgentError.self) { try layers.configuration() }
        #expect(error.code == .configurationInvalid)
        #expect(error.message.contains("home/.config/eua/config.toml:2:"))
        #expect(error.message.contains("allow-test-agents = tru"))
        #expect(error.message.contains("expected"))
        #expect(!error.message.contains("\n"), "one line")
    }

    @Test(
        "a wrong value: file:line, the key and what was expected",
        arguments: [
            ("[receiver]\n\nport = \"eighty\"\n", 3, "receiver.port", "an integer from 0 to 65535"),
            ("[receiver]\nport-range = \"10-5\"\n", 2, "receiver.port-range", "LOW-HIGH"),
            ("x = 1\n[timeouts]\nauthorization = -5\n", 3, "timeouts.authorization", "greater than 0"),
            ("allow = [\"firefox >= abc\"]\n", 1, "allow", "dotted version number"),
            ("preference = \"firefox\"\n", 1, "preference", "an array of agent ids"),
            ("[pages]\nsuccess = \"relative/page.html\"\n", 2, "pages.success", "absolute file path or an http(s) URL"),
            ("[agent-options.firefox]\nprivate = \"yes\"\n", 2, "agent-options.firefox.private", "true or false"),
            ("receiver = 5\n", 1, "receiver", "a table"),
        ])
    func wrongValue(_ text: String, _ line: Int, _ key: String, _ expected: String) throws {
        let layers = Layers(system: text)
        let error = try #require(throws: ExternalUserAgentError.self) { try layers.configuration() }
        #expect(error.code == .configurationInvalid)
        #expect(error.message.contains("xdg/eua/config.toml:\(line): key '\(key)'"), "\(error.message)")
        #expect(error.message.contains(expected), "\(error.message)")
    }

    @Test("an unknown key is a warning with the nearest known key, and the rest still loads")
    func unknownKey() throws {
        let configuration = try Layers(
            user:
                "prefrence = [\"firefox\"]\n[receiver]\nprot = 1\n[agent-options.firefox]\nprofle = \"work\"\nmode = \"x\"\n"
        ).configuration()
        let messages = configuration.warnings.map(\.description)
        #expect(
            messages.contains {
                $0.contains("config.toml:1") && $0.contains("'prefrence'") && $0.contains("did you mean 'preference'")
            })
        #expect(messages.contains { $0.contains("config.toml:3") && $0.contains("did you mean 'receiver.port'") })
        #expect(
            configuration.options(for: "firefox") == ["profle": "work", "mode": "x"],
            "agent options beyond the known ones pass through to the agent")
        #expect(configuration.preference == ["*"])
    }

    @Test("world-writable system files are refused, with a warning; user files are read; the managed file still pins")
    func worldWritable() throws {
        let folder = try TemporaryFolder()
        let layers = Layers(
            system: "preference = [\"chromium\"]\n", user: "deny = [\"tab\"]\n",
            managed: "allow-test-agents = false\n")
        let sources = try layers.sources(in: folder)
        for path in [sources.systemFiles[0], sources.userFile!] {
            try FileManager.default.setAttributes([.posixPermissions: 0o666], ofItemAtPath: path)
        }
        let configuration = try Configuration.load(sources: sources)
        #expect(configuration.preference == ["*"], "the system preference does not apply")
        #expect(configuration.deny.map(\.id) == ["tab"])
        let refused = configuration.files.filter { if case .refused = $0.status { true } else { false } }
        #expect(refused.map(\.layer) == [.system])
        #expect(refused.allSatisfy { "\($0.status)".contains("writable by everyone") })
        #expect(
            configuration.warnings.contains {
                $0.description.contains("xdg/eua/config.toml") && $0.description.contains("chmod go-w")
            })
        #expect(configuration[.allowTestAgents]?.origin.layer == .managed)
    }

    @Test("a world-writable managed file, or one in a folder anyone may write, fails closed: loading throws")
    func worldWritableManaged() throws {
        let folder = try TemporaryFolder()
        let open = try folder.folder("open")
        try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: open.path)
        let inOpenFolder = open.appendingPathComponent("managed.toml")
        try Data("preference = [\"firefox\"]\n".utf8).write(to: inOpenFolder)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: inOpenFolder.path)
        let writable = folder.url.appendingPathComponent("managed.toml")
        try Data("preference = [\"firefox\"]\n".utf8).write(to: writable)
        try FileManager.default.setAttributes([.posixPermissions: 0o666], ofItemAtPath: writable.path)
        for (managed, problem) in [
            (inOpenFolder, "its folder \(open.path) is writable by everyone"),
            (writable, "\(writable.path) is writable by everyone"),
        ] {
            let error = try #require(throws: ExternalUserAgentError.self) {
                try Configuration.load(
                    sources: ConfigurationSources(
                        environment: [:], systemFiles: [], userFile: nil, managedFile: managed.path))
            }
            #expect(error.code == .configurationInvalid)
            #expect(
                error.message.contains("managed configuration file \(managed.path) is refused: \(problem)"),
                "\(error.message)")
        }
    }

    @Test("EUA_MANAGED_CONFIG points at the managed file; the init parameter wins over it")
    func managedPath() {
        #expect(ConfigurationSources.standard(environment: ["EUA_MANAGED_CONFIG": "/x.toml"]).managedFile == "/x.toml")
        #expect(
            ConfigurationSources.standard(environment: ["EUA_MANAGED_CONFIG": "/x.toml"], managedFile: "/y.toml")
                .managedFile == "/y.toml")
        #expect(ConfigurationSources.standard(environment: [:]).managedFile == "/etc/eua/managed.toml")
        #expect(ConfigurationSources.standard(environment: [:]).systemFiles == ["/etc/xdg/eua/config.toml"])
        #expect(ConfigurationSources.standard(environment: ["HOME": "/h"]).userFile == "/h/.config/eua/config.toml")
    }

    @Test("$BROWSER: program names in order, then any other agent; EUA_AGENT beats it")
    func browser() throws {
        var layers = Layers(user: "preference = [\"tab\"]\n", environment: ["BROWSER": "/usr/bin/firefox %s:chromium"])
        var configuration = try layers.configuration()
        #expect(configuration.preference == ["firefox", "chromium", "*"])
        #expect(configuration[.preference]?.origin.description == "environment BROWSER")
        layers.environment["EUA_AGENT"] = "typist"
        configuration = try layers.configuration()
        #expect(configuration.preference == ["typist"])
    }

    @Test("EUA_AGENT_OPTIONS are options of the EUA_AGENT agent; without EUA_AGENT they are a warning")
    func agentOptions() throws {
        var layers = Layers(
            user: "[agent-options.firefox]\nprofile = \"home\"\nexecutable = \"/opt/ff\"\n",
            environment: ["EUA_AGENT": "firefox", "EUA_AGENT_OPTIONS": "profile=work,private=true"])
        var configuration = try layers.configuration()
        #expect(
            configuration.options(for: "firefox") == ["profile": "work", "private": "true", "executable": "/opt/ff"])
        #expect(configuration[.agentOption("firefox", "profile")]?.origin.layer == .environment)
        layers.environment = ["EUA_AGENT_OPTIONS": "profile=work", "EUA_ALLOW_TEST_AGENTS": "1"]
        configuration = try layers.configuration()
        #expect(configuration.warnings.contains { $0.description.contains("EUA_AGENT is not set") })
        #expect(configuration.allowTestAgents, "the rest of the environment still counts")
        layers.environment = ["EUA_AGENT": "firefox", "EUA_AGENT_OPTIONS": "profile"]
        #expect(throws: ExternalUserAgentError.self) { try layers.configuration() }
    }

    @Test("code values are checked like a file's")
    func codeChecked() {
        #expect(throws: ExternalUserAgentError.self) {
            try Layers(code: CodeConfiguration(receiverPort: 70000)).configuration()
        }
        #expect(throws: ExternalUserAgentError.self) {
            try Layers(code: CodeConfiguration(receiverPath: "nope")).configuration()
        }
    }

    @Test("the commented examples in Examples/ load without warnings")
    func examples() throws {
        for name in ["config.toml", "managed.toml"] {
            let text = try String(
                contentsOf: TestPaths.packageRoot.appendingPathComponent("Examples/\(name)"), encoding: .utf8)
            let configuration = try Layers(user: text).configuration()
            #expect(configuration.warnings.isEmpty, "\(name): \(configuration.warnings)")
        }
    }
}
