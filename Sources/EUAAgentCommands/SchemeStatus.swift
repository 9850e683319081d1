// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import ExternalUserAgentSystem
import ExternalUserAgentRules
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One scheme's registration, as `eua scheme status` reports it.
struct SchemeStatus: Encodable {
    var scheme: String
    /// eua's desktop entry for it, when there is one.
    var desktopEntry: String?
    /// Whether eua's entry is the desktop's default for the scheme.
    var registered: Bool
    /// The application the desktop opens the scheme with (`{"id","name"}`), if any.
    var `default`: Owner?

    struct Owner: Encodable {
        var id: String
        var name: String
    }

    var line: String {
        let owner = self.default.map { "\($0.name) (\($0.id))" } ?? "no application"
        return "\(scheme): \(registered ? "registered" : "not registered") — opened by \(owner)"
            + (desktopEntry.map { "; entry \($0)" } ?? "")
    }

    /// The facts for `schemes`, or for every `eua-scheme-*.desktop` entry when `nil`.
    static func collect(schemes: [String]?, environment: [String: String]) throws(SchemeCommandError) -> [SchemeStatus]
    {
        let folder = try SchemeDesktopEntry.applicationsFolder(environment: environment)
        let names = SmallFiles.names(in: folder)
        let found = names.compactMap { name -> String? in
            guard name.hasPrefix("eua-scheme-"), name.hasSuffix(".desktop") else { return nil }
            let scheme = String(name.dropFirst("eua-scheme-".count).dropLast(".desktop".count))
            return PrivateUseScheme.problem(with: scheme) == nil ? scheme : nil
        }
        let wanted = schemes ?? found
        guard !wanted.isEmpty else { return [] }
        let gio = try GIOMimeDefaults()
        return wanted.map { scheme in
            let id = PrivateUseScheme.desktopID(scheme: scheme)
            let owner = gio.defaultApplication(for: PrivateUseScheme.mimeType(scheme: scheme))
            return SchemeStatus(
                scheme: scheme, desktopEntry: found.contains(scheme) ? folder + "/" + id : nil,
                registered: owner?.id == id, default: owner.map { Owner(id: $0.id, name: $0.name) })
        }
    }

    static func json(_ facts: [SchemeStatus]) -> String {
        struct Report: Encodable { var schemes: [SchemeStatus] }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? String(decoding: encoder.encode(Report(schemes: facts)), as: UTF8.self)) ?? "{\"schemes\":[]}"
    }
}
