// swift-tools-version: 6.2
import PackageDescription

/// Every Swift target: Swift 6 language mode (strict concurrency) and explicit existentials.
let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
    name: "ExternalUserAgent",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "ExternalUserAgent", targets: ["ExternalUserAgent"]),
        .library(name: "ExternalUserAgentPluginKit", targets: ["ExternalUserAgentPluginKit"]),
        .library(name: "ExternalUserAgentTesting", targets: ["ExternalUserAgentTesting"]),
        .library(name: "ExternalUserAgentOAuth", targets: ["ExternalUserAgentOAuth"]),
        // `eua` is a small C launcher: `eua-oauth` runs explain/login/refresh/demo, `eua-core` the rest.
        .executable(name: "eua", targets: ["eua"]),
        .executable(name: "eua-core", targets: ["EUACore"]),
        .executable(name: "eua-oauth", targets: ["EUAOAuthCommands"]),
        // Plugins: one shared library each, loaded at run time through the C ABI.
        .library(name: "EUAHeadless", type: .dynamic, targets: ["HeadlessPlugin"]),
        .library(name: "EUALoopback", type: .dynamic, targets: ["LoopbackReceiverPlugin"]),
        .library(name: "EUASystemBrowser", type: .dynamic, targets: ["SystemBrowserPlugin"]),
        .library(name: "EUAFirefox", type: .dynamic, targets: ["FirefoxPlugin"]),
        .library(name: "EUAManual", type: .dynamic, targets: ["ManualPlugin"]),
        .library(name: "EUAChromium", type: .dynamic, targets: ["ChromiumPlugin"]),
        // Benchmarks (see Benchmarks/): built in release by their scripts.
        .executable(name: "eua-receiver-latency", targets: ["ReceiverLatencyBenchmark"]),
        // Example: an agent written in plain C against the header only.
        .library(name: "EUAExampleC", type: .dynamic, targets: ["CExamplePlugin"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/vapor/jwt-kit", from: "5.8.0"),
        .package(url: "https://github.com/apple/swift-crypto", "4.5.2"..<"5.0.0"),
        // Both already in the graph through jwt-kit; the OAuth tests make their TLS certificates with them.
        .package(url: "https://github.com/apple/swift-certificates", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1", from: "1.7.4"),
    ],
    targets: [
        // The C ABI: one header, nothing else.
        .target(name: "CExternalUserAgentPlugin"),
        // GIO (GLib's app launching), from Debian's libglib2.0-dev.
        .systemLibrary(name: "CGIO", pkgConfig: "gio-unix-2.0", providers: [.apt(["libglib2.0-dev"])]),
        // The JSON values that cross the C ABI, shared by host and plugin kit.
        .target(name: "ExternalUserAgentABI", swiftSettings: swiftSettings),
        // The TOML v1.0.0 reader the configuration files are read with: standard library only.
        .target(name: "TOMLReader", swiftSettings: swiftSettings),
        .target(
            name: "ExternalUserAgent",
            dependencies: [
                "CExternalUserAgentPlugin",
                "ExternalUserAgentABI",
                "TOMLReader",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "ExternalUserAgentPluginKit",
            dependencies: ["CExternalUserAgentPlugin", "ExternalUserAgentABI"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "ExternalUserAgentOAuth",
            dependencies: [
                "ExternalUserAgent",
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "ExternalUserAgentTesting",
            dependencies: [
                "ExternalUserAgent",
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        // What both command-line programs share: output, blocking bridge, logging set-up, forwarding.
        .target(
            name: "EUACommandSupport",
            dependencies: [
                "ExternalUserAgent",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // `eua`: picks the program for the command and becomes it (C: no Swift start-up to pay twice).
        .executableTarget(name: "eua"),
        // `eua-core`: agents, capabilities, open, receive — the core only, so it starts fast.
        .executableTarget(
            name: "EUACore",
            dependencies: [
                "ExternalUserAgent",
                "EUACommandSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // `eua-oauth`: explain, login, refresh, demo (`eua` becomes it for those).
        .executableTarget(
            name: "EUAOAuthCommands",
            dependencies: [
                "ExternalUserAgent",
                "ExternalUserAgentOAuth",
                "EUACommandSupport",
                // `eua demo` runs the testing kit's local authorization server in process.
                "ExternalUserAgentTesting",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),

        // Plugins
        .target(
            name: "HeadlessPlugin",
            dependencies: [
                "ExternalUserAgentPluginKit",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            path: "Plugins/Headless",
            swiftSettings: swiftSettings
        ),

        .target(
            name: "LoopbackReceiverPlugin",
            dependencies: [
                "ExternalUserAgentPluginKit",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            path: "Plugins/LoopbackReceiver",
            swiftSettings: swiftSettings
        ),

        .target(
            name: "SystemBrowserPlugin",
            dependencies: ["ExternalUserAgentPluginKit", "CGIO"],
            path: "Plugins/SystemBrowser",
            swiftSettings: swiftSettings
        ),

        .target(
            name: "ManualPlugin",
            dependencies: ["ExternalUserAgentPluginKit"],
            path: "Plugins/Manual",
            swiftSettings: swiftSettings
        ),
        // What the Firefox and Chromium plugins share: discovery, options, launching, owned instances.
        .target(
            name: "BrowserAgentSupport",
            dependencies: ["ExternalUserAgentPluginKit", "CGIO"],
            path: "Plugins/BrowserSupport",
            swiftSettings: swiftSettings
        ),
        .target(
            name: "FirefoxPlugin",
            dependencies: ["BrowserAgentSupport", "ExternalUserAgentPluginKit"],
            path: "Plugins/Firefox",
            swiftSettings: swiftSettings
        ),
        .target(
            name: "ChromiumPlugin",
            dependencies: ["BrowserAgentSupport", "ExternalUserAgentPluginKit"],
            path: "Plugins/Chromium",
            swiftSettings: swiftSettings
        ),

        // Examples
        .target(
            name: "CExamplePlugin",
            dependencies: ["CExternalUserAgentPlugin"],
            path: "Examples/CExamplePlugin"
        ),

        // Example: an app's login code and its tests against the local authorization server.
        .target(
            name: "AppLogin",
            dependencies: ["ExternalUserAgent", "ExternalUserAgentOAuth"],
            path: "Examples/AppLogin",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "AppLoginTests",
            dependencies: ["AppLogin", "ExternalUserAgent", "ExternalUserAgentTesting"],
            path: "Examples/AppLoginTests",
            swiftSettings: swiftSettings
        ),

        // Benchmarks
        .executableTarget(
            name: "ReceiverLatencyBenchmark",
            dependencies: ["ExternalUserAgent", "ExternalUserAgentTesting"],
            path: "Benchmarks/ReceiverLatency",
            swiftSettings: swiftSettings
        ),

        // Tests
        .target(
            name: "EUATestSupport",
            dependencies: ["ExternalUserAgent", "ExternalUserAgentTesting"],
            path: "Tests/EUATestSupport",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "ExternalUserAgentTests",
            dependencies: [
                "ExternalUserAgent", "ExternalUserAgentABI", "ExternalUserAgentTesting", "EUATestSupport",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "InMemoryLogging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "HeadlessPluginTests",
            dependencies: ["ExternalUserAgent", "ExternalUserAgentTesting", "EUATestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "CExamplePluginTests",
            dependencies: ["ExternalUserAgent", "ExternalUserAgentTesting", "EUATestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "LoopbackReceiverTests",
            dependencies: ["ExternalUserAgent", "ExternalUserAgentTesting", "EUATestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "SystemBrowserTests",
            dependencies: ["EUATestSupport"],
            swiftSettings: swiftSettings
        ),
        // The TOML reader's own tests, and the whole toml-test suite from Debian's golang-github-burntsushi-toml-dev.
        .testTarget(
            name: "TOMLReaderTests",
            dependencies: ["TOMLReader"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "SelectionTests",
            dependencies: ["ExternalUserAgent", "ExternalUserAgentTesting", "EUATestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "BrowserAgentTests",
            dependencies: ["BrowserAgentSupport", "ExternalUserAgent", "ExternalUserAgentTesting", "EUATestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "EUACommandTests",
            dependencies: ["EUATestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "ExternalUserAgentOAuthTests",
            dependencies: [
                "ExternalUserAgentOAuth", "ExternalUserAgent", "ExternalUserAgentTesting", "EUATestSupport",
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "InMemoryLogging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "HeadlessFollowTests",
            dependencies: ["HeadlessPlugin"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "EndToEndTests",
            dependencies: ["ExternalUserAgentTesting", "EUATestSupport"],
            swiftSettings: swiftSettings
        ),
    ]
)

// Fuzz targets (scripts/fuzz): libFuzzer executables under Fuzz/, one per parser that reads outside input.
// They join the package only with EUA_FUZZ=1, because they are built with `--sanitize=fuzzer`, which
// supplies their `main`; the inputs they found are kept as regression tests in the ordinary suites.
if Context.environment["EUA_FUZZ"] == "1" {
    let fuzzTargets: [(name: String, dependencies: [Target.Dependency])] = [
        ("FuzzTOML", ["ExternalUserAgent"]),
        ("FuzzPluginJSON", ["ExternalUserAgent", "ExternalUserAgentABI"]),
        ("FuzzLoopbackRequest", [
            "LoopbackReceiverPlugin", "ExternalUserAgent",
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOEmbedded", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
        ]),
        ("FuzzOAuthResponses", ["ExternalUserAgentOAuth"]),
        ("FuzzIDToken", ["ExternalUserAgentOAuth", .product(name: "Crypto", package: "swift-crypto")]),
    ]
    for target in fuzzTargets {
        package.targets.append(.executableTarget(name: target.name, dependencies: target.dependencies,
                                                 path: "Fuzz/\(target.name)", swiftSettings: swiftSettings))
        package.products.append(.executable(name: target.name, targets: [target.name]))
    }
}
