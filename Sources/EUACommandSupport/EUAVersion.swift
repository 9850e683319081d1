// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/// The version of the `eua` programs and this package: `eua --version`, the installed tree, the Debian package.
package enum EUAVersion {
    package static let current = "0.3.0"
}
