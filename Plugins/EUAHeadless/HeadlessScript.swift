// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#if canImport(Glibc)
import Glibc
#endif
import ExternalUserAgentPluginKit

/// What the headless agent does, chosen by agent options.
///
/// - `mode`: `redirect` (default) delivers a redirect with a code; `error` delivers an OAuth error
///   redirect; `cancel` acts as if the person gave up; `never` never answers; `fail` cannot present;
///   `follow` acts as a browser against the real server over http or https (``BrowserFollow`` has its
///   rules): GETs the authorization URL with cookies kept for the flow, follows redirects, submits HTML
///   forms (filled with `form.NAME`, credentials at most once), and delivers the redirect it reaches.
/// - `form.NAME=VALUE`: a form field to fill in follow mode (`form.sub=alice`); it replaces the
///   form's own value of that name and goes only to forms that have it; naming a submit button presses it.
/// - `submit=NAME` or `submit=NAME=VALUE`: the submit button to press on a form that has it (else
///   ``SubmitButtonRule`` chooses).
/// - `ca-file=PATH`: a PEM file of the CAs follow mode trusts for `https`, instead of the system's store.
/// - `max-steps`: how many requests follow mode may make before giving up (default 20).
/// - `param.NAME=VALUE`: a query parameter of the redirect (`param.code=abc`, `param.iss=…`);
///   `state` is copied from the authorization URL unless `param.state` is given.
/// - `error`, `error_description`: the OAuth error for `mode=error` (default `access_denied`).
/// - `deliver`: `http` (GET the redirect URI), `session` (hand it straight to the session), `desktop` (run
///   `gio open URL`, else `xdg-open URL`, as a browser hands a private-use scheme URL to the desktop), or
///   `auto` (default: HTTP for `http://` redirect URIs, the session otherwise).
/// - `count`: how many times to deliver the redirect (default 1), to test one-shot completion.
/// - `delay-ms`: wait this long before answering.
struct HeadlessScript: Sendable, Equatable {
    enum Mode: String, Sendable, CaseIterable { case redirect, error, cancel, never, fail, follow }
    enum Delivery: String, Sendable, CaseIterable { case auto, http, session, desktop }

    var mode: Mode = .redirect
    var parameters: [(name: String, value: String)] = []
    var error = "access_denied"
    var errorDescription: String?
    var delivery: Delivery = .auto
    var count = 1
    var delayMilliseconds = 0
    var formFields: [(name: String, value: String)] = []
    var maximumSteps = 20
    var submitChoice: SubmitButtonRule.Choice?
    var caFile: String?

    static let knownKeys: Set<String> = [
        "mode", "error", "error_description", "deliver", "count", "delay-ms", "max-steps",
        "submit", "ca-file",
    ]

    init(options: [String: String]) throws {
        for (key, value) in options.sorted(by: { $0.key < $1.key }) {
            if key.hasPrefix("param.") {
                let name = String(key.dropFirst("param.".count))
                guard !name.isEmpty else {
                    throw PluginError.invalidOptions("option 'param.' needs a parameter name, like 'param.code=abc'")
                }
                parameters.append((name, value))
                continue
            }
            if key.hasPrefix("form.") {
                let name = String(key.dropFirst("form.".count))
                guard !name.isEmpty else {
                    throw PluginError.invalidOptions("option 'form.' needs a field name, like 'form.sub=alice'")
                }
                formFields.append((name, value))
                continue
            }
            switch key {
            case "mode":
                guard let mode = Mode(rawValue: value) else {
                    throw PluginError.invalidOptions(
                        "option mode=\(value) is unknown; use one of "
                            + Mode.allCases.map(\.rawValue).joined(separator: ", "))
                }
                self.mode = mode
            case "error": error = value
            case "error_description": errorDescription = value
            case "deliver":
                guard let delivery = Delivery(rawValue: value) else {
                    throw PluginError.invalidOptions(
                        "option deliver=\(value) is unknown; use one of "
                            + Delivery.allCases.map(\.rawValue).joined(separator: ", "))
                }
                self.delivery = delivery
            case "count":
                count = try PluginError.wholeNumber(key, value, in: 1...100)
            case "delay-ms":
                delayMilliseconds = try PluginError.wholeNumber(key, value, in: 0...600_000, unit: "milliseconds")
            case "max-steps":
                maximumSteps = try PluginError.wholeNumber(key, value, in: 1...100)
            case "submit":
                guard let choice = SubmitButtonRule.Choice(value) else {
                    throw PluginError.invalidOptions(
                        "option submit= needs a button name, like 'submit=allow' or 'submit=action=approve'")
                }
                submitChoice = choice
            case "ca-file":
                var status = stat()
                guard !value.isEmpty, stat(value, &status) == 0, status.st_mode & S_IFMT == S_IFREG,
                    access(value, R_OK) == 0
                else {
                    throw PluginError.invalidOptions(
                        "option ca-file=\(value): no readable file there; give the path of a PEM file of CA certificates"
                    )
                }
                caFile = value
            default:
                throw PluginError.invalidOptions(
                    "option '\(key)' is unknown to the headless agent; known: "
                        + Self.knownKeys.sorted().joined(separator: ", ") + ", param.NAME, form.NAME")
            }
        }
    }

    static func == (lhs: HeadlessScript, rhs: HeadlessScript) -> Bool {
        lhs.mode == rhs.mode && lhs.error == rhs.error && lhs.errorDescription == rhs.errorDescription
            && lhs.delivery == rhs.delivery && lhs.count == rhs.count && lhs.delayMilliseconds == rhs.delayMilliseconds
            && lhs.parameters.map(\.name) == rhs.parameters.map(\.name)
            && lhs.parameters.map(\.value) == rhs.parameters.map(\.value)
            && lhs.formFields.map(\.name) == rhs.formFields.map(\.name)
            && lhs.formFields.map(\.value) == rhs.formFields.map(\.value)
            && lhs.maximumSteps == rhs.maximumSteps && lhs.submitChoice == rhs.submitChoice && lhs.caFile == rhs.caFile
    }
}
