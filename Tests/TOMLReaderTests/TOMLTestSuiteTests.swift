// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
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

    @Test(
        "invalid cases: refused with a line and column inside the file", arguments: try TOMLTestSuite.cases("invalid"))
    func invalid(_ testCase: TOMLTestSuite.Case) throws {
        let bytes = try [UInt8](Data(contentsOf: testCase.file))
        if let reason = TOMLTestSuite.deliberateDifferences[testCase.name] {
            #expect(throws: Never.self, "read on purpose: \(reason)") {
                try TOMLDocument(bytes: bytes, file: testCase.name)
            }
            return
        }
        let error = try #require(throws: TOMLSyntaxError.self, "\(testCase.name).toml was read") {
            try TOMLDocument(bytes: bytes, file: testCase.name + ".toml")
        }
        let lines = bytes.count(where: { $0 == UInt8(ascii: "\n") }) + 1
        #expect(error.line >= 1 && error.line <= lines && error.column >= 1, "\(error)")
        #expect(error.file == testCase.name + ".toml" && error.message.hasPrefix("expected"), "\(error)")
    }

    @Test(
        "the comparison with the expected JSON finds each kind of difference, and accepts equal moments",
        arguments: [
            (#"{"a": {"type": "integer", "value": "1"}}"#, "a = 2", "expected integer 1, read 2"),
            (#"{"a": {"type": "integer", "value": "1"}}"#, "a = 1.0", "read a floating-point number"),
            (#"{"a": {"type": "float", "value": "-0"}}"#, "a = 0.0", "expected float -0"),
            (#"{"a": {"type": "float", "value": "-inf"}}"#, "a = inf", "expected float -inf"),
            (#"{"a": {"type": "float", "value": "nan"}}"#, "a = 1.0", "expected float nan"),
            (#"{"a": {"type": "string", "value": "x"}}"#, "a = 'y'", "expected string x"),
            (#"{"a": {"type": "bool", "value": "true"}}"#, "a = false", "expected bool true"),
            (
                #"{"a": {"type": "datetime", "value": "1979-05-27T07:32:00Z"}}"#, "a = 1979-05-27 00:32:00+00:00",
                "expected datetime"
            ),
            (
                #"{"a": {"type": "datetime", "value": "1979-05-27T07:32:00Z"}}"#, "a = 1979-05-27T07:32:00",
                "read a date-time"
            ),
            (
                #"{"a": {"type": "datetime-local", "value": "1979-05-27T07:32:00"}}"#, "a = 1979-05-27T07:32:00Z",
                "read a date-time"
            ),
            (
                #"{"a": {"type": "datetime-local", "value": "1979-05-27T07:32:00.5"}}"#, "a = 1979-05-27T07:32:00.501",
                "expected datetime-local"
            ),
            (#"{"a": {"type": "date-local", "value": "1979-05-27"}}"#, "a = 1979-05-28", "expected date-local"),
            (#"{"a": {"type": "time-local", "value": "07:32:00"}}"#, "a = 07:32:01", "expected time-local"),
            (#"{"a": [{"type": "string", "value": "x"}]}"#, "a = ['x', 'y']", "expected 1 elements, read 2"),
            (#"{"a": {"b": {"type": "bool", "value": "true"}}}"#, "a.c = true", #"missing ["b"], extra ["c"]"#),
            (#"{"a": {"type": "string", "value": "x"}}"#, "a = 'x'\nb = 1", #"extra ["b"]"#),
            (#"{"a": {}}"#, "a = []", "expected a table, read an array"),
            // Equal: the same moment, value or table written another way.
            (#"{"a": {"type": "datetime", "value": "1979-05-27T07:32:00Z"}}"#, "a = 1979-05-27t00:32:00-07:00", ""),
            (#"{"a": {"type": "datetime", "value": "2000-01-01T00:30:00+01:00"}}"#, "a = 1999-12-31 23:30:00.000z", ""),
            (
                #"{"a": {"type": "datetime-local", "value": "1979-05-27T07:32:00.5"}}"#, "a = 1979-05-27 07:32:00.500",
                ""
            ),
            (#"{"a": {"type": "float", "value": "+inf"}}"#, "a = inf", ""),
            (#"{"a": {"type": "float", "value": "0"}}"#, "a = -0.0", ""),
            (#"{"a": [{"b": {}}]}"#, "[[a]]\n[a.b]", ""),
        ])
    func comparison(_ json: String, _ toml: String, _ difference: String) throws {
        let expected = try JSONDecoder().decode(TaggedJSON.self, from: Data(json.utf8))
        let root = try TOMLDocument(parsing: toml).root
        let found = expected.difference(from: .table(root), at: "")
        if difference.isEmpty {
            #expect(found == nil)
        } else {
            #expect(found?.contains(difference) == true, "\(found ?? "no difference")")
        }
    }
}
