// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ExternalUserAgentRules

/// Every key a configuration may set, what each expects, and the nearest known key for a typo.
enum ConfigurationSchema {
    /// What a key's value must be.
    enum Shape: Sendable {
        case bool, endSession, port, portRange, redirectPath, redirectURI, seconds, page, text, agentList, matcherList,
            optionValue, flowList, textList, maxAge, storageBackend, lockedOptionList

        var expectation: String {
            switch self {
            case .bool: "true or false"
            case .endSession: "\"client-id\", \"hint-post\" or \"hint-get\""
            case .port: "an integer from 0 to 65535 (0: any free port)"
            case .portRange: "a string \"LOW-HIGH\" with 1 <= LOW <= HIGH <= 65535, like \"8400-8410\""
            case .redirectPath: "a string starting with '/', like \"/callback\""
            case .redirectURI:
                "the redirect URI registered with the provider: loopback, like \"http://127.0.0.1/callback\", or a private-use scheme one, like \"com.example.app:/cb\""
            case .seconds:
                "a number of seconds greater than 0 and at most \(ConfigurationSchema.maximumSeconds) (a day)"
            case .page: "an absolute file path or an http(s) URL, as a string"
            case .text: "a string"
            case .agentList: "an array of agent ids (and '*' for any other agent), like [\"firefox\", \"*\"]"
            case .matcherList: "an array of agent matchers, like [\"firefox>=115\", \"chromium 120..<130\"]"
            case .optionValue: "a string, a boolean or a number"
            case .textList: "an array of strings"
            case .maxAge: "a whole number of seconds from 0 to 2147483647"
            case .storageBackend: "\"secret-service\" or \"file\""
            case .lockedOptionList:
                "an array of the agent options a pinned agent keeps from the managed file, from "
                    + ConfigurationSchema.lockedAgentOptions.map { "\"\($0)\"" }.joined(separator: ", ")
                    + ", like [\"extra-args\"]"
            case .flowList:
                "an array of sign-in steps, each at most once, from \"browser\", \"device\" and \"manual\", like [\"browser\", \"device\", \"manual\"]"
            }
        }
    }

    static let keys: [ConfigurationKey: Shape] = [
        .preference: .agentList, .allow: .matcherList, .deny: .matcherList, .allowTestAgents: .bool,
        .flowOrder: .flowList,
        .receiverPort: .port, .receiverPortRange: .portRange, .receiverPath: .redirectPath,
        .loginRedirectURI: .redirectURI, .logoutPostLogoutRedirectURI: .redirectURI,
        .loginPrompt: .text, .loginHint: .text, .loginMaxAge: .maxAge, .loginACRValues: .text, .loginUILocales: .text,
        .loginResource: .textList, .loginPAR: .bool, .loginDPoP: .bool,
        .storageBackend: .storageBackend,
        .signinSandboxedApps: .bool, .signinHostApps: .bool, .signinIssuers: .textList,
        .authorizationTimeout: .seconds, .dismissTimeout: .seconds, .presentTimeout: .seconds, .successPage: .page,
        .failurePage: .page,
    ]

    /// The longest timeout a file may set: a day, far longer than any sign-in, and small enough to be a `Duration`.
    static let maximumSeconds = 86_400

    /// The steps `flow-order` may name.
    public static let flowSteps = ["browser", "device", "manual"]

    /// Agent options every browser agent understands; others are passed to the agent as they are.
    static let agentOptions: [String: Shape] = [
        "profile": .text, "private": .bool, "ephemeral": .bool, "executable": .text, userOptions: .lockedOptionList,
    ]

    /// The agent options that follow the managed file once it pins the agent (names it in `preference` or `allow`,
    /// or gives it an `[agent-options.<name>]` table): they decide which program runs and how — `executable`
    /// (the binary), `extra-args` (any flag: another profile, no sandbox, Chromium's `--renderer-cmd-prefix` runs
    /// another program) and `headless` (an invisible browser, for CI). The managed file lets users set some of them
    /// again with ``userOptions``. The others (`profile`, `private`, `ephemeral`, `new-window`, a plugin's own) stay
    /// the person's choice unless the managed file sets them, which pins them like any key.
    static let lockedAgentOptions = ["executable", "extra-args", "headless"]

    /// `agent-options.<agent>.user-options`, read from the managed file only: the ``lockedAgentOptions`` it lets
    /// other layers set for that agent. Never passed to the agent.
    static let userOptions = "user-options"

    static let tables: Set<[String]> = [
        ["receiver"], ["login"], ["logout"], ["logout", "end-session"], ["timeouts"], ["pages"], ["agent-options"],
        ["storage"], ["signin"], ["signin", "clients"],
    ]

    /// Whether `path` names a table (`[receiver]`, `[agent-options.firefox]`, `[signin.clients."https://id.example.com"]`).
    static func isTable(_ path: [String]) -> Bool {
        tables.contains(path) || (path.count == 2 && path[0] == "agent-options")
            || (path.count == 3 && path[0] == "signin" && path[1] == "clients")
    }

    /// What `key` expects, or `nil` for an unknown key.
    static func shape(of key: ConfigurationKey) -> Shape? {
        if let shape = keys[key] { return shape }
        if key.signinClientBinding != nil { return .textList }
        if key.components.count == 3, key.components[0] == "logout", key.components[1] == "end-session" {
            return .endSession
        }
        if key.agentOptionAgent != nil {
            return agentOptions[key.components[2]] ?? .optionValue
        }
        return nil
    }

    /// `nil` when `value` fits `shape`, else what was wrong.
    static func problem(with value: ConfigurationValue, for shape: Shape) -> String? {
        let got = "got \(value.typeName) \(value)"
        switch shape {
        case .bool:
            return value.boolValue == nil ? got : nil
        case .port:
            guard let port = value.integerValue else { return got }
            return (0...65535).contains(port) ? nil : "got \(port)"
        case .portRange:
            guard let text = value.stringValue else { return got }
            return portRange(text) == nil ? "got \(value)" : nil
        case .redirectPath:
            guard let text = value.stringValue else { return got }
            return text.hasPrefix("/") && !text.contains("?") && !text.contains("#") ? nil : "got \(value)"
        case .redirectURI:
            guard let text = value.stringValue else { return got }
            if PrivateUseScheme.isPrivateUse(text) {
                do throws(PrivateUseScheme.RedirectURIProblem) {
                    _ = try PrivateUseScheme.redirectURIParts(text)
                    return nil
                } catch {
                    return "got \(value), but \(error)"
                }
            }
            do throws(LoopbackRedirectURI.Problem) {
                _ = try LoopbackRedirectURI(parsing: text)
                return nil
            } catch {
                return "got \(value), but \(error)"
            }
        case .seconds:
            guard let seconds = value.secondsValue else { return got }
            return seconds > 0 && seconds <= Double(maximumSeconds) ? nil : "got \(seconds)"
        case .page:
            guard let text = value.stringValue else { return got }
            if text.hasPrefix("/") { return nil }
            if let url = URL(string: text), let scheme = url.scheme?.lowercased(),
                scheme == "http" || scheme == "https",
                url.host != nil
            {
                return nil
            }
            return "got \(value)"
        case .text:
            return value.stringValue == nil ? got : nil
        case .storageBackend:
            return ["secret-service", "file"].contains(value.stringValue ?? "") ? nil : got
        case .endSession:
            return ["client-id", "hint-post", "hint-get"].contains(value.stringValue ?? "") ? nil : got
        case .agentList:
            guard let ids = value.stringList else { return got }
            let isID = { (entry: String) in
                entry == "*"
                    || ((try? AgentMatcher(parsing: entry)).map { $0.versions == nil && $0.id == entry } ?? false)
            }
            if let bad = ids.first(where: { !isID($0) }) {
                return "got the entry \"\(bad)\" (a preference names agents, without versions)"
            }
            return nil
        case .matcherList:
            guard let entries = value.stringList else { return got }
            for entry in entries {
                do throws(VersionRangeSyntaxError) {
                    _ = try AgentMatcher(parsing: entry)
                } catch {
                    return "got \(error)"
                }
            }
            return nil
        case .optionValue:
            if case .list = value { return got }
            return nil
        case .textList:
            return value.stringList == nil ? got : nil
        case .lockedOptionList:
            guard let names = value.stringList else { return got }
            if let bad = names.first(where: { !lockedAgentOptions.contains($0) }) {
                return
                    "got the entry \"\(bad)\", which is not locked (only \(lockedAgentOptions.joined(separator: ", ")) "
                    + "follow the managed file; every other option is the person's unless the managed file sets it)"
            }
            return nil
        case .maxAge:
            guard let seconds = value.integerValue else { return got }
            return (0...Int(Int32.max)).contains(seconds) ? nil : "got \(seconds)"
        case .flowList:
            guard let steps = value.stringList, !steps.isEmpty else { return got }
            if let bad = steps.first(where: { !flowSteps.contains($0) }) { return "got the entry \"\(bad)\"" }
            if Set(steps).count != steps.count { return "got a step more than once" }
            return nil
        }
    }

    /// `"8400-8410"` as a range; `nil` when it is not one.
    static func portRange(_ text: String) -> ClosedRange<Int>? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, let low = Int(parts[0].trimmingWhitespace()),
            let high = Int(parts[1].trimmingWhitespace()),
            1 <= low, low <= high, high <= 65535
        else { return nil }
        return low...high
    }

    /// The known key closest to `path` in spelling, for "did you mean" warnings; `nil` for a key over
    /// 100 characters, which is no typo of a known one (and would cost time in proportion to its length).
    static func nearestKey(to path: [String]) -> String? {
        guard path.reduce(0, { $0 + $1.utf8.count }) <= 100 else { return nil }
        var known: [[String]] = keys.keys.map(\.components)
        known.append(contentsOf: tables)
        if path.count >= 2, path[0] == "agent-options" {
            for option in agentOptions.keys { known.append(["agent-options", path[1], option]) }
        }
        let written = ConfigurationKey(path).description
        var best: (name: String, distance: Int)?
        for candidate in known {
            let name = ConfigurationKey(candidate).description
            let distance = editDistance(written, name)
            if let current = best, current.distance < distance || (current.distance == distance && current.name < name)
            {
                continue
            }
            best = (name, distance)
        }
        return best?.name
    }

    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a)
        let b = Array(b)
        if a.isEmpty { return b.count }
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in stride(from: 1, through: b.count, by: 1) {
                let substitution: Int = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)
                let insertion: Int = current[j - 1] + 1
                let deletion: Int = previous[j] + 1
                current[j] = Swift.min(substitution, insertion, deletion)
            }
            previous = current
        }
        return previous[b.count]
    }
}
