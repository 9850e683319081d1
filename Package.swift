// swift-tools-version: 6.2
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import PackageDescription

/// Every Swift target: Swift 6 language mode (strict concurrency) and explicit existentials (applied to all
/// targets at the end of this file, in one place).
///
/// Concrete type metadata through accessor functions instead of mangled names: by default the compiler gets the
/// metadata of a type such as `[Token]` or `[String: Claim]` at its first use at each site by demangling its name
/// in the runtime; an accessor asks for it directly. And, in release builds, cross-module optimization (a module's
/// generic code specialized in the modules that call it, rather than run generically at run time) and a section per
/// function (so that the linker's --gc-sections drops the functions nothing calls: text −7 %). Together a whole
/// `eua login` takes 8 % less CPU, `eua agents` 7 % (Benchmarks/README.md). (SwiftPM 6.2 and later accept these flags
/// in a package used as a dependency.) A manifest cannot give them to the dependencies: `scripts/build-release` does,
/// for what `scripts/install` ships, and also lays out the functions that commands run together.
let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .unsafeFlags(["-Xfrontend", "-disable-concrete-type-metadata-mangled-name-accessors"]),
    .unsafeFlags(["-cross-module-optimization", "-Xfrontend", "-function-sections"], .when(configuration: .release)),
]

// Names: a target's folder is named as the target (Sources/, Plugins/, Examples/, Benchmarks/, Tests/, Fuzz/);
// a plugin's product is its target (Plugins/EUAHeadless → libEUAHeadless.so); a program's product is its command
// name (eua, eua-demo, eua-receiver-latency).

let package = Package(
    name: "ExternalUserAgent",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "ExternalUserAgentCore", targets: ["ExternalUserAgentCore"]),
        .library(name: "ExternalUserAgentPluginKit", targets: ["ExternalUserAgentPluginKit"]),
        .library(name: "ExternalUserAgentTesting", targets: ["ExternalUserAgentTesting"]),
        .library(name: "ExternalUserAgentOAuth", targets: ["ExternalUserAgentOAuth"]),
        // `eua` runs every command but `demo`, which `eua-demo` runs (the testing kit's server is not in `eua`).
        .executable(name: "eua", targets: ["eua"]),
        .executable(name: "eua-demo", targets: ["EUADemo"]),
        // The sign-in service on the session bus (org.externaluseragent.SignIn), installed in libexec/eua.
        .executable(name: "eua-signin-service", targets: ["EUASignInService"]),
        // Plugins: one shared library each, loaded at run time through the C ABI.
        .library(name: "EUAHeadless", type: .dynamic, targets: ["EUAHeadless"]),
        .library(name: "EUALoopback", type: .dynamic, targets: ["EUALoopback"]),
        .library(name: "EUASystemBrowser", type: .dynamic, targets: ["EUASystemBrowser"]),
        .library(name: "EUAFirefox", type: .dynamic, targets: ["EUAFirefox"]),
        .library(name: "EUAManual", type: .dynamic, targets: ["EUAManual"]),
        .library(name: "EUAChromium", type: .dynamic, targets: ["EUAChromium"]),
        .library(name: "EUAScheme", type: .dynamic, targets: ["EUAScheme"]),
        // Benchmarks (see Benchmarks/): built in release by their scripts.
        .executable(name: "eua-receiver-latency", targets: ["ReceiverLatencyBenchmark"]),
        // Example: an agent written in plain C against the header only.
        .library(name: "EUAExampleC", type: .dynamic, targets: ["EUAExampleC"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        // Tests only: an independent JWT implementation that signs the tokens the OAuth client's own verifier
        // (swift-crypto, `AsymmetricSignature`) must accept; no product links it.
        .package(url: "https://github.com/vapor/jwt-kit", from: "5.8.0"),
        .package(url: "https://github.com/apple/swift-crypto", "4.5.2"..<"5.0.0"),
        // Tests only (and in the graph through jwt-kit): the OAuth tests make their TLS certificates with them.
        .package(url: "https://github.com/apple/swift-certificates", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1", from: "1.7.4"),
    ],
    targets: [
        // The C ABI: one header, nothing else.
        .target(name: "CExternalUserAgentPlugin"),
        // GIO (GLib's app launching), from Debian's libglib2.0-dev.
        .systemLibrary(name: "CGIO", pkgConfig: "gio-unix-2.0", providers: [.apt(["libglib2.0-dev"])]),
        // The JSON values that cross the C ABI, shared by host and plugin kit.
        .target(name: "ExternalUserAgentABI"),
        // The wire rules host and plugins share: redirect matching, form and query coding, HTML and terminal escaping.
        .target(name: "ExternalUserAgentRules"),
        // Small files, the environment and threads for blocking calls (`BlockingCall`), with plain system calls, for the
        // host, the commands and the plugins alike: no FileManager, URL or ProcessInfo (whose first use costs start-up
        // work inside FoundationEssentials).
        .target(name: "ExternalUserAgentSystem"),
        // HTTP/1.1 on plain POSIX sockets (request and response parsers, deadlines, a stop signal, threads of their
        // own), for the plugins, the OAuth client's plain http and the testing kit's server. No SwiftNIO: a plugin
        // embeds a copy of every Swift library it uses, so NIO in a plugin meant several NIOs in one process.
        .target(name: "CExternalUserAgentNet"),
        .target(
            name: "ExternalUserAgentNet",
            dependencies: ["CExternalUserAgentNet", "ExternalUserAgentSystem"]
        ),
        // libcurl, opened with dlopen on first use (only its header, from Debian's libcurl4-openssl-dev, at build
        // time), and the blocking HTTP(S) client built on it: the headless agent's follow mode uses it.
        .target(name: "CCurl"),
        .target(name: "CurlClient", dependencies: ["CCurl", "ExternalUserAgentNet", "ExternalUserAgentSystem"]),
        // libsecret (the freedesktop Secret Service), opened with dlopen on first use (no header needed to build;
        // Debian's libsecret-1-0 to run): the token store's secret-service back end.
        .target(name: "CSecret"),
        // The TOML v1.0.0 reader the configuration files are read with: standard library only.
        .target(name: "TOMLReader"),
        .target(
            name: "ExternalUserAgentCore",
            dependencies: [
                "CExternalUserAgentPlugin",
                "ExternalUserAgentABI",
                "ExternalUserAgentRules",
                "ExternalUserAgentSystem",
                "TOMLReader",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "ExternalUserAgentPluginKit",
            dependencies: [
                "CExternalUserAgentPlugin", "ExternalUserAgentABI", "ExternalUserAgentRules", "ExternalUserAgentSystem",
            ]
        ),
        .target(
            name: "ExternalUserAgentOAuth",
            dependencies: [
                "ExternalUserAgentCore",
                "ExternalUserAgentABI",
                "ExternalUserAgentRules",
                "ExternalUserAgentSystem",
                "CSecret",
                .product(name: "Crypto", package: "swift-crypto"),
                // RSA signing of the client's own JWTs (request objects, private_key_jwt).
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                // Plain-http requests to IP literals and localhost over blocking sockets; everything else (https)
                // through libcurl, opened with dlopen on first use: no SwiftNIO in the OAuth client.
                "ExternalUserAgentNet",
                "CurlClient",
            ]
        ),
        .target(
            name: "ExternalUserAgentTesting",
            dependencies: [
                "ExternalUserAgentCore",
                "ExternalUserAgentSystem",
                "ExternalUserAgentRules",
                "ExternalUserAgentABI",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                // The local server's sockets and strict request parser: no SwiftNIO in the testing kit.
                "ExternalUserAgentNet",
                "CExternalUserAgentNet",
            ]
        ),
        // What both command-line programs share: output, blocking bridge, logging set-up, forwarding.
        .target(
            name: "EUACommandSupport",
            dependencies: [
                "ExternalUserAgentCore",
                // The hint table (CommandHints) spells the OAuth module's remedies too.
                "ExternalUserAgentOAuth",
                "ExternalUserAgentRules",
                "ExternalUserAgentSystem",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // `eua`: every command but `demo`, in one program (the commands of the two targets below).
        .executableTarget(
            name: "eua",
            dependencies: [
                "EUAAgentCommands",
                "EUAOAuthCommands",
                "EUACommandSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // The agent commands: agents, capabilities, open, receive, scheme.
        .target(
            name: "EUAAgentCommands",
            dependencies: [
                "ExternalUserAgentCore",
                "ExternalUserAgentRules",
                "ExternalUserAgentSystem",
                "EUACommandSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The commands of the OAuth client: explain, login, refresh, token and the others.
        .target(
            name: "EUAOAuthCommands",
            dependencies: [
                "ExternalUserAgentCore",
                "ExternalUserAgentRules",
                "ExternalUserAgentSystem",
                "ExternalUserAgentOAuth",
                "EUACommandSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // `eua-demo`: `eua demo`, which runs the testing kit's local authorization server in process — a program
        // of its own, so that the server's code is not in `eua`, which every sign-in starts.
        .executableTarget(
            name: "EUADemo",
            dependencies: [
                "ExternalUserAgentCore",
                "ExternalUserAgentSystem",
                "ExternalUserAgentOAuth",
                "EUACommandSupport",
                "ExternalUserAgentTesting",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // `eua-signin-service`: the sign-in service (issue 37) — GDBus from GIO for the bus, the OAuth client's
        // sign-in flow, the host's configuration and plugins, and accounts in the Secret Service (CSecret).
        .executableTarget(
            name: "EUASignInService",
            dependencies: [
                "CGIO",
                "CSecret",
                "ExternalUserAgentCore",
                "ExternalUserAgentSystem",
                "ExternalUserAgentOAuth",
            ],
            exclude: ["README.md"]
        ),

        // Plugins
        .target(
            name: "EUAHeadless",
            dependencies: [
                "ExternalUserAgentPluginKit", "ExternalUserAgentRules", "ExternalUserAgentSystem",
                "ExternalUserAgentNet", "CurlClient",
            ],
            path: "Plugins/EUAHeadless"
        ),

        .target(
            name: "EUALoopback",
            dependencies: ["ExternalUserAgentPluginKit", "ExternalUserAgentRules", "ExternalUserAgentNet"],
            path: "Plugins/EUALoopback"
        ),

        // The private-use URI scheme receiver: hand-offs over a Unix socket in $XDG_RUNTIME_DIR.
        .target(
            name: "EUAScheme",
            dependencies: [
                "ExternalUserAgentPluginKit", "ExternalUserAgentRules", "ExternalUserAgentNet", "CExternalUserAgentNet",
            ],
            path: "Plugins/EUAScheme"
        ),

        .target(
            name: "EUASystemBrowser",
            dependencies: ["ExternalUserAgentPluginKit", "ExternalUserAgentSystem", "CGIO"],
            path: "Plugins/EUASystemBrowser"
        ),

        .target(
            name: "EUAManual",
            dependencies: ["ExternalUserAgentPluginKit", "ExternalUserAgentSystem"],
            path: "Plugins/EUAManual"
        ),
        // What the Firefox and Chromium plugins share: discovery, options, launching, owned instances.
        .target(
            name: "BrowserAgentSupport",
            dependencies: ["ExternalUserAgentPluginKit", "ExternalUserAgentSystem", "CGIO"],
            path: "Plugins/BrowserAgentSupport"
        ),
        .target(
            name: "EUAFirefox",
            dependencies: ["BrowserAgentSupport", "ExternalUserAgentPluginKit"],
            path: "Plugins/EUAFirefox"
        ),
        .target(
            name: "EUAChromium",
            dependencies: ["BrowserAgentSupport", "ExternalUserAgentPluginKit"],
            path: "Plugins/EUAChromium"
        ),

        // Examples
        .target(
            name: "EUAExampleC",
            dependencies: ["CExternalUserAgentPlugin"],
            path: "Examples/EUAExampleC"
        ),

        // Example: an app's login code and its tests against the local authorization server.
        .target(
            name: "AppLogin",
            dependencies: ["ExternalUserAgentCore", "ExternalUserAgentOAuth"],
            path: "Examples/AppLogin"
        ),
        .testTarget(
            name: "AppLoginTests",
            dependencies: ["AppLogin", "ExternalUserAgentCore", "ExternalUserAgentTesting"],
            path: "Examples/AppLoginTests"
        ),

        // Benchmarks
        .executableTarget(
            name: "ReceiverLatencyBenchmark",
            dependencies: ["ExternalUserAgentCore", "ExternalUserAgentTesting"],
            path: "Benchmarks/ReceiverLatencyBenchmark"
        ),

        // Tests
        .target(
            name: "EUATestSupport",
            dependencies: ["ExternalUserAgentCore", "ExternalUserAgentTesting"],
            path: "Tests/EUATestSupport"
        ),
        .testTarget(
            name: "ExternalUserAgentCoreTests",
            dependencies: [
                "ExternalUserAgentCore", "ExternalUserAgentABI", "ExternalUserAgentSystem", "ExternalUserAgentTesting",
                "ExternalUserAgentPluginKit", "CExternalUserAgentPlugin",
                "EUATestSupport",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "InMemoryLogging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "ExternalUserAgentRulesTests",
            dependencies: ["ExternalUserAgentRules"]
        ),
        .testTarget(
            name: "HeadlessPluginTests",
            dependencies: ["ExternalUserAgentCore", "ExternalUserAgentTesting", "EUATestSupport"]
        ),
        .testTarget(
            name: "EUAExampleCTests",
            dependencies: ["ExternalUserAgentCore", "ExternalUserAgentTesting", "EUATestSupport"]
        ),
        .testTarget(
            name: "LoopbackReceiverTests",
            dependencies: [
                "ExternalUserAgentCore", "ExternalUserAgentTesting", "EUATestSupport", "ExternalUserAgentNet",
            ]
        ),
        .testTarget(
            name: "SystemBrowserTests",
            dependencies: ["EUATestSupport", "ExternalUserAgentTesting"]
        ),
        // The TOML reader's own tests, and the whole toml-test suite from Debian's golang-github-burntsushi-toml-dev.
        .testTarget(
            name: "TOMLReaderTests",
            dependencies: ["TOMLReader"]
        ),
        .testTarget(
            name: "SelectionTests",
            dependencies: [
                "ExternalUserAgentCore", "ExternalUserAgentTesting", "EUATestSupport",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "InMemoryLogging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "BrowserAgentTests",
            dependencies: [
                "BrowserAgentSupport", "ExternalUserAgentCore", "ExternalUserAgentTesting", "EUATestSupport",
            ]
        ),
        .testTarget(
            name: "EUACommandTests",
            dependencies: ["EUATestSupport", "ExternalUserAgentSystem"]
        ),
        .testTarget(
            name: "ExternalUserAgentOAuthTests",
            dependencies: [
                "ExternalUserAgentOAuth", "ExternalUserAgentCore", "ExternalUserAgentABI", "ExternalUserAgentTesting",
                "EUATestSupport",
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "InMemoryLogging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "HeadlessFollowTests",
            dependencies: [
                "EUAHeadless", "ExternalUserAgentNet", "CurlClient", "ExternalUserAgentRules", "EUATestSupport",
            ]
        ),
        .testTarget(
            name: "SchemeReceiverTests",
            dependencies: ["ExternalUserAgentRules"]
        ),
        // The sign-in service: caller identification over fixtures, and the service on a private bus with a keyring.
        .testTarget(
            name: "SignInServiceTests",
            dependencies: ["EUASignInService", "EUATestSupport", "ExternalUserAgentTesting"]
        ),
        // The C client library (clib/, built by its own Makefile): its checks, and its apps against the service.
        .testTarget(
            name: "ClientLibraryTests",
            dependencies: ["EUATestSupport", "ExternalUserAgentTesting"]
        ),
        .testTarget(
            name: "EndToEndTests",
            dependencies: ["ExternalUserAgentTesting", "EUATestSupport"]
        ),
    ]
)

// Fuzz targets (scripts/fuzz): libFuzzer executables under Fuzz/, one per parser that reads outside input.
// They join the package only with EUA_FUZZ=1, because they are built with `--sanitize=fuzzer`, which
// supplies their `main`; the inputs they found are kept as regression tests in the ordinary suites.
if Context.environment["EUA_FUZZ"] == "1" {
    let fuzzTargets: [(name: String, dependencies: [Target.Dependency])] = [
        ("FuzzTOML", ["ExternalUserAgentCore"]),
        ("FuzzPluginJSON", ["ExternalUserAgentCore", "ExternalUserAgentABI"]),
        (
            "FuzzLoopbackRequest",
            ["EUALoopback", "ExternalUserAgentNet", "ExternalUserAgentCore", "ExternalUserAgentRules"]
        ),
        ("FuzzOAuthResponses", ["ExternalUserAgentOAuth"]),
        ("FuzzIDToken", ["ExternalUserAgentOAuth", .product(name: "Crypto", package: "swift-crypto")]),
        ("FuzzHTTPResponse", ["ExternalUserAgentNet", "ExternalUserAgentRules"]),
        ("FuzzHTMLPage", ["EUAHeadless", "ExternalUserAgentRules"]),
        ("FuzzPluginIndex", ["ExternalUserAgentCore"]),
    ]
    for target in fuzzTargets {
        package.targets.append(
            .executableTarget(
                name: target.name, dependencies: target.dependencies,
                path: "Fuzz/\(target.name)"))
        package.products.append(.executable(name: target.name, targets: [target.name]))
    }
}

// Build settings for every Swift target, in one place (a C target ignores Swift settings).
for target in package.targets where target.type != .system {
    target.swiftSettings = (target.swiftSettings ?? []) + swiftSettings
}
