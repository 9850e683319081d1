// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/// A browser this package knows how to drive: its agent id, executable names, and how it takes arguments.
public struct BrowserFamily: Sendable, Hashable {
    /// How the browser's command line works.
    public enum Style: String, Sendable { case firefox, chromium }

    /// The agent id (`firefox-esr`, `google-chrome`).
    public let id: String
    /// The family name configuration may use for every build of this browser (`firefox` for firefox,
    /// firefox-esr and firefox-developer-edition; `chromium`; `chrome` for Google Chrome's channels).
    public let family: String
    /// A name for people.
    public let name: String
    /// Executable names to look for on PATH and in desktop entries, most specific first.
    public let executables: [String]
    public let style: Style
    /// Where the real binary (not a wrapper script) lives, for a fast `--version`.
    public let binaryHint: String?
    /// An `application.ini` with a `Version=` line (Firefox), read instead of running anything.
    public let applicationINI: String?

    /// Snap's Firefox is `/snap/bin/firefox`; Flathub's exports `org.mozilla.firefox`.
    public static let firefox: [BrowserFamily] = [
        BrowserFamily(
            id: "firefox", family: "firefox", name: "Firefox", executables: ["firefox", "org.mozilla.firefox"],
            style: .firefox, binaryHint: nil, applicationINI: "/usr/lib/firefox/application.ini"),
        BrowserFamily(
            id: "firefox-esr", family: "firefox", name: "Firefox ESR", executables: ["firefox-esr"],
            style: .firefox, binaryHint: nil, applicationINI: "/usr/lib/firefox-esr/application.ini"),
        BrowserFamily(
            id: "firefox-developer-edition", family: "firefox", name: "Firefox Developer Edition",
            executables: ["firefox-developer-edition"], style: .firefox, binaryHint: nil,
            applicationINI: "/usr/lib/firefox-developer-edition/application.ini"),
    ]

    public static let chromium: [BrowserFamily] = [
        BrowserFamily(
            id: "chromium", family: "chromium", name: "Chromium",
            executables: ["chromium", "chromium-browser", "org.chromium.Chromium"], style: .chromium,
            binaryHint: "/usr/lib/chromium/chromium", applicationINI: nil),
        BrowserFamily(
            id: "google-chrome", family: "chrome", name: "Google Chrome",
            executables: ["google-chrome-stable", "google-chrome", "com.google.Chrome"],
            style: .chromium, binaryHint: "/opt/google/chrome/chrome", applicationINI: nil),
        BrowserFamily(
            id: "brave-browser", family: "brave-browser", name: "Brave",
            executables: ["brave-browser", "brave-browser-stable"],
            style: .chromium, binaryHint: "/opt/brave.com/brave/brave", applicationINI: nil),
        BrowserFamily(
            id: "microsoft-edge", family: "microsoft-edge", name: "Microsoft Edge",
            executables: ["microsoft-edge-stable", "microsoft-edge"],
            style: .chromium, binaryHint: "/opt/microsoft/msedge/msedge", applicationINI: nil),
        BrowserFamily(
            id: "vivaldi", family: "vivaldi", name: "Vivaldi", executables: ["vivaldi-stable", "vivaldi"],
            style: .chromium,
            binaryHint: "/opt/vivaldi/vivaldi", applicationINI: nil),
        BrowserFamily(
            id: "opera", family: "opera", name: "Opera", executables: ["opera"], style: .chromium,
            binaryHint: "/usr/lib/x86_64-linux-gnu/opera/opera", applicationINI: nil),
    ]
}
