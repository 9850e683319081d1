// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import EUATestSupport
import ExternalUserAgentCore
import Foundation
import Testing

/// The loader checks the file a path resolves to and every folder above it (and a symlink's own folder):
/// owned by root or the user, writable by no group or other, except a sticky folder above the plugin's own.
/// The tests run as root; another owner is made with `chown` to an unused uid.
@Suite("Plugin file safety", .onOwnThreads, .timeLimit(.minutes(1)))
struct PluginFileSafetyTests {
    static let stranger: UInt32 = 4242

    func load(_ folder: URL) -> PluginCatalog {
        PluginLoader(searchPath: PluginSearchPath(folders: [folder.path])).load()
    }

    func chmod(_ mode: Int, _ url: URL) throws {
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: url.path)
    }

    func refusal(_ catalog: PluginCatalog, path: URL) throws -> String {
        #expect(catalog.agents.isEmpty, "nothing of it loads")
        #expect(catalog.failures.count == 1, "\(catalog.failures)")
        let failure = try #require(catalog.failures.first)
        #expect(failure.path == path.path)
        #expect(failure.error.code == .pluginInsecurePermissions)
        return failure.error.message
    }

    @Test("the normal case still loads, and so does a symlink to a safe file (reported under the link's path)")
    func normal() throws {
        let folder = try TemporaryFolder()
        let plugins = try folder.folder("plugins")
        let elsewhere = try folder.folder("elsewhere")
        _ = try CPluginBuilder.build(name: "libok.so", in: plugins)
        #expect(load(plugins).agent(id: "misbehaving") != nil)
        let target = try CPluginBuilder.build(defines: ["PLUGIN_ID=\"linked\""], name: "liblinked.so", in: elsewhere)
        let links = try folder.folder("links")
        let link = links.appendingPathComponent("liblinked.so")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: target)
        let catalog = load(links)
        #expect(catalog.failures.isEmpty, "\(catalog.failures)")
        #expect(catalog.agent(id: "linked")?.descriptor.path == link.path)
    }

    @Test("a symlink to a .so in a world-writable folder is refused, naming the target's folder")
    func symlinkIntoWorldWritable() throws {
        let folder = try TemporaryFolder()
        let open = try folder.folder("open")
        let links = try folder.folder("links")
        let target = try CPluginBuilder.build(name: "libok.so", in: open)
        try chmod(0o777, open)
        let link = links.appendingPathComponent("libok.so")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: target)
        let message = try refusal(load(links), path: link)
        #expect(message.contains("its folder \(open.path) is writable by everyone"), "\(message)")
        #expect(message.contains("chmod go-w \(open.path)"))
    }

    @Test("a symlink placed in a world-writable folder is refused even when its target is safe")
    func symlinkInWorldWritable() throws {
        let folder = try TemporaryFolder()
        let safe = try folder.folder("safe")
        let open = try folder.folder("open")
        let target = try CPluginBuilder.build(name: "libok.so", in: safe)
        let link = open.appendingPathComponent("libok.so")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: target)
        try chmod(0o1777, open)
        let message = try refusal(load(open), path: link)
        #expect(message.contains("its folder \(open.path)"), "the link's own folder, sticky or not: \(message)")
    }

    @Test("a world-writable folder above the plugin's folder is refused; a sticky one (like /tmp) is not")
    func worldWritableParent() throws {
        let folder = try TemporaryFolder()
        let parent = try folder.folder("parent")
        let plugins = parent.appendingPathComponent("plugins")
        try FileManager.default.createDirectory(
            at: plugins, withIntermediateDirectories: false,
            attributes: [.posixPermissions: 0o755])
        let lib = try CPluginBuilder.build(name: "libok.so", in: plugins)
        try chmod(0o777, parent)
        let message = try refusal(load(plugins), path: lib)
        #expect(message.contains("the folder above it \(parent.path) is writable by everyone"), "\(message)")
        #expect(message.contains("sticky bit"))
        try chmod(0o1777, parent)
        #expect(load(plugins).agent(id: "misbehaving") != nil, "a sticky folder above is allowed")
        try chmod(0o775, parent)
        #expect(try refusal(load(plugins), path: lib).contains("writable by its group"))
    }

    @Test("the plugin's own folder may not be group-writable, nor world-writable with the sticky bit")
    func ownFolder() throws {
        let folder = try TemporaryFolder()
        let plugins = try folder.folder("plugins")
        let lib = try CPluginBuilder.build(name: "libok.so", in: plugins)
        try chmod(0o775, plugins)
        #expect(try refusal(load(plugins), path: lib).contains("its folder \(plugins.path) is writable by its group"))
        try chmod(0o1777, plugins)
        #expect(try refusal(load(plugins), path: lib).contains("writable by everyone"))
    }

    @Test("a plugin file owned by another user, or in a folder owned by one, is refused")
    func otherOwner() throws {
        let folder = try TemporaryFolder()
        let plugins = try folder.folder("plugins")
        let lib = try CPluginBuilder.build(name: "libok.so", in: plugins)
        guard chown(lib.path, Self.stranger, Self.stranger) == 0 else {
            Issue.record("chown failed (errno \(errno)): the tests run as root")
            return
        }
        let message = try refusal(load(plugins), path: lib)
        #expect(message.contains("the plugin file \(lib.path) is owned by user id \(Self.stranger)"), "\(message)")
        #expect(chown(lib.path, 0, 0) == 0)
        #expect(chown(plugins.path, Self.stranger, Self.stranger) == 0)
        #expect(
            try refusal(load(plugins), path: lib).contains(
                "its folder \(plugins.path) is owned by user id \(Self.stranger)"))
    }

    @Test("a group-writable plugin file is refused")
    func groupWritableFile() throws {
        let folder = try TemporaryFolder()
        let lib = try CPluginBuilder.build(name: "libok.so", in: folder.url)
        try chmod(0o775, lib)
        #expect(
            try refusal(load(folder.url), path: lib).contains("the plugin file \(lib.path) is writable by its group"))
    }
}
