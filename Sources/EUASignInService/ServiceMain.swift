// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#if canImport(Glibc)
import Glibc
#endif
import CGIO
import ExternalUserAgentSystem

/// eua-signin-service: the sign-in service on the session bus (issue 37). Started by D-Bus activation or by systemd
/// (the user unit eua-signin.service); exits after `EUA_SIGNIN_IDLE_SECONDS` (default 300) with nothing in flight
/// and no call, and comes back on the next call. Each sign-in's agent runs in a child of its own, the same program
/// started as `eua-signin-service --agent-step PARENT` (``AgentStep``); the plugins are tried in one
/// (`--plugin-check PARENT`, ``PluginCheck``) before the service loads them.
@main
enum ServiceMain {
    static func main() {
        let arguments = CommandLine.arguments
        if arguments.count == 3, arguments[1] == "--agent-step" { AgentStep.main(parent: arguments[2]) }
        if arguments.count == 3, arguments[1] == "--plugin-check" { PluginCheck.main(parent: arguments[2]) }
        let environment = ProcessEnvironment.current()
        var idleSeconds = 300
        if let text = environment["EUA_SIGNIN_IDLE_SECONDS"] {
            guard let value = Int(text), (1...86_400).contains(value) else {
                Log.error("EUA_SIGNIN_IDLE_SECONDS is '\(text)'; give a number of seconds from 1 to 86400")
                exit(2)
            }
            idleSeconds = value
        }
        let service: SignInService
        do throws(ServiceError) {
            let bus = try Bus(address: try Bus.sessionAddress())
            service = SignInService(
                bus: bus,
                identification: CallerIdentification(runtimeDirectory: environment["XDG_RUNTIME_DIR"]))
            try service.start()
            try bus.own("org.externaluseragent.SignIn")
        } catch {
            Log.error(error.message)
            exit(1)
        }
        Log.info("serving org.externaluseragent.SignIn (exits after \(idleSeconds) s idle)")
        let watch = IdleWatch(service: service, idle: .seconds(idleSeconds), loop: g_main_loop_new(nil, 0))
        _ = g_timeout_add_seconds(
            1,
            { context in
                Unmanaged<IdleWatch>.fromOpaque(context!).takeUnretainedValue().check() ? 1 : 0
            }, Unmanaged.passRetained(watch).toOpaque())
        g_main_loop_run(watch.loop)
    }
}

/// Ends the main loop once the service has had nothing in flight and no call for its idle time.
final class IdleWatch {
    let service: SignInService
    let idle: Duration
    let loop: OpaquePointer

    init(service: SignInService, idle: Duration, loop: OpaquePointer) {
        (self.service, self.idle, self.loop) = (service, idle, loop)
    }

    /// Whether to keep watching; quits the loop when idle.
    func check() -> Bool {
        let quiet = service.lastActivity.withLock { ContinuousClock.now - $0 }
        guard service.isIdle, quiet >= idle else { return true }
        Log.info("idle for \(idle.components.seconds) s: exiting")
        g_main_loop_quit(loop)
        return false
    }
}
