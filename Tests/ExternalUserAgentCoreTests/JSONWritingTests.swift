// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import ExternalUserAgentABI
import Foundation
import Testing

/// The hand-written JSON of `describe()` reads back as what was written, through `JSONDecoder`.
@Suite("JSON writing for the ABI")
struct JSONWritingTests {
    @Test("a description round-trips through JSONDecoder, optionals left out when absent")
    func roundTrip() throws {
        let description = PluginABI.PluginDescription(
            id: "p", name: "Plugin \"quoted\"", version: "1.2",
            agents: [
                PluginABI.Component(
                    id: "a", kind: "externalBrowser", name: "A/B", version: "3", available: false,
                    reasons: ["no display\n(try ssh -X)", "tab\there"],
                    details: [
                        "handler": .string("x.desktop"), "count": .number(3), "ratio": .number(0.25),
                        "nested": .array([.bool(true), .null, .object(["é": .string("ü\u{1}")])]),
                    ]),
                PluginABI.Component(id: "b", name: "B"),
            ],
            receivers: [PluginABI.Component(id: "r", name: "R")])
        let text = description.jsonText
        #expect(try PluginABI.decode(PluginABI.PluginDescription.self, from: text) == description)
        #expect(!text.contains("\n"), "one line")
        #expect(text.contains("\"name\":\"A/B\""), "slashes unescaped")
        #expect(text.contains("\\u0001"))
        #expect(!text.contains("\"kind\":null"), "an absent kind is left out")
        #expect(text.hasPrefix("{\"agents\":"), "keys sorted")
    }

    @Test(
        "numbers: integers exactly, fractions shortest, no infinity or NaN",
        arguments: [
            (3.0, "3"), (-0.5, "-0.5"), (1e21, "1e+21"), (9_007_199_254_740_991, "9007199254740991"),
            (Double.infinity, "null"), (Double.nan, "null"),
        ])
    func numbers(_ value: Double, _ text: String) {
        #expect(JSONValue.number(value).jsonText == text)
    }

    @Test("every control character is escaped and the text is valid JSON")
    func controls() throws {
        let all = String((0..<0x20).map { Character(Unicode.Scalar($0)!) }) + "\"\\/"
        let text = JSONValue.string(all).jsonText
        let back = try JSONDecoder().decode(String.self, from: Data(text.utf8))
        #expect(back == all)
    }
}
