// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
@testable import ExternalUserAgentCore
import EUATestSupport
import Testing

/// What the TOML reader's results look like once the configuration schema has checked them.
@Suite("TOML through the configuration schema", .onOwnThreads)
struct TOMLConfigurationTests {
    @Test(
        "dates and times reach the configuration schema as a type error",
        arguments: [
            ("allow = 1979-05-27\n", "got a date"), ("allow = 07:32:00\n", "got a time"),
            ("allow = 1979-05-27T07:32:00Z\n", "got a date-time"), ("allow = [1979-05-27]\n", "got an array"),
        ])
    func datesInConfiguration(_ text: String, _ got: String) throws {
        let error = try #require(throws: ExternalUserAgentError.self) { try Layers(user: text).configuration() }
        #expect(error.message.contains("config.toml:1: key 'allow'"), "\(error.message)")
        #expect(error.message.contains(got), "\(error.message)")
    }

    @Test("[logout.end-session]: a mode per issuer; anything else is named with its file, line and key")
    func endSessionPerIssuer() throws {
        let configuration = try Layers(
            user: """
                [logout.end-session]
                "https://id.example.com/api/oidc" = "hint-get"
                """
        ).configuration()
        #expect(configuration.endSession(issuer: "https://id.example.com/api/oidc") == "hint-get")
        #expect(configuration.endSession(issuer: "https://other.example.com") == nil)
        let error = try #require(throws: ExternalUserAgentError.self) {
            try Layers(user: "[logout.end-session]\n\"https://id.example.com\" = \"hint\"\n").configuration()
        }
        #expect(
            error.message.contains("config.toml:2: key 'logout.end-session.\"https://id.example.com\"'"),
            "\(error.message)")
        #expect(error.message.contains("\"client-id\", \"hint-post\" or \"hint-get\""), "\(error.message)")
    }

    @Test("a syntax error in a CRLF file names its line and shows it")
    func crlfError() throws {
        let error = try #require(throws: ExternalUserAgentError.self) {
            try Layers(user: "a = 1\r\n[receiver]\r\nport = 80 80\r\n").configuration()
        }
        #expect(
            error.message.contains("config.toml:3:11: not valid TOML in 'port = 80 80': expected the end of the line"),
            "\(error.message)")
    }
}
