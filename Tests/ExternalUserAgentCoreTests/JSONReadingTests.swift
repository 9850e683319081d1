// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import ExternalUserAgentCore
import ExternalUserAgentABI
import Foundation
import Testing

/// The hand-written JSON reader of the ABI: what it accepts reads as `JSONDecoder` reads it, what it refuses
/// is named with the byte where reading stopped, and the wire shapes read back what they wrote.
@Suite("JSON reading for the ABI")
struct JSONReadingTests {
    private func foundation(_ text: String) -> JSONValue? {
        try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
    }

    @Test(
        "valid texts read as JSONDecoder reads them",
        arguments: [
            #"{"a":[1,-0.5,2e3,1E-2,0,-0],"b":{"c":null,"d":true,"e":false},"f":"x\"\\\/\b\f\n\r\tü\u00e9\ud83d\ude00"}"#,
            " \t\r\n[ ] ", "{}", "\"\"", "123456789012345678901234567890", "1.7976931348623157e308", "null",
            #"[[[[{"deep":[1]}]]]]"#, "\"\u{7F}é漢😀\"", "[5e-324,0.000e-999,-0.0,0e+3]",
        ])
    func matchesFoundation(_ text: String) throws {
        let value = try JSONValue(parsing: text)
        #expect(value == foundation(text), "\(text)")
        #expect(try JSONValue(parsing: value.jsonText) == value, "what it reads, written and read again, is the same")
    }

    @Test("a zero with an unsigned exponent is a number (RFC 8259), though JSONDecoder refuses it")
    func zeroWithExponent() throws {
        #expect(try JSONValue(parsing: "[0e3,0E1,-0e2]") == .array([.number(0), .number(0), .number(0)]))
        #expect(foundation("[0e3]") == nil, "if JSONDecoder now reads it, FuzzPluginJSON may compare such texts again")
    }

    @Test("every input the fuzzer kept reads or is refused by the host's checks, never a trap")
    func fuzzRegressions() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Fuzz/regressions/FuzzPluginJSON")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { !$0.hasPrefix(".") }
        #expect(!names.isEmpty)
        for name in names {
            let bytes = try [UInt8](Data(contentsOf: folder.appendingPathComponent(name)))
            bytes.withUnsafeBufferPointer { buffer in
                PluginInput.checkDescription(bytes: buffer)
                PluginInput.checkEvent(bytes: buffer)
            }
            let text = String(decoding: bytes, as: UTF8.self)
            if let value = try? JSONValue(parsing: text) {
                #expect(try JSONValue(parsing: value.jsonText) == value, "\(name)")
            }
        }
    }

    @Test(
        "invalid texts are refused, saying what and where",
        arguments: [
            ("", "the text ends where a value should be at byte 0"),
            ("{\"a\":1,}", "a member name (a string) expected at byte 7"),
            ("[1,]", "not the start of a JSON value at byte 3"),
            ("01", "text after the value at byte 1"),
            ("1.", "a digit expected after '.' in a number at byte 2"),
            ("-", "a digit expected in a number at byte 1"),
            ("1e", "a digit expected in a number's exponent at byte 2"),
            ("1e400", "a number too large for a 64-bit floating-point value at byte 0"),
            ("[2e-341]", "a number too small for a 64-bit floating-point value at byte 1"),
            ("NaN", "not the start of a JSON value at byte 0"),
            ("tru", "not the start of a JSON value at byte 0"),
            ("\"a\u{1}\"", "a control character inside a string (it must be escaped) at byte 2"),
            ("\"\\x\"", "an unknown escape in a string at byte 2"),
            ("\"\\ud800\"", "a high surrogate (\\u) without a low one after it at byte 7"),
            ("\"\\udc00\"", "a low surrogate (\\u) without a high one before it at byte 7"),
            ("\"\\u12g4\"", "four hex digits expected after \\u at byte 5"),
            ("{\"a\":1,\"a\":2}", "a member name given twice in one object at byte 7"),
            ("{\"a\" 1}", "':' expected after a member name at byte 5"),
            ("[1 2]", "',' or ']' expected in an array at byte 3"),
            ("\"open", "the text ends inside a string at byte 5"),
            ("{} {}", "text after the value at byte 3"),
            ("// c\n1", "not the start of a JSON value at byte 0"),
        ])
    func refused(_ text: String, _ message: String) {
        #expect(throws: JSONSyntaxError.self) { try JSONValue(parsing: text) }
        do {
            _ = try JSONValue(parsing: text)
        } catch {
            #expect(error.description == message)
        }
    }

    @Test("nesting deeper than the limit is refused, at the limit read")
    func depth() throws {
        let limit = JSONValue.maximumDepth
        _ = try JSONValue(parsing: String(repeating: "[", count: limit) + String(repeating: "]", count: limit))
        let tooDeep = String(repeating: "[", count: limit + 1) + String(repeating: "]", count: limit + 1)
        #expect(throws: JSONSyntaxError.self) { try JSONValue(parsing: tooDeep) }
        // A hostile depth is refused early, without recursing through it.
        let hostile = String(repeating: "[", count: 1_000_000)
        #expect(throws: JSONSyntaxError.self) { try JSONValue(parsing: hostile) }
    }

    @Test(
        "every event, request and error reads back what it wrote, and as JSONDecoder reads it",
        arguments: [
            PluginABI.Event.presented, .redirect(url: "http://127.0.0.1:1/cb?code=a&state=b"),
            .listening(redirectURI: "http://[::1]:8/"), .callback(url: "x:/y"), .refused(status: 404, reason: "no"),
            .finished, .failed(.init(code: "presentationFailed", message: "no \"display\"\n")),
        ])
    func events(_ event: PluginABI.Event) throws {
        #expect(try PluginABI.Event(jsonText: event.jsonText) == event)
        #expect(try PluginABI.decode(PluginABI.Event.self, from: event.jsonText) == event)
        #expect(try PluginABI.Event(jsonText: PluginABI.encode(event)) == event)
    }

    @Test("requests, errors and options round-trip; absent values are left out")
    func requests() throws {
        let agent = PluginABI.AgentRequest(
            url: "https://idp/authorize?a=1", redirectURI: "http://127.0.0.1:5/", timeoutSeconds: 1.5)
        #expect(try PluginABI.AgentRequest(jsonText: agent.jsonText) == agent)
        #expect(try PluginABI.decode(PluginABI.AgentRequest.self, from: agent.jsonText) == agent)
        #expect(PluginABI.AgentRequest(url: "u").jsonText == #"{"url":"u"}"#)
        // The purpose (issue 40.6): a sign-out says so; an older host's request (no member) reads as a sign-in.
        let signOut = PluginABI.AgentRequest(url: "https://idp/logout", timeoutSeconds: 5, purpose: "sign-out")
        #expect(try PluginABI.AgentRequest(jsonText: signOut.jsonText) == signOut)
        #expect(try PluginABI.decode(PluginABI.AgentRequest.self, from: signOut.jsonText).isSignOut)
        #expect(try !PluginABI.AgentRequest(jsonText: #"{"url":"u"}"#).isSignOut)
        let receiver = PluginABI.ReceiverRequest(state: "s", path: "/cb", timeoutSeconds: 30)
        #expect(try PluginABI.ReceiverRequest(jsonText: receiver.jsonText) == receiver)
        #expect(PluginABI.ReceiverRequest().jsonText == "{}")
        let error = PluginABI.ErrorValue(code: "invalidOptions", message: "m")
        #expect(try PluginABI.ErrorValue(jsonText: error.jsonText) == error)
        #expect(
            try PluginABI.options(fromJSONText: PluginABI.jsonText(options: ["a": "1", "b": "é"])) == [
                "a": "1", "b": "é",
            ])
        #expect(try PluginABI.options(fromJSONText: nil) == [:])
        #expect(try PluginABI.options(fromJSONText: "") == [:])
    }

    @Test(
        "a wrong shape names the member and what was expected",
        arguments: [
            (
                #"{"event":"refused","status":1.5,"reason":"r"}"#,
                "wrong type at 'status': expected a whole number below 2^53"
            ),
            (
                #"{"event":"refused","status":4222222222222222200,"reason":"r"}"#,
                "wrong type at 'status': expected a whole number below 2^53"
            ),
            (#"{"event":"failed","error":{"code":"c"}}"#, "missing key 'error.message'"),
            (#"{"event":"nope"}"#, #"unknown event "nope""#),
            (#"{"url":"u"}"#, "missing key 'event'"),
            (#"[]"#, "not a JSON object"),
            (#"{"event":"#, "not JSON: the text ends where a value should be at byte 9"),
        ])
    func eventShapes(_ text: String, _ message: String) {
        do {
            _ = try PluginABI.Event(jsonText: text)
            Issue.record("accepted \(text)")
        } catch {
            #expect(error.description == message)
        }
    }

    @Test("a description: defaults as before, null as absent, wrong types named with their place")
    func descriptions() throws {
        let read = try PluginABI.PluginDescription(
            jsonText: #"{"id":"p","agents":[{"id":"a","kind":null,"reasons":["r"]}]}"#)
        #expect(
            read
                == PluginABI.PluginDescription(
                    id: "p", name: "p", version: "unknown",
                    agents: [PluginABI.Component(id: "a", name: "a", reasons: ["r"])]))
        #expect(throws: PluginABI.TextError.self) {
            try PluginABI.PluginDescription(jsonText: #"{"id":"p","agents":[{"id":"a","available":"yes"}]}"#)
        }
        do {
            _ = try PluginABI.PluginDescription(jsonText: #"{"id":"p","receivers":[{"id":"r","reasons":[1]}]}"#)
        } catch {
            #expect(error.description == "wrong type at 'receivers.0.reasons.0': expected a string")
        }
        do {
            _ = try PluginABI.options(fromJSONText: #"{"a":1}"#)
        } catch {
            #expect(error.description == "wrong type at 'a': expected a string")
        }
    }
}
