// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import EUATestSupport
@testable import ExternalUserAgentCore
import Foundation
import Testing

/// Configuration files someone else could have written, and files too large or not UTF-8.
@Suite("Configuration file safety", .onOwnThreads)
struct ConfigurationFileSafetyTests {
    static let policy = "preference = [\"firefox\"]\nallow-test-agents = false\n"
    /// A user that is neither root nor the one running the tests.
    static let stranger: uid_t = 65534

    /// A fresh folder with a trusted `etc` folder in it (mode 0755).
    struct Place {
        let folder: TemporaryFolder
        let etc: URL

        init() throws {
            folder = try TemporaryFolder("eua-trust")
            etc = try folder.folder("etc")
        }

        /// Writes `text` to `url` (its folder must exist) with `mode`.
        @discardableResult
        func write(_ text: String = ConfigurationFileSafetyTests.policy, to url: URL, mode: Int = 0o644) throws -> URL {
            try Data(text.utf8).write(to: url)
            try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: url.path)
            return url
        }

        func folder(_ name: String, mode: Int) throws -> URL {
            let url = try folder.folder(name)
            try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: url.path)
            return url
        }
    }

    static func loadManaged(_ path: String) throws -> Configuration {
        try Configuration.load(
            sources: ConfigurationSources(environment: [:], systemFiles: [], userFile: nil, managedFile: path))
    }

    static func refusedManaged(_ path: String) throws -> ExternalUserAgentError {
        let error = try #require(throws: ExternalUserAgentError.self) { try loadManaged(path) }
        #expect(error.code == .configurationInvalid)
        #expect(error.message.hasPrefix("managed configuration file \(path) is refused: "), "\(error.message)")
        #expect(error.message.contains("owned by root and writable by no one else"), "\(error.message)")
        return error
    }

    @Test(
        "a managed file writable by everyone or by its group fails closed: loading throws, naming the file",
        arguments: [(0o666, "writable by everyone"), (0o664, "writable by its group"), (0o646, "writable by everyone")])
    func managedWritable(_ mode: Int, _ who: String) throws {
        let place = try Place()
        let managed = try place.write(to: place.etc.appendingPathComponent("managed.toml"), mode: mode)
        let error = try Self.refusedManaged(managed.path)
        #expect(error.message.contains("\(managed.path) is \(who)"), "\(error.message)")
        #expect(error.message.contains("run 'chmod go-w \(managed.path)'"), "\(error.message)")
    }

    @Test(
        "a managed file in a folder anyone may write, anywhere above it, fails closed",
        arguments: [0o777, 0o775, 0o757])
    func managedFolderWritable(_ mode: Int) throws {
        let place = try Place()
        let open = try place.folder("open", mode: mode)
        let deep = try place.folder("open/a/b", mode: 0o755)
        let managed = try place.write(to: deep.appendingPathComponent("managed.toml"))
        let error = try Self.refusedManaged(managed.path)
        #expect(error.message.contains("its folder \(open.path) is writable by"), "\(error.message)")
        #expect(error.message.contains("could replace the file"), "\(error.message)")
    }

    @Test("a folder with the sticky bit (like /tmp) may be writable by everyone: only an entry's owner can replace it")
    func stickyFolder() throws {
        let place = try Place()
        let shared = try place.folder("shared", mode: 0o1777)
        let managed = try place.write(to: shared.appendingPathComponent("managed.toml"))
        let configuration = try Self.loadManaged(managed.path)
        #expect(configuration.preference == ["firefox"])
        #expect(configuration[.preference]?.origin.layer == .managed)
    }

    @Test(
        "a managed file, a folder above it or a link to it owned by another user fails closed",
        arguments: ["file", "folder", "link"])
    func managedOwnedByAnother(_ what: String) throws {
        let place = try Place()
        let owned = try place.folder("owned", mode: 0o755)
        let target = try place.write(to: owned.appendingPathComponent("managed.toml"))
        let link = place.etc.appendingPathComponent("managed.toml")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: target)
        if geteuid() == 0 {
            let changed: String
            switch what {
            case "file":
                changed = target.path
                #expect(chown(target.path, Self.stranger, Self.stranger) == 0)
            case "folder":
                changed = owned.path
                #expect(chown(owned.path, Self.stranger, Self.stranger) == 0)
            default:
                changed = link.path
                #expect(lchown(link.path, Self.stranger, Self.stranger) == 0)
            }
            let error = try Self.refusedManaged(link.path)
            #expect(
                error.message.contains("\(changed) is owned by user \(Self.stranger), not by root or you"),
                "\(error.message)")
        } else {
            // Without root no file can be given away: the same rule, with the tester's files as someone else's.
            let error = try #require(throws: ExternalUserAgentError.self) {
                try Configuration.load(
                    sources: ConfigurationSources(
                        environment: [:], systemFiles: [], userFile: nil,
                        managedFile: link.path),
                    code: CodeConfiguration(), user: Self.stranger)
            }
            #expect(error.message.contains("is owned by user \(geteuid()), not by root or you"), "\(error.message)")
        }
    }

    @Test("a link to a managed file is checked where it leads: to a file or into a folder anyone may write")
    func managedLinkTarget() throws {
        let place = try Place()
        let open = try place.folder("open", mode: 0o777)
        let intoOpenFolder = try place.write(to: open.appendingPathComponent("managed.toml"))
        let writable = try place.write(to: place.etc.appendingPathComponent("writable.toml"), mode: 0o666)
        for (target, problem) in [
            (intoOpenFolder, "its folder \(open.path) is writable by everyone"),
            (writable, "\(writable.path) is writable by everyone"),
        ] {
            let link = place.etc.appendingPathComponent("link-\(target.lastPathComponent)")
            try FileManager.default.createSymbolicLink(
                atPath: link.path,
                withDestinationPath: "../"
                    + target.path
                    .dropFirst(place.folder.path.count + 1))
            let error = try Self.refusedManaged(link.path)
            #expect(error.message.contains(problem), "\(error.message)")
        }
        try place.write(to: place.etc.appendingPathComponent("good.toml"))
        let chain = place.etc.appendingPathComponent("chain.toml")
        try FileManager.default.createSymbolicLink(atPath: chain.path, withDestinationPath: "./good.toml")
        #expect(try Self.loadManaged(chain.path).preference == ["firefox"], "a link to a trusted file is followed")
    }

    @Test("a managed path that exists but is no regular file, or cannot be read, fails closed")
    func managedUnreadable() throws {
        let place = try Place()
        let fifo = place.etc.appendingPathComponent("managed.toml")
        #expect(mkfifo(fifo.path, 0o644) == 0)
        let error = try Self.refusedManaged(fifo.path)
        #expect(error.message.contains("not a regular file"), "\(error.message)")
        let loop = place.etc.appendingPathComponent("loop.toml")
        try FileManager.default.createSymbolicLink(atPath: loop.path, withDestinationPath: "loop.toml")
        #expect(try Self.refusedManaged(loop.path).message.contains("cannot read its file status"))
    }

    @Test("no managed file at all is fine, even under a folder anyone may write")
    func managedMissing() throws {
        let place = try Place()
        let open = try place.folder("open", mode: 0o777)
        #expect(try Self.loadManaged(open.appendingPathComponent("managed.toml").path).preference == ["*"])
        #expect(
            try Self.loadManaged(place.etc.appendingPathComponent("none/managed.toml").path).files[0].status
                == .notFound)
    }

    @Test("a system file someone else could change is skipped with a warning; the other layers still load")
    func systemUntrusted() throws {
        let place = try Place()
        let open = try place.folder("open", mode: 0o777)
        let system = try place.write(to: open.appendingPathComponent("config.toml"))
        let user = try place.write("deny = [\"tab\"]\n", to: place.etc.appendingPathComponent("user.toml"), mode: 0o666)
        let configuration = try Configuration.load(
            sources: ConfigurationSources(
                environment: [:], systemFiles: [system.path], userFile: user.path, managedFile: nil))
        #expect(configuration.preference == ["*"])
        #expect(configuration.deny.map(\.id) == ["tab"], "the user's own file is the user's business")
        #expect("\(configuration.files[0].status)".contains("its folder \(open.path) is writable by everyone"))
        #expect(configuration.warnings.contains { $0.description.contains("\(system.path): not read: its folder") })
    }

    @Test(
        "a file over 1 MiB is refused in every layer, naming the file; 1 MiB exactly is read",
        arguments: [ConfigurationLayer.system, .user, .managed])
    func sizeLimit(_ layer: ConfigurationLayer) throws {
        let place = try Place()
        let file = place.etc.appendingPathComponent("config.toml")
        func load() throws -> Configuration {
            try Configuration.load(
                sources: ConfigurationSources(
                    environment: [:], systemFiles: layer == .system ? [file.path] : [],
                    userFile: layer == .user ? file.path : nil, managedFile: layer == .managed ? file.path : nil))
        }
        let body = Self.policy + "#"
        let limit = 1 << 20
        try place.write(body + String(repeating: "x", count: limit - body.utf8.count) + "\n", to: file)
        let error = try #require(throws: ExternalUserAgentError.self) { try load() }
        #expect(error.code == .configurationInvalid)
        #expect(
            error.message.hasPrefix("\(file.path): the file is larger than the 1 MiB (1048576 bytes)"),
            "\(error.message)")
        #expect(error.message.contains("it has 1048577 bytes"), "\(error.message)")

        try place.write(body + String(repeating: "x", count: limit - body.utf8.count - 1) + "\n", to: file)
        #expect(try load().preference == ["firefox"])
    }

    @Test("a configuration file that is not UTF-8 is refused with file:line:column and what to do")
    func notUTF8() throws {
        let place = try Place()
        let file = place.etc.appendingPathComponent("config.toml")
        try (Data("# Réglages\n[agent-options.firefox]\nprofile = \"caf".utf8) + Data([0xE9]) + Data("\"\n".utf8))
            .write(to: file)
        let error = try #require(throws: ExternalUserAgentError.self) {
            try Configuration.load(
                sources: ConfigurationSources(
                    environment: [:], systemFiles: [], userFile: file.path,
                    managedFile: nil))
        }
        #expect(error.code == .configurationInvalid)
        #expect(
            error.message.hasPrefix("\(file.path):3:15: not valid TOML: expected UTF-8 text, found the byte 0xE9"),
            "\(error.message)")
        #expect(error.message.contains("save the file as UTF-8"), "\(error.message)")
        #expect(!error.message.contains("\u{FFFD}"))
    }

    @Test("a 9,300-part dotted key in a configuration file is an error with file:line:column, not a crash")
    func deepKey() throws {
        let error = try #require(throws: ExternalUserAgentError.self) {
            try Layers(user: "# deep\n" + String(repeating: "a.", count: 9_300) + "a = 1\n").configuration()
        }
        #expect(
            error.message.contains("home/.config/eua/config.toml:2:257: not valid TOML in 'a.a.a.a."),
            "\(error.message)")
        #expect(error.message.contains("expected values nested at most 128 deep"), "\(error.message)")
        #expect(error.message.utf8.count < 600, "the line and the key are shortened")
    }

    @Test(
        "timeouts beyond a day, infinite or not a number are refused, not converted",
        arguments: [
            "authorization = 1e300", "authorization = 1e19", "dismiss = inf", "dismiss = nan", "authorization = 86401",
        ])
    func hugeTimeouts(_ line: String) throws {
        let error = try #require(throws: ExternalUserAgentError.self) {
            try Layers(user: "[timeouts]\n\(line)\n").configuration()
        }
        #expect(error.message.contains("config.toml:2: key 'timeouts."), "\(error.message)")
        #expect(error.message.contains("at most 86400 (a day)"), "\(error.message)")
        #expect(
            try Layers(user: "[timeouts]\nauthorization = 86400\n").configuration().authorizationTimeout
                == .seconds(86_400))
    }

    @Test("an unknown key of 100,000 characters is a warning without a 'did you mean'")
    func longUnknownKey() throws {
        let configuration = try Layers(user: "\"" + String(repeating: "p", count: 100_000) + "\" = 1\n").configuration()
        #expect(configuration.warnings.count == 1)
        #expect(
            configuration.warnings.allSatisfy {
                $0.message.hasPrefix("unknown key") && !$0.message.contains("did you mean")
            })
    }
}
