import EUATestSupport
import Foundation
import Testing

/// `eua` (a C launcher) becomes `eua-core` for agents/capabilities/open/receive/help and `eua-oauth` for
/// explain/login/refresh/demo.
@Suite("eua and eua-oauth", .timeLimit(.minutes(1)))
struct ProgramSplitTests {
    @Test("eua --help lists every command, the ones eua-oauth runs included")
    func helpListsAll() throws {
        let result = try ProcessRunner.run(try TestPaths.product("eua"), ["--help"])
        #expect(result.status == 0)
        for name in ["agents", "capabilities", "explain", "open", "receive", "login", "refresh", "demo", "doctor", "userinfo", "register", "logout", "accounts", "token"] {
            #expect(result.stdout.contains("\n  \(name) "), "\(name) in:\n\(result.stdout)")
        }
    }

    @Test("eua login --help and eua help login show login's own options (from eua-oauth), named eua login")
    func forwardedHelp() throws {
        for arguments in [["login", "--help"], ["help", "login"]] {
            let result = try ProcessRunner.run(try TestPaths.product("eua"), arguments)
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
            #expect(result.stdout.contains("USAGE: eua login"), "\(arguments): \(result.stdout)")
            #expect(result.stdout.contains("--issuer"), "\(arguments)")
        }
    }

    @Test("eua login with no eua-oauth beside it: exit 127 and what to do; the other commands still run")
    func missingOAuthProgram() throws {
        let folder = try TemporaryFolder()
        for name in ["eua", "eua-core"] {
            try FileManager.default.copyItem(at: try TestPaths.product(name), to: folder.url.appendingPathComponent(name))
        }
        let eua = folder.url.appendingPathComponent("eua")
        let real = folder.url.resolvingSymlinksInPath().path
        let result = try ProcessRunner.run(eua, ["login", "--issuer", "http://127.0.0.1:9", "--client-id", "c"])
        #expect(result.status == 127)
        #expect(result.stderr.contains("eua: 'login' is run by \(real)/eua-oauth"), "\(result.stderr)")
        #expect(result.stderr.contains("install eua-oauth beside eua"))
        let agents = try ProcessRunner.run(eua, ["agents", "--json"], environment: ["EUA_PLUGIN_PATH": ""])
        #expect(agents.status == 0, "the commands eua-core runs still work: \(agents.stderr)")
        let direct = try ProcessRunner.run(folder.url.appendingPathComponent("eua-core"), ["refresh"])
        #expect(direct.status == 127, "eua-core run directly hands refresh on too")
        #expect(direct.stderr.contains("install eua-oauth beside eua"), "\(direct.stderr)")
    }

    @Test("eua alone: every command says which program is missing")
    func launcherAlone() throws {
        let folder = try TemporaryFolder()
        let eua = folder.url.appendingPathComponent("eua")
        try FileManager.default.copyItem(at: try TestPaths.product("eua"), to: eua)
        let real = folder.url.resolvingSymlinksInPath().path
        for (arguments, program) in [(["agents"], "eua-core"), (["--help"], "eua-core"), (["help", "login"], "eua-oauth"), (["demo"], "eua-demo"), (["help", "demo"], "eua-demo")] {
            let result = try ProcessRunner.run(eua, arguments)
            #expect(result.status == 127, "\(arguments)")
            #expect(result.stderr.contains("is run by \(real)/\(program), which could not be started"), "\(result.stderr)")
        }
    }

    @Test("every command eua-oauth runs is sent there by the launcher (the two lists agree)")
    func listsAgree() throws {
        for name in ["explain", "login", "refresh", "demo", "doctor", "userinfo", "register", "logout", "accounts", "token"] {
            let result = try ProcessRunner.run(try TestPaths.product("eua"), [name, "--help"])
            #expect(result.status == 0, "\(name): \(result.stderr)")
            #expect(result.stdout.contains("USAGE: eua \(name)"), "\(name): \(result.stdout)")
            #expect(result.stdout.contains(name == "demo" ? "This is eua-demo" : "This is eua-oauth")
                        || !result.stdout.contains("SUBCOMMANDS"), "\(name)")
        }
    }

    @Test("eua is a static executable with no Swift runtime: no dynamic loader, no libswiftCore before choosing")
    func launcherIsStatic() throws {
        let bytes = [UInt8](try Data(contentsOf: try TestPaths.product("eua")))
        #expect(bytes.count > 64 && bytes[0..<4] == [0x7F, 0x45, 0x4C, 0x46] && bytes[4] == 2, "an ELF64 file")
        func field(_ offset: Int, _ size: Int) -> Int {
            (0..<size).reduce(0) { $0 | Int(bytes[offset + $1]) << (8 * $1) }
        }
        let (start, size, count) = (field(0x20, 8), field(0x36, 2), field(0x38, 2))
        let types = (0..<count).map { field(start + $0 * size, 4) }
        #expect(!types.contains(3), "no PT_INTERP: the kernel starts eua without ld.so (program headers \(types))")
        #expect(!types.contains(2), "no PT_DYNAMIC: nothing to link at start")
        #expect(bytes.firstRange(of: Array("libswiftCore".utf8)) == nil, "eua names no Swift runtime library")
    }
}
