// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/// How to start one browser for one URL: the argument vector (no shell) and what the process needs.
public struct LaunchPlan: Sendable, Equatable {
    /// The executable and its arguments; the URL is its own argument.
    public var arguments: [String]
    /// Whether the agent owns the process (watches it, ends it on dismiss).
    public var owned: Bool
    /// A temporary folder holding the profile (and HOME/TMPDIR) to delete when the flow ends.
    public var ephemeralRoot: String?
    /// Environment variables to set for the child (HOME and TMPDIR for an ephemeral instance).
    public var environment: [String: String]

    /// The plan for `family` at `executable` with `options`, opening `url`.
    /// `ephemeralRoot` is the fresh folder an ephemeral or headless instance lives in; `isRoot` adds
    /// Chromium's `--no-sandbox` (it refuses to run as root without it).
    public static func make(
        family: BrowserFamily, executable: String, options: BrowserOptions, url: String,
        ephemeralRoot: String?, isRoot: Bool
    ) -> LaunchPlan {
        var arguments = [executable]
        var environment: [String: String] = [:]
        let profileDirectory = ephemeralRoot.map { $0 + "/profile" }
        if let ephemeralRoot {
            environment["HOME"] = ephemeralRoot + "/home"
            environment["TMPDIR"] = ephemeralRoot + "/tmp"
        }
        switch family.style {
        case .firefox:
            if options.headless { arguments.append("--headless") }
            if let profileDirectory {
                arguments += ["--no-remote", "--profile", profileDirectory]
            } else if let profile = options.profile {
                arguments += profile.contains("/") ? ["--no-remote", "--profile", profile] : ["-P", profile]
            }
            arguments += options.extraArguments
            if options.privateWindow {
                arguments += ["--private-window", url]
            } else if options.newWindow {
                arguments += ["--new-window", url]
            } else {
                arguments.append(url)
            }
        case .chromium:
            if options.headless { arguments.append("--headless") }
            if isRoot { arguments.append("--no-sandbox") }
            if let profileDirectory {
                arguments += ["--user-data-dir=\(profileDirectory)", "--no-first-run", "--no-default-browser-check"]
            } else if let profile = options.profile {
                arguments.append(
                    profile.contains("/") ? "--user-data-dir=\(profile)" : "--profile-directory=\(profile)")
            }
            if options.privateWindow { arguments.append("--incognito") }
            if options.newWindow { arguments.append("--new-window") }
            arguments += options.extraArguments
            arguments.append(url)
        }
        return LaunchPlan(
            arguments: arguments, owned: options.ownsInstance, ephemeralRoot: ephemeralRoot,
            environment: environment)
    }
}
