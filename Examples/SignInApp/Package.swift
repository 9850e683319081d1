// swift-tools-version:6.0
// An app in a package of its own that depends on ExternalUserAgent by path, as an app developer's would (a
// released app names the repository and a version instead). `swift build` here builds the app and the agent
// plugins it lists, beside it; `swift test` signs in through the headless agent against the testing kit's
// local authorization server. CI builds and tests it (scripts/check-examples).
import PackageDescription

let package = Package(
    name: "SignInApp",
    platforms: [.macOS(.v15)],
    products: [
        // An agent plugin of the app's own, in Swift: a shared library the loader finds beside the app.
        .library(name: "AppAgent", type: .dynamic, targets: ["AppAgent"]),
    ],
    dependencies: [
        .package(name: "ExternalUserAgent", path: "../.."),
    ],
    targets: [
        .executableTarget(
            name: "SignInApp",
            dependencies: [
                .product(name: "ExternalUserAgent", package: "ExternalUserAgent"),
                .product(name: "ExternalUserAgentOAuth", package: "ExternalUserAgent"),
                // The one step that gives the app its agents: list the plugin products. SwiftPM builds each as a
                // shared library beside the app, and the loader looks there first.
                .product(name: "EUASystemBrowser", package: "ExternalUserAgent"),
                .product(name: "EUAFirefox", package: "ExternalUserAgent"),
                .product(name: "EUAChromium", package: "ExternalUserAgent"),
                .product(name: "EUAManual", package: "ExternalUserAgent"),
                .product(name: "EUALoopback", package: "ExternalUserAgent"),
            ]
        ),
        .target(
            name: "AppAgent",
            dependencies: [.product(name: "ExternalUserAgentPluginKit", package: "ExternalUserAgent")]
        ),
        .testTarget(
            name: "SignInAppTests",
            dependencies: [
                "SignInApp",
                .product(name: "ExternalUserAgentOAuth", package: "ExternalUserAgent"),
                .product(name: "ExternalUserAgentTesting", package: "ExternalUserAgent"),
                // The headless test agent and the app's own plugin, for the tests.
                .product(name: "EUAHeadless", package: "ExternalUserAgent"),
                "AppAgent",
            ]
        ),
    ]
)
