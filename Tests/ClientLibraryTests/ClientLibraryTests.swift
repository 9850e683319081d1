// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import ExternalUserAgentTesting
import Foundation
import Testing
import EUATestSupport

/// The C client library (clib/, issue 38): built with its own Makefile, checked on its own (unit checks, the same
/// under AddressSanitizer, the ABI against the committed baseline), then used by the C example app and the stress
/// program against the real `eua-signin-service` on a private bus with gnome-keyring-daemon unlocked, the testing
/// kit's local authorization server and the headless agent (as the service's own tests set it up).
@Suite("C client library", .onOwnThreads)
struct ClientLibraryTests {
    static let clib = TestPaths.packageRoot.appendingPathComponent("clib")

    /// Runs `make -C clib BUILD=folder targets…`; the build's folder is the test's own.
    static func make(_ targets: [String], build folder: TemporaryFolder, timeout: TimeInterval = 300) throws
        -> ProcessResult
    {
        try ProcessRunner.run(
            URL(fileURLWithPath: "/usr/bin/make"),
            ["-C", clib.path, "BUILD=\(folder.path)/build"] + targets, timeout: timeout)
    }

    @Test(
        "make check: unit checks without a service, the same under ASan/UBSan/LSan, the ABI check, man pages, install")
    func makeCheck() throws {
        let folder = try TemporaryFolder("eua-clib")
        let result = try Self.make(["check"], build: folder)
        #expect(result.status == 0, "make check failed:\n\(result.stdout)\n\(result.stderr)")
        #expect(result.stdout.contains("checks passed"))
        #expect(result.stdout.contains("check-abi: ok: 15 symbols"))
        #expect(result.stdout.contains("holds no Swift runtime and no plugin"))
        #expect(result.stdout.contains("check-man: ok"))
        #expect(result.stdout.contains("check-install: ok"))
    }

    @Test(
        "the C, Qt and Python examples sign in through the service, read a token, list the account, sign out; the callback rules hold under ASan"
    )
    func againstTheService() async throws {
        let folder = try TemporaryFolder("eua-clib")
        let built = try Self.make(
            ["all", "qt-example", "\(folder.path)/build/asan/eua-client-stress"], build: folder,
            timeout: 600)
        try #require(built.status == 0, "the library did not build:\n\(built.stdout)\n\(built.stderr)")
        try await SignInServiceHarness.withServers { server, slow in
            let session = try SecretServiceSession()
            _ = try SignInServiceHarness.writeConfiguration(home: session.folder.path)
            let steps = """
                echo "== example"; "$BUILD/eua-signin-example" "$ISSUER" my-app; echo "status=$?"
                echo "== qt"; QT_QPA_PLATFORM=offscreen "$BUILD/eua-qt-signin" "$ISSUER" my-app --click 2>/dev/null; echo "status=$?"
                echo "== python"
                (cd "$PYTHON_EXAMPLE" && EUA_LIBRARY="$BUILD/libexternaluseragent.so.1" EUA_TEST_ISSUER="$ISSUER" \
                    python3 -m pytest -q -p no:cacheprovider test_externaluseragent.py >"$HOME/pytest.out" 2>&1)
                echo "status=$?"
                awk '{ print "out" NR "=" $0 }' "$HOME/pytest.out" | tail -n 40
                echo "== stress"
                ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 LSAN_OPTIONS=suppressions="$CLIB/tests/lsan.supp":print_suppressions=0 \
                    UBSAN_OPTIONS=halt_on_error=1 "$BUILD/asan/eua-client-stress" "$ISSUER" "$SLOW" my-app 2>"$HOME/stress.err"
                echo "status=$?"
                awk '{ print "stderr" NR "=" $0 }' "$HOME/stress.err" | head -n 60
                """
            let outcome = try await SignInServiceHarness.run(
                steps,
                environment: [
                    "SERVICE": try TestPaths.product("eua-signin-service").path, "BUILD": folder.path + "/build",
                    "CLIB": Self.clib.path, "ISSUER": server.issuer,
                    "PYTHON_EXAMPLE": TestPaths.packageRoot.appendingPathComponent("Examples/Python").path,
                    "SLOW": slow.issuer,
                    "EUA_PLUGIN_PATH": TestPaths.productsFolder.path,
                ], session: session, timeout: 400)
            let (sections, report) = (outcome.sections, outcome.report)

            let example = sections["example"] ?? [:]
            #expect(example["status"] == "0", "example: \(report)")
            #expect(example["subject"] == "alice")
            #expect(example["account"]?.count == 32)
            #expect(Int(example["access_token_length"] ?? "") ?? 0 > 0)
            #expect(example["expires_at_present"] == "yes")
            #expect(Int(example["sync_access_token_length"] ?? "") ?? 0 > 0)
            #expect(example["listed_own_account"] == "yes")
            #expect(example["signed_out"] == "yes")
            #expect(example["listed_after_sign_out"] == "no")
            #expect(example["maps_library"] == "yes")
            #expect(example["maps_swift_runtime"] == "no")
            #expect(example["maps_plugin"] == "no")

            let qt = sections["qt"] ?? [:]
            #expect(qt["status"] == "0", "Qt: \(qt)")
            #expect(qt["label"] == "Signed in as alice", "Qt: \(qt)")
            #expect(qt["done_on_main_thread"] == "yes")

            let python = sections["python"] ?? [:]
            #expect(python["status"] == "0", "pytest: \(python)")
            #expect(python.values.contains { $0.contains("4 passed") }, "pytest: \(python)")

            let stress = sections["stress"] ?? [:]
            #expect(stress["status"] == "0" && stress["stress"] == "ok", "stress: \(report)")
            #expect(stress["cancel_thread_calls"] == "1")
            #expect(stress["cancel_in_done_calls"] == "1")
            #expect(stress["freed_calls"] == "0")
            #expect(stress["parallel_ended"] == "100")
            #expect(stress["parallel_twice"] == "0")
            // The service lets 4 requests of a caller be in flight. The three slow sign-ins cancelled or freed before
            // would hold three of them for 20 s had their requests not been closed: 4 signed in proves they were.
            #expect(Int(stress["parallel_signed_in"] ?? "") ?? 0 >= 4, "stress: \(stress)")
        }
    }
}
