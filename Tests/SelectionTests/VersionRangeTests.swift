// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
@testable import ExternalUserAgentCore
import EUATestSupport
import Testing

@Suite("Version ranges and agent matchers", .onOwnThreads)
struct VersionRangeTests {
    @Test(
        "versions compare numerically; trailing zeros do not matter; text suffixes are dropped",
        arguments: [
            ("120.0.6099.109", "120.1", true), ("9", "10", true), ("115.0esr", "115.1", true),
            ("128", "128.0.0", false), ("1.10", "1.9", false),
        ])
    func ordering(_ low: String, _ high: String, _ less: Bool) throws {
        let a = try #require(BrowserVersion(low))
        let b = try #require(BrowserVersion(high))
        #expect((a < b) == less)
    }

    @Test("text that does not start with a number is no version")
    func notVersions() {
        #expect(BrowserVersion("esr") == nil)
        #expect(BrowserVersion("") == nil)
        #expect(BrowserVersion("v115") == nil)
    }

    @Test(
        "range forms",
        arguments: [
            (">=115", "115", true), (">=115", "114.9", false), (">115", "115.0", false), (">115", "115.0.1", true),
            ("<130", "129.9", true), ("<130", "130", false), ("<=130", "130.0", true),
            ("120..<130", "120.0.1", true), ("120..<130", "130", false), ("120...130", "130", true),
            ("==120.0.6099", "120.0.6099", true), ("=120", "120.1", false),
            ("120", "120.5.1", true), ("120", "121", false), ("*", "1", true),
        ])
    func forms(_ spec: String, _ version: String, _ expected: Bool) throws {
        let range = try VersionRange(parsing: spec)
        #expect(range.contains(BrowserVersion(version)) == expected, "\(spec) contains \(version)")
        #expect(try VersionRange(parsing: range.description) == range, "description round-trips: \(range)")
    }

    @Test("an unknown version never matches a range, not even *")
    func unknown() throws {
        for spec in ["*", ">=1", "<1000", "1..<1000", "1"] {
            #expect(try VersionRange(parsing: spec).contains(nil) == false)
        }
        #expect(try AgentMatcher(parsing: "firefox>=1").matches(id: "firefox", version: nil) == false)
        #expect(try AgentMatcher(parsing: "firefox>=1").matches(id: "firefox", version: "nightly") == false)
        #expect(
            try AgentMatcher(parsing: "firefox").matches(id: "firefox", version: nil),
            "no range: any version, known or not")
    }

    @Test("matchers: id, id with range, spaces, *")
    func matchers() throws {
        let firefox = try AgentMatcher(parsing: "firefox>=115")
        #expect(firefox.id == "firefox")
        #expect(firefox.matches(id: "firefox", version: "128.0"))
        #expect(!firefox.matches(id: "firefox", version: "102.15esr"))
        #expect(!firefox.matches(id: "chromium", version: "128.0"))
        let chromium = try AgentMatcher(parsing: "chromium 120..<130")
        #expect(chromium.matches(id: "chromium", version: "125.0.6422.60"))
        #expect(!chromium.matches(id: "chromium", version: "130.0"))
        #expect(try AgentMatcher(parsing: "* <100").matches(id: "anything", version: "99"))
        #expect(try AgentMatcher(parsing: "chromium 120..<130").description == "chromium 120..<130")
    }

    @Test(
        "bad matchers say what was expected",
        arguments: ["", ">=115", "firefox >= abc", "firefox 130..<120", "fire fox", "firefox ~1"])
    func bad(_ text: String) {
        #expect(throws: VersionRangeSyntaxError.self) { try AgentMatcher(parsing: text) }
    }
}
