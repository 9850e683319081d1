// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import ExternalUserAgentSystem
#if canImport(Glibc)
import Glibc
#endif

/// The small file work of `eua scheme`: read, write atomically, remove, make folders, run a helper.
enum SchemeFiles {
    /// The file's text, or `nil` when it cannot be read (or is over 1 MiB).
    static func read(_ path: String) -> String? {
        (try? SmallFiles.read(path, limit: 1 << 20)).map { String(decoding: $0, as: UTF8.self) }
    }

    /// Writes `text` to `path` through a temporary file and a rename (mode 0644).
    static func write(_ text: String, to path: String) throws(SchemeCommandError) {
        if let problem = SmallFiles.replace(path, with: text, mode: 0o644) { throw SchemeCommandError(problem) }
    }

    /// Makes `path` and its missing parents (mode 0755).
    static func makeFolders(_ path: String) throws(SchemeCommandError) {
        if let problem = SmallFiles.makeFolders(path, mode: 0o755) { throw SchemeCommandError(problem) }
    }

    /// The full path of `program` found in `PATH`, if any.
    static func which(_ program: String, path: String?) -> String? {
        (path ?? "/usr/bin:/bin").split(separator: ":").map { "\($0)/\(program)" }.first { access($0, X_OK) == 0 }
    }

    /// Runs `arguments` (the first is a full path) with output discarded, waiting at most `seconds`; `true`
    /// when it exited 0. A helper past its deadline is killed.
    static func run(_ arguments: [String], seconds: Int) -> Bool {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        var pid: pid_t = 0
        let argv = arguments.map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        guard posix_spawn(&pid, arguments[0], &actions, nil, argv, environ) == 0 else { return false }
        let deadline = ContinuousClock.now + .seconds(seconds)
        var status: Int32 = 0
        while waitpid(pid, &status, WNOHANG) == 0 {
            if ContinuousClock.now >= deadline {
                kill(pid, SIGKILL)
                waitpid(pid, &status, 0)
                return false
            }
            usleep(10_000)
        }
        return status & 0x7f == 0 && (status >> 8) & 0xff == 0
    }
}
