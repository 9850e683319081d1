// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import EUATestSupport
import Foundation
import Testing

/// Every input kept for the `FuzzTOML` target — its seeds, which must stay valid configuration, and every
/// input that once broke the reader (`Fuzz/regressions/FuzzTOML/`) — fed to the real `eua` as the user's
/// configuration file: a seed is read cleanly, a regression input ends in a clear error or a clean run,
/// never a signal or a hang.
@Suite("FuzzTOML inputs through the built eua", .onOwnThreads, .timeLimit(.minutes(2)))
struct FuzzInputReplayTests {
    static func inputs(_ folder: String) -> [URL] {
        let url = TestPaths.packageRoot.appendingPathComponent("Fuzz/\(folder)")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []
        return names.filter { !$0.hasPrefix(".") }.sorted().map { url.appendingPathComponent($0) }
    }

    func explain(withUserFile input: URL) throws -> ProcessResult {
        let desktop = try IsolatedDesktop(lingerSeconds: 0)
        let file = desktop.folder.url.appendingPathComponent("config/eua/config.toml")
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: input, to: file)
        return try ProcessRunner.run(
            try TestPaths.product("eua"), ["explain", "--json"],
            environment: desktop.environment([:]), replacingEnvironment: true)
    }

    @Test(
        "the seed corpus is valid configuration (eua reads each seed with no error), and every kept regression input ends in a clear error or a clean run, never a signal"
    )
    func seedsAndRegressions() throws {
        let seeds = Self.inputs("corpus/FuzzTOML")
        #expect(seeds.count >= 3, "the seeds are where they belong")
        for seed in seeds where seed.lastPathComponent != "types.toml" {
            let run = try explain(withUserFile: seed)
            #expect(run.status == 0, "\(seed.lastPathComponent): \(run.stderr)")
        }
        // types.toml uses every TOML value type, most of which the schema does not know: warnings, no error.
        let types = try explain(
            withUserFile: TestPaths.packageRoot.appendingPathComponent("Fuzz/corpus/FuzzTOML/types.toml"))
        #expect(types.status == 0, "\(types.stderr)")
        #expect(types.stderr.contains("types.toml") || types.stdout.contains("unknown"), "unknown keys are reported")
        for input in Self.inputs("regressions/FuzzTOML") {
            let run = try explain(withUserFile: input)
            #expect(
                run.status == 0 || run.status == 1, "\(input.lastPathComponent): status \(run.status), \(run.stderr)")
            if run.status == 1 { #expect(run.stderr.contains("config.toml:"), "the error names the file and line") }
        }
    }
}
