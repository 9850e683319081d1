// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import Foundation

/// An isolated XDG environment with a fake browser registered as the https handler, built per test:
/// its own XDG_DATA_HOME, XDG_CONFIG_HOME, XDG_DATA_DIRS, XDG_CONFIG_DIRS and HOME in a temp folder.
/// The fake browser records its arguments, prints noise on stdout and stderr, and lingers.
public final class IsolatedDesktop: @unchecked Sendable {
    public let folder: TemporaryFolder
    /// Where the fake browser writes each argument it got, one per line.
    public let record: URL
    /// Written by the fake browser when it exits.
    public let exitMarker: URL
    public let browser: URL

    /// - Parameters:
    ///   - registerHandler: whether the fake browser is the default https handler in mimeapps.list.
    ///   - lingerSeconds: how long the fake browser stays alive.
    public init(registerHandler: Bool = true, lingerSeconds: Int = 4) throws {
        folder = try TemporaryFolder("eua-desktop")
        let applications = try folder.folder("data/applications")
        let config = try folder.folder("config")
        _ = try folder.folder("data-dirs")
        _ = try folder.folder("config-dirs")
        _ = try folder.folder("home")
        record = folder.url.appendingPathComponent("browser-args.txt")
        exitMarker = folder.url.appendingPathComponent("browser-exited")
        browser = folder.url.appendingPathComponent("fake-browser")
        try Self.writeBrowser(at: browser, record: record, exitMarker: exitMarker, linger: lingerSeconds)
        try """
        [Desktop Entry]
        Type=Application
        Name=Fake Browser
        Exec=\(browser.path) %u
        MimeType=x-scheme-handler/http;x-scheme-handler/https;text/html;
        """.write(to: applications.appendingPathComponent("fake-browser.desktop"), atomically: true, encoding: .utf8)
        if registerHandler {
            try """
            [Default Applications]
            x-scheme-handler/https=fake-browser.desktop
            x-scheme-handler/http=fake-browser.desktop

            [Added Associations]
            x-scheme-handler/https=fake-browser.desktop;
            x-scheme-handler/http=fake-browser.desktop;
            """.write(to: config.appendingPathComponent("mimeapps.list"), atomically: true, encoding: .utf8)
        }
    }

    /// Writes a fake browser script (a test fixture; the code under test never uses a shell).
    public static func writeBrowser(at path: URL, record: URL, exitMarker: URL, linger: Int) throws {
        try """
        #!/bin/sh
        for argument in "$@"; do printf '%s\\n' "$argument"; done > '\(record.path).tmp'
        mv '\(record.path).tmp' '\(record.path)'
        echo "fake browser noise on stdout"
        echo "fake browser noise on stderr" >&2
        sleep \(linger)
        touch '\(exitMarker.path)'
        """.write(to: path, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: path.path)
    }

    /// The environment for a child process: only this desktop, no display, no session bus.
    public func environment(_ extra: [String: String] = [:]) -> [String: String] {
        var environment = [
            "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
            "HOME": folder.url.appendingPathComponent("home").path,
            "XDG_DATA_HOME": folder.url.appendingPathComponent("data").path,
            "XDG_CONFIG_HOME": folder.url.appendingPathComponent("config").path,
            "XDG_DATA_DIRS": folder.url.appendingPathComponent("data-dirs").path,
            "XDG_CONFIG_DIRS": folder.url.appendingPathComponent("config-dirs").path,
            "EUA_PLUGIN_PATH": "",
        ]
        environment.merge(extra) { $1 }
        return environment
    }

    /// The arguments the fake browser recorded, waiting up to `timeout` seconds for them.
    public func recordedArguments(timeout: TimeInterval = 10) -> [String]? {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let text = try? String(contentsOf: record, encoding: .utf8) {
                return text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
            }
            usleep(20_000)
        }
        return nil
    }

    public var browserHasExited: Bool { FileManager.default.fileExists(atPath: exitMarker.path) }
}
