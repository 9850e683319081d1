import Foundation
import Testing
@testable import TOMLReader

/// The reader against the whole toml-test suite: every valid case read to the expected value, every
/// invalid case refused with a line and column inside the file.
@Suite("toml-test suite")
struct TOMLTestSuiteTests {
    @Test("the suite is installed, with the cases of its 2022 TOML 1.0.0 snapshot")
    func installed() throws {
        let valid = try TOMLTestSuite.cases("valid")
        let invalid = try TOMLTestSuite.cases("invalid")
        #expect(valid.count >= 100 && invalid.count >= 234, "\(valid.count) valid, \(invalid.count) invalid cases")
        for name in TOMLTestSuite.deliberateDifferences.keys {
            #expect((valid + invalid).contains { $0.name == name }, "\(name) is listed but not in the suite")
        }
    }

    @Test("valid cases: read, and equal to the expected JSON", arguments: try TOMLTestSuite.cases("valid"))
    func valid(_ testCase: TOMLTestSuite.Case) throws {
        let bytes = try [UInt8](Data(contentsOf: testCase.file))
        if let reason = TOMLTestSuite.deliberateDifferences[testCase.name] {
            #expect(throws: TOMLSyntaxError.self, "refused on purpose: \(reason)") {
                try TOMLDocument(bytes: bytes, file: testCase.name)
            }
            return
        }
        let expected = try JSONDecoder().decode(TaggedJSON.self, from: Data(contentsOf: testCase.expectedJSON))
        let document: TOMLDocument
        do {
            document = try TOMLDocument(bytes: bytes, file: testCase.name + ".toml")
        } catch {
            Issue.record("refused a valid document: \(error)")
            return
        }
        let difference = expected.difference(from: .table(document.root), at: "")
        #expect(difference == nil, "\(testCase.name).toml: \(difference ?? "")")
    }

    @Test("invalid cases: refused with a line and column inside the file", arguments: try TOMLTestSuite.cases("invalid"))
    func invalid(_ testCase: TOMLTestSuite.Case) throws {
        let bytes = try [UInt8](Data(contentsOf: testCase.file))
        if let reason = TOMLTestSuite.deliberateDifferences[testCase.name] {
            #expect(throws: Never.self, "read on purpose: \(reason)") { try TOMLDocument(bytes: bytes, file: testCase.name) }
            return
        }
        let error = try #require(throws: TOMLSyntaxError.self, "\(testCase.name).toml was read") {
            try TOMLDocument(bytes: bytes, file: testCase.name + ".toml")
        }
        let lines = bytes.count(where: { $0 == UInt8(ascii: "\n") }) + 1
        #expect(error.line >= 1 && error.line <= lines && error.column >= 1, "\(error)")
        #expect(error.file == testCase.name + ".toml" && error.message.hasPrefix("expected"), "\(error)")
    }
}
