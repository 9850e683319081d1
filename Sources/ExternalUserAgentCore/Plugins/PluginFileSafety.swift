// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#if canImport(Glibc)
import Glibc
#endif
import ExternalUserAgentSystem

/// Whether a plugin file may be loaded: the rule `sudo` and OpenSSH apply to their files.
///
/// The file a path resolves to (every symlink followed) must be a regular file, and it and every folder
/// above it up to `/` must be owned by root or by the user running the host, and be writable by no group
/// and no one else. One exception: a folder *above* the plugin's own folder may be writable by others if it
/// has the sticky bit (like `/tmp`), since no one else can then rename or remove what is under it. The
/// plugin's own folder never may: anyone could drop a new `.so` in. When the path is a symlink, the folder
/// holding the link (and every folder above it) is held to the same rule, since whoever can write there can
/// point the link elsewhere.
enum PluginFileSafety {
    /// What ``check(_:)`` found.
    enum Verdict: Equatable {
        /// Safe to load: the file to open (every symlink resolved).
        case safe(resolved: String)
        /// Not safe: what is wrong, naming the path, and how to fix it.
        case unsafe(String)
    }

    /// Whether `path` is safe to load, and which file to open.
    static func check(_ path: String) -> Verdict {
        guard let resolved = realPath(path) else {
            return .unsafe("cannot resolve the path (\(String(cString: strerror(errno))))")
        }
        let user = geteuid()
        var info = stat()
        guard stat(resolved, &info) == 0 else {
            return .unsafe("cannot read the status of \(resolved) (\(String(cString: strerror(errno))))")
        }
        if info.st_mode & S_IFMT != S_IFREG {
            return .unsafe("\(resolved) is not a regular file")
        }
        if let problem = ownershipProblem(resolved, info, user: user, what: "the plugin file")
            ?? writableProblem(resolved, info, what: "the plugin file", stickyExcuses: false)
        {
            return .unsafe(problem)
        }
        var folders = [SmallFiles.folder(of: resolved)]
        if let linkFolder = realPath(SmallFiles.folder(of: path)), linkFolder != folders[0] {
            folders.append(linkFolder)
        }
        for own in folders {
            if let problem = chainProblem(from: own, user: user) { return .unsafe(problem) }
        }
        return .safe(resolved: resolved)
    }

    /// Checks `own` (the folder holding a plugin or its link) strictly and every folder above it with the
    /// sticky-bit exception.
    private static func chainProblem(from own: String, user: uid_t) -> String? {
        var current = own
        var isOwn = true
        while true {
            var info = stat()
            guard stat(current, &info) == 0 else {
                return "cannot read the status of the folder \(current) (\(String(cString: strerror(errno))))"
            }
            let what = isOwn ? "its folder" : "the folder above it"
            if let problem = ownershipProblem(current, info, user: user, what: what)
                ?? writableProblem(current, info, what: what, stickyExcuses: !isOwn)
            {
                return problem
            }
            if current == "/" { return nil }
            current = SmallFiles.folder(of: current)
            isOwn = false
        }
    }

    private static func ownershipProblem(_ path: String, _ info: stat, user: uid_t, what: String) -> String? {
        guard info.st_uid != 0 && info.st_uid != user else { return nil }
        return "\(what) \(path) is owned by user id \(info.st_uid), neither root nor the user running this program "
            + "(\(user)), so that user could replace the code this process runs; refused: run "
            + "'chown \(user == 0 ? "root" : String(user)) \(path)' or move the plugin to a folder of your own"
    }

    private static func writableProblem(_ path: String, _ info: stat, what: String, stickyExcuses: Bool) -> String? {
        let others = info.st_mode & (S_IWGRP | S_IWOTH)
        guard others != 0 else { return nil }
        if stickyExcuses && info.st_mode & S_ISVTX != 0 { return nil }
        let who = info.st_mode & S_IWOTH != 0 ? "everyone" : "its group"
        let fix = "chmod go-w \(path)"
        if what == "its folder" {
            return "\(what) \(path) is writable by \(who), so anyone there could add or replace a plugin; "
                + "refused: run '\(fix)' or move the plugin to a folder only you can write"
        }
        return "\(what) \(path) is writable by \(who), so anyone could replace the code this process runs; "
            + "refused: run '\(fix)'" + (what == "the plugin file" ? "" : " (or set its sticky bit, like /tmp's)")
    }

    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
