// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import EUATestSupport
import ExternalUserAgentCore
import ExternalUserAgentSystem
import Foundation
import Testing

/// The host's small file work with plain system calls: what it reads, refuses, lists and makes.
@Suite("Small files", .timeLimit(.minutes(1)))
struct SmallFilesTests {
    @Test("a file is read whole; a missing one is nil; a folder, a FIFO and an oversized file are refused")
    func reading() throws {
        let folder = try TemporaryFolder()
        let file = folder.path + "/file"
        try Data("hello\n".utf8).write(to: URL(fileURLWithPath: file))
        #expect(try SmallFiles.read(file, limit: 6) == Array("hello\n".utf8))
        #expect(try SmallFiles.read(folder.path + "/missing", limit: 6) == nil)
        #expect(try SmallFiles.read(file + "/below-a-file", limit: 6) == nil, "ENOTDIR is nothing there too")

        #expect(throws: SmallFiles.Failure(reason: "it has 6 bytes, over the 5 allowed", isTooLarge: true)) {
            try SmallFiles.read(file, limit: 5)
        }
        #expect(throws: SmallFiles.Failure(reason: "it is not a regular file")) {
            try SmallFiles.read(folder.path, limit: 100)
        }
        let fifo = folder.path + "/fifo"
        #expect(mkfifo(fifo, 0o600) == 0)
        // Without O_NONBLOCK the open would wait for a writer forever.
        #expect(throws: SmallFiles.Failure(reason: "it is not a regular file")) {
            try SmallFiles.read(fifo, limit: 100)
        }
        let empty = folder.path + "/empty"
        #expect(FileManager.default.createFile(atPath: empty, contents: nil))
        #expect(try SmallFiles.read(empty, limit: 0) == [])
    }

    @Test("a file that reports no size (like those in /proc) is read past its status, up to the limit")
    func readingPastStatus() throws {
        let status = try #require(try SmallFiles.read("/proc/self/status", limit: 1 << 20))
        #expect(String(decoding: status, as: UTF8.self).contains("Name:"))
        #expect(
            throws: SmallFiles.Failure(reason: "it grew past the 10 bytes allowed while it was read", isTooLarge: true)
        ) {
            try SmallFiles.read("/proc/self/status", limit: 10)
        }
    }

    @Test("a folder's names are sorted, without . and ..; a missing folder has none")
    func listing() throws {
        let folder = try TemporaryFolder()
        for name in ["b.so", ".hidden.so", "a.so", "c.txt"] {
            #expect(FileManager.default.createFile(atPath: folder.path + "/" + name, contents: nil))
        }
        _ = try folder.folder("sub")
        #expect(SmallFiles.names(in: folder.path) == [".hidden.so", "a.so", "b.so", "c.txt", "sub"])
        #expect(SmallFiles.names(in: folder.path + "/missing").isEmpty)
    }

    @Test("folders are made with their parents and the mode asked for; an existing one is left as it is")
    func makingFolders() throws {
        let folder = try TemporaryFolder()
        let deep = folder.path + "/a/b/c"
        #expect(SmallFiles.makeFolders(deep, mode: 0o700) == nil)
        var info = stat()
        #expect(stat(deep, &info) == 0 && info.st_mode & 0o777 == 0o700)
        #expect(SmallFiles.makeFolders(deep, mode: 0o755) == nil)
        #expect(stat(deep, &info) == 0 && info.st_mode & 0o777 == 0o700, "an existing folder keeps its mode")
        let file = folder.path + "/file"
        #expect(FileManager.default.createFile(atPath: file, contents: nil))
        let problem = try #require(SmallFiles.makeFolders(file + "/x", mode: 0o700))
        #expect(problem.hasPrefix("could not make the folder \(file)/x: "), "\(problem)")
    }

    @Test("a file is replaced atomically with its mode, leaving no temporary file; a failure says where")
    func replacing() throws {
        let folder = try TemporaryFolder()
        let file = folder.path + "/index"
        #expect(SmallFiles.replace(file, with: "one\n", mode: 0o644) == nil)
        #expect(SmallFiles.replace(file, with: "two\n", mode: 0o644) == nil)
        #expect(try SmallFiles.read(file, limit: 100) == Array("two\n".utf8))
        var info = stat()
        #expect(stat(file, &info) == 0 && info.st_mode & 0o777 & ~0o644 == 0, "at most the mode asked for")
        #expect(SmallFiles.names(in: folder.path) == ["index"])
        let problem = try #require(SmallFiles.replace(folder.path + "/missing/index", with: "x", mode: 0o644))
        #expect(problem.hasPrefix("could not write \(folder.path)/missing/index.tmp-"), "\(problem)")
    }

    @Test("a path's folder and last name, trailing slashes ignored")
    func pathParts() {
        #expect(SmallFiles.folder(of: "/usr/lib/eua") == "/usr/lib")
        #expect(SmallFiles.folder(of: "/usr/lib/eua/") == "/usr/lib")
        #expect(SmallFiles.folder(of: "/usr") == "/")
        #expect(SmallFiles.folder(of: "/") == "/")
        #expect(SmallFiles.folder(of: "name") == ".")
        #expect(SmallFiles.lastName(of: "/usr/lib/eua/") == "eua")
        #expect(SmallFiles.lastName(of: "/") == "/")
        #expect(SmallFiles.lastName(of: "name") == "name")
        #expect(PluginSearchPath.installedFolder(executableFolder: "/usr/lib/eua/") == "/usr/lib/eua/plugins")
        #expect(PluginSearchPath.installedFolder(executableFolder: "/opt/eua/bin/") == "/opt/eua/lib/eua/plugins")
        #expect(PluginSearchPath.installedFolder(executableFolder: "/bin") == "/lib/eua/plugins")
        #expect(PluginSearchPath.installedFolder(executableFolder: "/usr/libexec/eua") == "/usr/lib/eua/plugins")
    }

    @Test("the executable's folder is the one /proc/self/exe points into")
    func executableFolder() throws {
        let target = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        #expect(PluginSearchPath.executableDirectory() == URL(fileURLWithPath: target).deletingLastPathComponent().path)
    }
}
