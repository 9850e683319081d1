// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import CExternalUserAgentPlugin
import ExternalUserAgentABI
import ExternalUserAgentSystem
import Logging

/// Finds and loads plugins: every `*.so` in the search path's folders, in order.
///
/// A bad file is refused with a reason and never stops the others from loading: not a shared
/// library, no entry symbol, another ABI major version, a table too small, a description that is
/// not valid JSON or whose `describe()` does not return in time, an id that breaks the grammar
/// (``ComponentID``) or is already taken (the first one wins), a file or folder that someone else
/// could change (`PluginFileSafety`: owned by root or the user, not writable by group or others).
public struct PluginLoader: Sendable {
    /// Where plugins are looked for.
    public var searchPath: PluginSearchPath
    /// Where loading is logged (each file, each refusal, load times at debug level).
    public var logger: Logger
    /// Where to remember which file offers which ids, for `load(offering:)`; `nil`: remember nothing.
    public var index: PluginIndexFile?
    /// How long a plugin function that the ABI says returns at once (`describe`, `create`, `start`) may take
    /// before the plugin (or the instance) is given up.
    public var callTimeout: Duration

    /// A loader over `searchPath`, with the plugin index when one is given.
    public init(
        searchPath: PluginSearchPath = .standard(),
        logger: Logger = Logger(label: "ExternalUserAgent.plugins"),
        index: PluginIndexFile? = nil,
        callTimeout: Duration = .seconds(5)
    ) {
        self.searchPath = searchPath
        self.logger = logger
        self.index = index
        self.callTimeout = callTimeout
    }

    /// Loads every plugin on the search path (and brings the index up to date, when there is one), on threads
    /// of their own: the caller is suspended, no thread of Swift's cooperative pool waits for a plugin. The deadlines
    /// are `load()`'s.
    public func load() async -> PluginCatalog {
        await offThePool { load() }
    }

    /// `load(offering:)` on threads of their own: the caller is suspended, no thread of Swift's cooperative pool
    /// waits for a plugin.
    public func load(offering ids: Set<String>) async -> PluginCatalog {
        await offThePool { load(offering: ids) }
    }

    /// `load` on a thread of its own, awaited; on this one when no thread can be made (the plugins still load).
    private func offThePool(_ load: @escaping @Sendable () -> PluginCatalog) async -> PluginCatalog {
        do {
            return try await BlockingCall.start(name: "eua-plugin-load", load).value()
        } catch {
            logger.debug("plugins loaded on the calling thread: \(error)")
            return load()
        }
    }

    /// Loads every plugin on the search path (and brings the index up to date, when there is one), blocking this
    /// thread: for synchronous code (a command's main thread). Async code calls `await load()`.
    public func load() -> PluginCatalog {
        var table = index.map(PluginIndex.init(reading:))
        let catalog = load(candidateFiles(), noting: &table)
        save(table)
        return catalog
    }

    /// Loads the plugins that offer any of `ids` — and only those, where the index says which files
    /// they are: files it knows to offer none of them are not opened at all. Files it does not know
    /// (new or changed) are loaded; if an id is still missing, every plugin is loaded as by `load()`,
    /// so a stale index never hides a plugin. Search order and "the first id wins" are as in `load()`.
    /// Without an index this is `load()`. Blocks this thread, as `load()` does.
    public func load(offering ids: Set<String>) -> PluginCatalog {
        guard let index else { return load() }
        var table: PluginIndex? = PluginIndex(reading: index)
        let all = candidateFiles()
        let files = all.filter { table?.ids(of: $0).map { !$0.isDisjoint(with: ids) } ?? true }
        let skipped = all.count - files.count
        let catalog = load(files, noting: &table)
        let found = Set(catalog.agents.map(\.descriptor.id) + catalog.receivers.map(\.id))
        guard ids.isSubset(of: found) || skipped == 0 else {
            logger.debug(
                "plugin index: not every id was found in the files it points at; loading every plugin",
                metadata: ["missing": "\(ids.subtracting(found).sorted())"])
            return load()
        }
        save(table)
        logger.debug("plugin index used", metadata: ["skipped": "\(skipped)", "loaded": "\(catalog.plugins.count)"])
        return catalog
    }

    /// The `*.so` files of the search path, in order, each file and folder once: what `load()` opens. Loading them
    /// one after the other with ``load(file:into:)`` gives the catalog `load()` gives.
    public func candidateFiles() -> [String] {
        var files: [String] = []
        var seenFolders = Set<String>()
        var seenFiles = Set<String>()
        for folder in searchPath.folders {
            let real = PluginFileSafety.realPath(folder) ?? folder
            guard seenFolders.insert(real).inserted else { continue }
            for file in Self.pluginFiles(in: folder)
            where seenFiles.insert(PluginFileSafety.realPath(file) ?? file).inserted {
                files.append(file)
            }
        }
        return files
    }

    /// Why a plugin's `kind` (`agent`, `receiver`) `id` is skipped: `taken`, found first, offers that id already.
    private static func duplicate(_ kind: String, _ id: String, takenBy taken: String, path: String)
        -> PluginLoadFailure
    {
        PluginLoadFailure(
            path: path,
            error: ExternalUserAgentError(
                .pluginDuplicateID,
                "\(kind) id '\(id)' is already taken by \(taken), which was found first (agents and receivers share one "
                    + "namespace); this one is skipped"))
    }

    /// The valid agent and receiver ids the plugin loaded from `file` offers, and its agents' families (the
    /// names `--agent` may use); none when it was refused.
    private static func ids(offeredBy file: String, in catalog: PluginCatalog) -> [String] {
        guard let plugin = catalog.plugins.first(where: { $0.path == file }) else { return [] }
        let names =
            plugin.description.agents.flatMap { [$0.id] + ($0.family.map { [$0] } ?? []) }
            + plugin.description.receivers.map(\.id)
        return Array(Set(names.filter(ComponentID.isValid)))
    }

    private func save(_ table: PluginIndex?) {
        if let table, let problem = table.save() {
            logger.debug("plugin index not saved: \(problem)")
        }
    }

    /// A file loaded and described, or why it was refused.
    private typealias LoadOutcome = Result<(LoadedPlugin, PluginInput.CheckedDescription), ExternalUserAgentError>

    /// Opens `files`, then adds them to the catalog in search order, noting in `table` what each offers: the catalog
    /// is the one loading them one after the other would give (the first id wins, failures in order), only sooner.
    ///
    /// The files are opened here one after the other (`dlopen` holds the dynamic loader's lock while it maps and
    /// binds, so two at once take about as long as one after the other), and each plugin's `describe()` runs on a
    /// thread of its own while the next file is opened; those calls are waited for at the end, each up to its deadline
    /// from its own start.
    private func load(_ files: [String], noting table: inout PluginIndex?) -> PluginCatalog {
        let opened = files.map(openPlugin)
        var catalog = PluginCatalog()
        for (file, opening) in zip(files, opened) {
            add(opening.flatMap(described), path: file, to: &catalog)
            // Refused for this program's runtime alone: the index is shared with programs that may open it.
            if case .failure = opening, SwiftRuntimeNames.needsPackageRuntime(file) { continue }
            table?.record(file, ids: Self.ids(offeredBy: file, in: catalog))
        }
        return catalog
    }

    /// Loads one file into `catalog`, recording why if it is refused.
    public func load(file path: String, into catalog: inout PluginCatalog) {
        add(openPlugin(path).flatMap(described), path: path, to: &catalog)
    }

    private func add(_ outcome: LoadOutcome, path: String, to catalog: inout PluginCatalog) {
        switch outcome {
        case .failure(let error):
            logger.info("plugin refused: \(error.message)", metadata: ["path": "\(path)"])
            catalog.failures.append(PluginLoadFailure(path: path, error: error))
        case .success(let (plugin, checked)):
            add(plugin, checked: checked, to: &catalog)
        }
    }

    private func add(_ plugin: LoadedPlugin, checked: PluginInput.CheckedDescription, to catalog: inout PluginCatalog) {
        if let first = catalog.plugins.first(where: { $0.description.id == plugin.description.id }) {
            catalog.failures.append(
                PluginLoadFailure(
                    path: plugin.path,
                    error: ExternalUserAgentError(
                        .pluginDuplicateID,
                        "plugin id '\(plugin.description.id)' is already taken by \(first.path), which was found first "
                            + "and is used; remove one of the two or reorder the search path")))
            return
        }
        catalog.plugins.append(plugin)
        catalog.failures += checked.skipped.map { PluginLoadFailure(path: plugin.path, error: $0) }
        for (component, kind) in checked.agents {
            if let taken = Self.owner(of: component.id, in: catalog) {
                catalog.failures.append(Self.duplicate("agent", component.id, takenBy: taken, path: plugin.path))
                continue
            }
            let descriptor = AgentDescriptor(
                id: component.id, kind: kind, family: component.family, name: component.name,
                version: component.version, path: plugin.path)
            catalog.agents.append(
                PluginAgentEntry(
                    descriptor: descriptor, available: component.available,
                    reasons: Self.reasons(component), details: component.details ?? [:], plugin: plugin))
        }
        for component in checked.receivers {
            if let taken = Self.owner(of: component.id, in: catalog) {
                catalog.failures.append(Self.duplicate("receiver", component.id, takenBy: taken, path: plugin.path))
                continue
            }
            catalog.receivers.append(
                PluginReceiverEntry(
                    id: component.id, name: component.name, available: component.available,
                    reasons: Self.reasons(component), details: component.details ?? [:], plugin: plugin))
        }
    }

    /// Who already has `id` in `catalog`: "the agent of <path>" or "the receiver of <path>".
    private static func owner(of id: String, in catalog: PluginCatalog) -> String? {
        if let agent = catalog.agent(id: id) { return "the agent of \(agent.plugin.path)" }
        if let receiver = catalog.receiver(id: id) { return "the receiver of \(receiver.plugin.path)" }
        return nil
    }

    /// An unavailable component always has at least one reason.
    private static func reasons(_ component: PluginABI.Component) -> [String] {
        if !component.available && component.reasons.isEmpty {
            return ["the plugin says it cannot run here but gave no reason"]
        }
        return component.reasons
    }

    /// A plugin file opened, its entry called and its table checked, with its `describe()` call under way.
    private struct Opened: Sendable {
        let path: String
        let table: PluginTable
        let describe: BlockingCall<String?>
        /// When opening began, for the load time logged.
        let started: ContinuousClock.Instant
    }

    /// Opens the plugin at `path` and starts its `describe()` on a thread of its own; why not when it is refused.
    private func openPlugin(_ path: String) -> Result<Opened, ExternalUserAgentError> {
        let started = ContinuousClock.now
        let resolved: String
        switch PluginFileSafety.check(path) {
        case .safe(let checked): resolved = checked
        case .unsafe(let problem): return .failure(ExternalUserAgentError(.pluginInsecurePermissions, problem))
        }
        if SwiftRuntimeNames.mustAnswerNames(before: resolved), let problem = SwiftRuntimeNames.problem {
            return .failure(ExternalUserAgentError(.pluginNotLoadable, problem))
        }
        if SwiftRuntimeNames.needsPackageRuntime(resolved) {
            return .failure(
                ExternalUserAgentError(
                    .pluginNotLoadable, SwiftRuntimeNames.otherRuntimeProblem(folder: SmallFiles.folder(of: path))))
        }
        let library: DynamicLibrary
        // The checked file itself, not the path again: a link changed in between is not followed.
        switch DynamicLibrary.open(resolved) {
        case .success(let opened): library = opened
        case .failure(let error):
            if SwiftRuntimeNames.isRuntimeSymbolMissing(error.reason) {
                return .failure(
                    ExternalUserAgentError(
                        .pluginNotLoadable,
                        "not loadable in this program (\(error.reason)): the Swift runtime it runs on lacks that symbol. "
                            + "An installed eua has one runtime (lib/eua/swift) with the whole standard library and, of "
                            + "Foundation, what eua's own binaries use; build the plugin with the Swift toolchain eua was "
                            + "built with and without more of Foundation, or build it in this package's .build/release "
                            + "before scripts/build-release (which exports what every plugin there needs)"))
            }
            return .failure(
                ExternalUserAgentError(
                    .pluginNotLoadable,
                    "not a loadable shared library (\(error.reason)); rebuild it for this system or remove it from \(SmallFiles.folder(of: path))"
                ))
        }
        guard let symbol = library.symbol(EUA_PLUGIN_ENTRY_SYMBOL) else {
            let other = (2...9).first { library.symbol("eua_plugin_entry_v\($0)") != nil }
            let hint =
                other.map {
                    "it exports eua_plugin_entry_v\($0), built for ABI \($0); this host speaks ABI \(EUA_PLUGIN_ABI_VERSION)"
                }
                ?? "it is not an ExternalUserAgent plugin; remove it from \(SmallFiles.folder(of: path))"
            return .failure(
                ExternalUserAgentError(
                    .pluginEntryMissing, "no entry symbol \(EUA_PLUGIN_ENTRY_SYMBOL): \(hint)"))
        }
        let entry = unsafeBitCast(symbol, to: eua_plugin_entry_fn.self)
        guard let table = entry(PluginHostTable.make(logger: logger, path: path)) else {
            return .failure(
                ExternalUserAgentError(
                    .pluginNotLoadable,
                    "its entry function returned NULL (the plugin declined to run in this host); see its log lines"))
        }
        let header = table.pointee
        guard header.abi_version == EUA_PLUGIN_ABI_VERSION else {
            return .failure(
                ExternalUserAgentError(
                    .pluginABIMismatch,
                    "it was built for plugin ABI \(header.abi_version); this host speaks ABI \(EUA_PLUGIN_ABI_VERSION): "
                        + "rebuild it against this version of eua_plugin.h"))
        }
        let needed =
            MemoryLayout<eua_plugin_table>.offset(of: \eua_plugin_table.destroy)!
            + MemoryLayout<UnsafeRawPointer>.size
        guard Int(header.struct_size) >= needed else {
            return .failure(
                ExternalUserAgentError(
                    .pluginTableTooSmall,
                    "its table is \(header.struct_size) bytes, but this host needs at least \(needed) (every field up to "
                        + "'destroy'); rebuild it against this version of eua_plugin.h"))
        }
        if let missing = Self.missingFunction(header) {
            return .failure(
                ExternalUserAgentError(
                    .pluginTableTooSmall, "its table has no '\(missing)' function (NULL); the plugin is incomplete"))
        }
        let describe: BlockingCall<String?>
        do {
            describe = try BlockingCall.start(PluginDescribe(table: PluginTable(pointer: table)).call)
        } catch {
            return .failure(ExternalUserAgentError(.pluginNotLoadable, "describe() could not be called: \(error)"))
        }
        return .success(Opened(path: path, table: PluginTable(pointer: table), describe: describe, started: started))
    }

    /// The plugin `opened`, described: what its `describe()` returned within ``callTimeout`` of its start, checked.
    private func described(_ opened: Opened) -> LoadOutcome {
        let path = opened.path
        guard let outcome = opened.describe.wait(timeout: callTimeout) else {
            return .failure(
                ExternalUserAgentError(
                    .pluginDescriptionInvalid,
                    "describe() did not return within \(callTimeout) (the plugin ABI says it must be fast); the plugin "
                        + "is refused: report this to its author, or remove it from \(SmallFiles.folder(of: path))"))
        }
        guard let text = outcome else {
            return .failure(
                ExternalUserAgentError(
                    .pluginDescriptionInvalid,
                    "describe() returned NULL or more than \(PluginInput.maximumDescriptionBytes) bytes: the plugin offers "
                        + "nothing on this machine"))
        }
        let checked: PluginInput.CheckedDescription
        switch PluginInput.description(text) {
        case .success(let result): checked = result
        case .failure(let error): return .failure(error)
        }
        let description = checked.description
        logger.debug(
            "plugin loaded",
            metadata: [
                "path": "\(path)", "id": "\(description.id)",
                "ms": "\((ContinuousClock.now - opened.started).milliseconds)",
            ])
        let plugin = LoadedPlugin(
            path: path, description: description, table: opened.table,
            logger: logger, callTimeout: callTimeout)
        return .success((plugin, checked))
    }

    private static func missingFunction(_ table: eua_plugin_table) -> String? {
        let fields: [(String, UnsafeRawPointer?)] = [
            ("describe", unsafeBitCast(table.describe, to: UnsafeRawPointer?.self)),
            ("free_string", unsafeBitCast(table.free_string, to: UnsafeRawPointer?.self)),
            ("create", unsafeBitCast(table.create, to: UnsafeRawPointer?.self)),
            ("start", unsafeBitCast(table.start, to: UnsafeRawPointer?.self)),
            ("cancel", unsafeBitCast(table.cancel, to: UnsafeRawPointer?.self)),
            ("destroy", unsafeBitCast(table.destroy, to: UnsafeRawPointer?.self)),
        ]
        return fields.first { $0.1 == nil }?.0
    }

    /// The `*.so` files directly in `folder`, sorted by name; none when it does not exist.
    static func pluginFiles(in folder: String) -> [String] {
        SmallFiles.names(in: folder).filter { $0.hasSuffix(".so") }.map {
            folder.hasSuffix("/") ? folder + $0 : folder + "/" + $0
        }
    }
}

extension Duration {
    /// Whole and fractional milliseconds, for log lines.
    var milliseconds: Double {
        let parts = components
        return Double(parts.seconds) * 1000 + Double(parts.attoseconds) / 1e15
    }
}

/// A plugin's `describe()`, called on a thread of its own: the text (at most
/// ``PluginInput/maximumDescriptionBytes``), or `nil` for NULL or a longer text.
private struct PluginDescribe: Sendable {
    let table: PluginTable

    func call() -> String? {
        let header = table.pointer.pointee
        guard let raw = header.describe(header.context) else { return nil }
        defer { header.free_string(raw) }
        return PluginInput.string(raw, limit: PluginInput.maximumDescriptionBytes)
    }
}
