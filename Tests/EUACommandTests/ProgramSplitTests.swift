import EUATestSupport
import Foundation
import Testing

/// `eua` runs agents/capabilities/open/receive itself and becomes `eua-oauth` for explain/login/refresh/demo.
@Suite("eua and eua-oauth", .timeLimit(.minutes(1)))
struct ProgramSplitTests {
    @Test("eua --help lists every command, the ones eua-oauth runs included")
    func helpListsAll() throws {
        let result = try ProcessRunner.run(try TestPaths.product("eua"), ["--help"])
        #expect(result.status == 0)
        for name in ["agents", "capabilities", "explain", "open", "receive", "login", "refresh", "demo"] {
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

    @Test("eua login with no eua-oauth beside it: exit 127 and what to do")
    func missingSibling() throws {
        let folder = try TemporaryFolder()
        let copy = folder.url.appendingPathComponent("eua")
        try FileManager.default.copyItem(at: try TestPaths.product("eua"), to: copy)
        let result = try ProcessRunner.run(copy, ["login", "--issuer", "http://127.0.0.1:9", "--client-id", "c"])
        #expect(result.status == 127)
        #expect(result.stderr.contains("eua: 'login' is run by \(folder.url.resolvingSymlinksInPath().path)/eua-oauth"),
                "\(result.stderr)")
        #expect(result.stderr.contains("install eua-oauth beside eua"))
        let agents = try ProcessRunner.run(copy, ["agents", "--json"], environment: ["EUA_PLUGIN_PATH": ""])
        #expect(agents.status == 0, "the commands eua runs itself still work")
    }
}
