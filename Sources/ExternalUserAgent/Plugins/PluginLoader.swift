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
import Logging

/// Finds and loads plugins: every `*.so` in the search path's folders, in order.
///
/// A bad file is refused with a reason and never stops the others from loading: not a shared
/// library, no entry symbol, another ABI major version, a table too small, a description that is
/// not valid JSON, an id already taken (the first one wins), a file or folder anyone may write.
public struct PluginLoader: Sendable {
    public var searchPath: PluginSearchPath
    public var logger: Logger
    /// Where to remember which file offers which ids, for ``load(offering:)``; `nil`: remember nothing.
    public var index: PluginIndexFile?

    public init(searchPath: PluginSearchPath = .standard(),
                logger: Logger = Logger(label: "ExternalUserAgent.plugins"),
                index: PluginIndexFile? = nil) {
        self.searchPath = searchPath
        self.logger = logger
        self.index = index
    }

    /// Loads every plugin on the search path (and brings the index up to date, when there is one).
    public func load() -> PluginCatalog {
        var table = index.map(PluginIndex.init(reading:))
        let catalog = load(candidateFiles(), noting: &table)
        save(table)
        return catalog
    }

    /// Loads the plugins that offer any of `ids` — and only those, where the index says which files
    /// they are: files it knows to offer none of them are not opened at all. Files it does not know
    /// (new or changed) are loaded; if an id is still missing, every plugin is loaded as by ``load()``,
    /// so a stale index never hides a plugin. Search order and "the first id wins" are as in ``load()``.
    /// Without an index this is ``load()``.
    public func load(offering ids: Set<String>) -> PluginCatalog {
        guard let index else { return load() }
        var table: PluginIndex? = PluginIndex(reading: index)
        let all = candidateFiles()
        let files = all.filter { table?.ids(of: $0).map { !$0.isDisjoint(with: ids) } ?? true }
        let skipped = all.count - files.count
        let catalog = load(files, noting: &table)
        let found = Set(catalog.agents.map(\.descriptor.id) + catalog.receivers.map(\.id))
        guard ids.isSubset(of: found) || skipped == 0 else {
            logger.debug("plugin index: not every id was found in the files it points at; loading every plugin",
                         metadata: ["missing": "\(ids.subtracting(found).sorted())"])
            return load()
        }
        save(table)
        logger.debug("plugin index used", metadata: ["skipped": "\(skipped)", "loaded": "\(catalog.plugins.count)"])
        return catalog
    }

    /// The `*.so` files of the search path, in order, each file and folder once.
    func candidateFiles() -> [String] {
        var files: [String] = []
        var seenFolders = Set<String>()
        var seenFiles = Set<String>()
        for folder in searchPath.folders {
            let real = Self.realPath(folder) ?? folder
            guard seenFolders.insert(real).inserted else { continue }
            for file in Self.pluginFiles(in: folder) where seenFiles.insert(Self.realPath(file) ?? file).inserted {
                files.append(file)
            }
        }
        return files
    }

    /// The agent and receiver ids the plugin loaded from `file` offers; none when it was refused.
    private static func ids(offeredBy file: String, in catalog: PluginCatalog) -> [String] {
        guard let plugin = catalog.plugins.first(where: { $0.path == file }) else { return [] }
        return plugin.description.agents.map(\.id) + plugin.description.receivers.map(\.id)
    }

    private func save(_ table: PluginIndex?) {
        if let table, let problem = table.save() {
            logger.debug("plugin index not saved: \(problem)")
        }
    }

    /// Opens and describes `files` one after the other, in search order, noting in `table` what each offers.
    ///
    /// Not concurrently: loading on two threads was tried (dlopen is serialised, but entry calls and
    /// describe() could overlap) and made the headless agent's HTTP requests fail now and then with
    /// "I/O on closed channel" — plugins each embed their own copy of SwiftNIO, and which copy's types the
    /// Swift runtime registers first then varies from run to run. Load order stays deterministic.
    private func load(_ files: [String], noting table: inout PluginIndex?) -> PluginCatalog {
        var catalog = PluginCatalog()
        for file in files {
            load(file: file, into: &catalog)
            table?.record(file, ids: Self.ids(offeredBy: file, in: catalog))
        }
        return catalog
    }

    /// Loads one file into `catalog`, recording why if it is refused.
    public func load(file path: String, into catalog: inout PluginCatalog) {
        switch loadPlugin(at: path) {
        case .failure(let error):
            logger.info("plugin refused: \(error.message)", metadata: ["path": "\(path)"])
            catalog.failures.append(PluginLoadFailure(path: path, error: error))
        case .success(let plugin):
            add(plugin, to: &catalog)
        }
    }

    private func add(_ plugin: LoadedPlugin, to catalog: inout PluginCatalog) {
        if let first = catalog.plugins.first(where: { $0.description.id == plugin.description.id }) {
            catalog.failures.append(PluginLoadFailure(path: plugin.path, error: ExternalUserAgentError(
                .pluginDuplicateID,
                "plugin id '\(plugin.description.id)' is already taken by \(first.path), which was found first "
                    + "and is used; remove one of the two or reorder the search path")))
            return
        }
        catalog.plugins.append(plugin)
        for component in plugin.description.agents {
            let taken = catalog.agents.first { $0.descriptor.id == component.id }?.plugin.path
                ?? (catalog.receivers.contains { $0.id == component.id } ? "a receiver" : nil)
            if let taken {
                catalog.failures.append(PluginLoadFailure(path: plugin.path, error: ExternalUserAgentError(
                    .pluginDuplicateID,
                    "agent id '\(component.id)' is already taken by \(taken), which was found first; this one is skipped")))
                continue
            }
            guard let kindName = component.kind, let kind = AgentKind(rawValue: kindName) else {
                catalog.failures.append(PluginLoadFailure(path: plugin.path, error: ExternalUserAgentError(
                    .pluginDescriptionInvalid,
                    "agent '\(component.id)' has kind '\(component.kind ?? "(missing)")'; expected one of "
                        + AgentKind.allCases.map(\.rawValue).joined(separator: ", ") + "; the agent is skipped")))
                continue
            }
            let descriptor = AgentDescriptor(
                id: component.id, kind: kind, name: component.name, version: component.version, path: plugin.path)
            catalog.agents.append(PluginAgentEntry(
                descriptor: descriptor, available: component.available,
                reasons: Self.reasons(component), details: component.details ?? [:], plugin: plugin))
        }
        for component in plugin.description.receivers {
            if let first = catalog.receivers.first(where: { $0.id == component.id }) {
                catalog.failures.append(PluginLoadFailure(path: plugin.path, error: ExternalUserAgentError(
                    .pluginDuplicateID,
                    "receiver id '\(component.id)' is already taken by \(first.plugin.path), which was found first; "
                        + "this one is skipped")))
                continue
            }
            catalog.receivers.append(PluginReceiverEntry(
                id: component.id, name: component.name, available: component.available,
                reasons: Self.reasons(component), details: component.details ?? [:], plugin: plugin))
        }
    }

    /// An unavailable component always has at least one reason.
    private static func reasons(_ component: PluginWire.Component) -> [String] {
        if !component.available && component.reasons.isEmpty {
            return ["the plugin says it cannot run here but gave no reason"]
        }
        return component.reasons
    }

    private func loadPlugin(at path: String) -> Result<LoadedPlugin, ExternalUserAgentError> {
        let started = ContinuousClock.now
        if let problem = Self.permissionProblem(path) {
            return .failure(ExternalUserAgentError(.pluginInsecurePermissions, problem))
        }
        let library: DynamicLibrary
        switch DynamicLibrary.open(path) {
        case .success(let opened): library = opened
        case .failure(let error):
            return .failure(ExternalUserAgentError(
                .pluginNotLoadable,
                "not a loadable shared library (\(error.reason)); rebuild it for this system or remove it from \(Self.folder(of: path))"))
        }
        guard let symbol = library.symbol(EUA_PLUGIN_ENTRY_SYMBOL) else {
            let other = (2...9).first { library.symbol("eua_plugin_entry_v\($0)") != nil }
            let hint = other.map { "it exports eua_plugin_entry_v\($0), built for ABI \($0); this host speaks ABI \(EUA_PLUGIN_ABI_VERSION)" }
                ?? "it is not an ExternalUserAgent plugin; remove it from \(Self.folder(of: path))"
            return .failure(ExternalUserAgentError(
                .pluginEntryMissing, "no entry symbol \(EUA_PLUGIN_ENTRY_SYMBOL): \(hint)"))
        }
        let entry = unsafeBitCast(symbol, to: eua_plugin_entry_fn.self)
        guard let table = entry(PluginHostTable.make(logger: logger, path: path)) else {
            return .failure(ExternalUserAgentError(
                .pluginNotLoadable, "its entry function returned NULL (the plugin declined to run in this host); see its log lines"))
        }
        let header = table.pointee
        guard header.abi_version == EUA_PLUGIN_ABI_VERSION else {
            return .failure(ExternalUserAgentError(
                .pluginABIMismatch,
                "it was built for plugin ABI \(header.abi_version); this host speaks ABI \(EUA_PLUGIN_ABI_VERSION): "
                    + "rebuild it against this version of eua_plugin.h"))
        }
        let needed = MemoryLayout<eua_plugin_table>.offset(of: \eua_plugin_table.destroy)!
            + MemoryLayout<UnsafeRawPointer>.size
        guard Int(header.struct_size) >= needed else {
            return .failure(ExternalUserAgentError(
                .pluginTableTooSmall,
                "its table is \(header.struct_size) bytes, but this host needs at least \(needed) (every field up to "
                    + "'destroy'); rebuild it against this version of eua_plugin.h"))
        }
        if let missing = Self.missingFunction(header) {
            return .failure(ExternalUserAgentError(
                .pluginTableTooSmall, "its table has no '\(missing)' function (NULL); the plugin is incomplete"))
        }
        guard let raw = header.describe(header.context) else {
            return .failure(ExternalUserAgentError(
                .pluginDescriptionInvalid, "describe() returned NULL: the plugin offers nothing on this machine"))
        }
        let text = String(cString: raw)
        header.free_string(raw)
        let description: PluginWire.PluginDescription
        do {
            description = try PluginWire.decode(PluginWire.PluginDescription.self, from: text)
        } catch {
            return .failure(ExternalUserAgentError(
                .pluginDescriptionInvalid,
                "describe() did not return a valid plugin description (\(Self.explain(error))); expected "
                    + "{\"id\":…,\"agents\":[…],\"receivers\":[…]}, got: \(text.prefix(120))"))
        }
        guard !description.id.isEmpty else {
            return .failure(ExternalUserAgentError(.pluginDescriptionInvalid, "describe() gave an empty plugin id"))
        }
        logger.debug("plugin loaded", metadata: [
            "path": "\(path)", "id": "\(description.id)",
            "ms": "\((ContinuousClock.now - started).milliseconds)",
        ])
        return .success(LoadedPlugin(path: path, description: description, table: PluginTable(pointer: table), logger: logger))
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

    private static func explain(_ error: any Error) -> String {
        switch error {
        case DecodingError.dataCorrupted(let context): return "not JSON: \(context.debugDescription)"
        case DecodingError.keyNotFound(let key, _): return "missing key '\(key.stringValue)'"
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
            let where_ = context.codingPath.map(\.stringValue).joined(separator: ".")
            return "wrong type at '\(where_)': \(context.debugDescription)"
        default: return "\(error)"
        }
    }

    /// `nil` when the file and its folder are safe to load from, else why not.
    static func permissionProblem(_ path: String) -> String? {
        var info = stat()
        guard stat(path, &info) == 0 else {
            return "cannot read its file status (\(String(cString: strerror(errno))))"
        }
        if info.st_mode & S_IFMT != S_IFREG {
            return "not a regular file"
        }
        if info.st_mode & S_IWOTH != 0 {
            return "the file is writable by everyone, so anyone could replace the code this process runs; "
                + "refused: run 'chmod o-w \(path)'"
        }
        let folder = Self.folder(of: path)
        var folderInfo = stat()
        if stat(folder, &folderInfo) == 0, folderInfo.st_mode & S_IWOTH != 0 {
            return "its folder \(folder) is writable by everyone, so anyone could replace the plugin; "
                + "refused: run 'chmod o-w \(folder)' or move the plugin"
        }
        return nil
    }

    /// The `*.so` files directly in `folder`, sorted by name; none when it does not exist.
    static func pluginFiles(in folder: String) -> [String] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return [] }
        return names.filter { $0.hasSuffix(".so") }.sorted().map { folder.hasSuffix("/") ? folder + $0 : folder + "/" + $0 }
    }

    static func folder(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}

extension Duration {
    /// Whole and fractional milliseconds, for log lines.
    var milliseconds: Double {
        let parts = components
        return Double(parts.seconds) * 1000 + Double(parts.attoseconds) / 1e15
    }
}
