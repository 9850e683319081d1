// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
@testable import ExternalUserAgentCore
import EUATestSupport
import Foundation
import Testing

/// The needed libraries read from an ELF file decide whether a plugin waits for the runtime's names
/// (SwiftRuntimeNames); a file that cannot be read as ELF is nil, never a guess.
@Suite("ELF needed libraries", .timeLimit(.minutes(1)))
struct ELFNeededLibrariesTests {
    @Test("the test process names the Swift runtime; libc names the dynamic loader, as readelf says")
    func realFiles() throws {
        let own = try #require(ELFNeededLibraries.read("/proc/self/exe"))
        #expect(own.contains("libswiftCore.so"), "\(own)")
        let libc = try #require(
            ["/lib/x86_64-linux-gnu/libc.so.6", "/lib/aarch64-linux-gnu/libc.so.6"]
                .first { FileManager.default.fileExists(atPath: $0) })
        let readelf = Process()
        readelf.executableURL = URL(fileURLWithPath: "/usr/bin/readelf")
        readelf.arguments = ["-d", libc]
        let pipe = Pipe()
        readelf.standardOutput = pipe
        try readelf.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        readelf.waitUntilExit()
        let expected = output.split(separator: "\n").filter { $0.contains("(NEEDED)") }.compactMap { line in
            line.split(separator: "[").last?.split(separator: "]").first.map(String.init)
        }
        #expect(!expected.isEmpty)
        #expect(ELFNeededLibraries.read(libc) == expected)
    }

    @Test("text, a missing file, a truncated ELF file and a folder are nil")
    func notELF() throws {
        let folder = try TemporaryFolder()
        let text = folder.path + "/text.so"
        try Data(
            "not an ELF file at all, but long enough to hold a header: 0123456789012345678901234567890123456789"
                .utf8
        ).write(to: URL(fileURLWithPath: text))
        #expect(ELFNeededLibraries.read(text) == nil)
        #expect(ELFNeededLibraries.read(folder.path + "/missing.so") == nil)
        let whole = try Data(contentsOf: URL(fileURLWithPath: "/proc/self/exe"))
        let truncated = folder.path + "/truncated.so"
        try whole.prefix(100).write(to: URL(fileURLWithPath: truncated))
        #expect(ELFNeededLibraries.read(truncated) == nil)
        #expect(ELFNeededLibraries.read(folder.path) == nil)
    }

    @Test("a test process on the toolchain's runtime never waits for the runtime's names")
    func toolchainRuntime() {
        #expect(!SwiftRuntimeNames.mustAnswerNames(before: "/proc/self/exe"))
    }
}
