// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import ExternalUserAgentCore

/// How the command-line tools load plugins: the standard search path, with the plugin index in the
/// user's cache so a command that names its agent opens only the plugins it needs.
package enum CommandCatalog {
    /// The loader for `environment`.
    package static func loader(environment: [String: String]) -> PluginLoader {
        PluginLoader(searchPath: .standard(environment: environment), index: .standard(environment: environment))
    }

    /// The plugins for a command that named `agent` and needs `others` too (a receiver): only the files
    /// that offer them when `isEnough` says the smaller catalog decides as the whole one would, else all.
    ///
    /// `isEnough` must hold only when the result cannot depend on the plugins left out — e.g. the named
    /// agent won and is first in the effective preference order, so no other agent could come before it.
    /// `partial` says which one it is.
    package static func load(
        named agent: String?, others: Set<String> = [], environment: [String: String],
        isEnough: (PluginCatalog) -> Bool
    ) -> (catalog: PluginCatalog, partial: Bool) {
        let loader = loader(environment: environment)
        guard let agent else { return (loader.load(), false) }
        let few = loader.load(offering: others.union([agent]))
        return isEnough(few) ? (few, true) : (loader.load(), false)
    }

    /// Whether `selected`, chosen from a partial catalog, is what the whole catalog would give for the named `agent`.
    package static func decidesAlone(_ selected: SelectedAgent?, named agent: String) -> Bool {
        guard let selected else { return false }
        return selected.candidate.descriptor.answers(to: agent)
            && selected.report.configuration.preference.first == agent
    }
}
