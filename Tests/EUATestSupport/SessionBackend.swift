// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import ExternalUserAgentCore
import ExternalUserAgentTesting
import Foundation
import Logging

/// One test body, two back ends: the in-process fake agent, or the headless plugin through dlopen.
public enum SessionBackend: String, CaseIterable, Sendable, CustomStringConvertible {
    case inProcess
    case plugin

    public var description: String { rawValue }

    /// The scripts both back ends play.
    public enum Script: Sendable {
        case redirect(parameters: [String: String] = [:], count: Int = 1)
        case oauthError(String)
        case userCancels
        case neverAnswers
        case failsToPresent
    }

    /// An agent that plays `script`.
    public func agent(_ script: Script, logger: Logger = Logger(label: "test")) throws -> any ExternalUserAgent {
        switch self {
        case .inProcess:
            let fake: FakeExternalUserAgent.Script =
                switch script {
                case .redirect(let parameters, let count): .redirect(parameters: parameters, count: count)
                case .oauthError(let error): .oauthError(error)
                case .userCancels: .userCancels
                case .neverAnswers: .neverAnswers
                case .failsToPresent: .failsToPresent
                }
            return FakeExternalUserAgent(script: fake)
        case .plugin:
            var options = ["deliver": "session"]
            switch script {
            case .redirect(let parameters, let count):
                options["mode"] = "redirect"
                options["count"] = String(count)
                for (name, value) in parameters { options["param.\(name)"] = value }
            case .oauthError(let error):
                options["mode"] = "error"
                options["error"] = error
            case .userCancels: options["mode"] = "cancel"
            case .neverAnswers: options["mode"] = "never"
            case .failsToPresent: options["mode"] = "fail"
            }
            guard let entry = try BuiltPlugins.catalog(logger: logger).agent(id: "headless") else {
                throw TestSupportError(
                    "the headless plugin did not load from \(TestPaths.productsFolder.path): run 'swift build'")
            }
            return entry.makeAgent(options: options)
        }
    }
}

/// The plugins `swift build` made, loaded from the products folder only.
public enum BuiltPlugins {
    /// Loads them, blocking this thread (for synchronous tests).
    public static func catalog(logger: Logger = Logger(label: "test")) throws -> PluginCatalog {
        _ = try TestPaths.product("libEUAHeadless.so")
        return PluginLoader(searchPath: PluginSearchPath(folders: [TestPaths.productsFolder.path]), logger: logger)
            .load()
    }

    /// Loads them off the cooperative pool, suspending the caller.
    public static func catalog(logger: Logger = Logger(label: "test")) async throws -> PluginCatalog {
        _ = try TestPaths.product("libEUAHeadless.so")
        return await PluginLoader(
            searchPath: PluginSearchPath(folders: [TestPaths.productsFolder.path]), logger: logger
        ).load()
    }
}
