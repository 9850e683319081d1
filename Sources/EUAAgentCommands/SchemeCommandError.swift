// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/// A failure of an `eua scheme` command: what happened and what to do.
struct SchemeCommandError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
