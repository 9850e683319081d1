// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Usage: SignInApp ISSUER CLIENT_ID — signs in with the agent the configuration picks and says who signed in.
#if canImport(Glibc)
import Glibc
#endif

let arguments = CommandLine.arguments
guard arguments.count == 3 else {
    print("usage: SignInApp ISSUER CLIENT_ID")
    exit(2)
}
do {
    let who = try await AppSignIn.run(issuer: arguments[1], clientID: arguments[2])
    print("signed in as \(who)")
} catch {
    print("sign-in failed: \(error)")
    exit(1)
}
