// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import Foundation
import Testing

/// The toml-test suite (github.com/toml-lang/toml-test, MIT) as Debian installs it with
/// `golang-github-burntsushi-toml-dev` (scripts/bootstrap does); the project keeps no copy of it.
///
/// Debian 12's package (1.2.0-2) holds the 2022 snapshot for TOML 1.0.0: 100 valid cases (`valid/**/x.toml`
/// with the decoded value in `x.json`) and 234 invalid ones (`invalid/**/x.toml`). The `*.multi` files
/// beside them are the sources some invalid cases were generated from, not cases.
enum TOMLTestSuite {
    static let folder = URL(
        fileURLWithPath: "/usr/share/gocode/src/github.com/BurntSushi/toml/internal/toml-test/tests")

    /// Cases the reader deliberately answers the other way, each with why: a valid case listed here must be
    /// refused, an invalid one read (so an entry that is no longer true fails too).
    static let deliberateDifferences: [String: String] = [
        "valid/string/escape-esc": "'\\e' is new in TOML 1.1; the reader implements TOML 1.0.0, which refuses it "
            + "(toml-test itself leaves this case out of its 1.0.0 run)"
    ]

    /// One case: its name (`valid/array/empty`) and its `.toml` file.
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var file: URL
        var testDescription: String { name }

        /// The expected value of a valid case, from the `.json` beside it.
        var expectedJSON: URL { file.deletingPathExtension().appendingPathExtension("json") }
    }

    struct NotInstalled: Error, CustomStringConvertible {
        var description: String
    }

    /// Every case under `valid` or `invalid`, sorted by name; throws when the suite is not installed.
    static func cases(_ kind: String) throws -> [Case] {
        let root = folder.appendingPathComponent(kind)
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: root.path, isDirectory: &isFolder), isFolder.boolValue,
            let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)
        else {
            throw NotInstalled(
                description: "the toml-test suite is not at \(root.path): install Debian's "
                    + "golang-github-burntsushi-toml-dev (scripts/bootstrap does)")
        }
        var cases: [Case] = []
        for case let file as URL in walker where file.pathExtension == "toml" {
            let relative = file.path.dropFirst(folder.path.count + 1).dropLast(".toml".count)
            cases.append(Case(name: String(relative), file: file))
        }
        guard !cases.isEmpty else {
            throw NotInstalled(
                description: "no .toml case under \(root.path): reinstall golang-github-burntsushi-toml-dev")
        }
        return cases.sorted { $0.name < $1.name }
    }
}
