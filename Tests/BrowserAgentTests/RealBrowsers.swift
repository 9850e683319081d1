// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import Testing

/// Every test that starts a real browser (Chromium, Firefox ESR), one at a time — here, in the agent's own
/// tests, and through `eua login`: each checks that no browser process or profile of its run is left, and
/// `BrowserLeftovers` scans the whole machine for them, so two at once would see each other's.
@Suite("Real browsers", .serialized)
enum RealBrowsers {}
