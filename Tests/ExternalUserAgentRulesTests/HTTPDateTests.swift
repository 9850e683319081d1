// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import ExternalUserAgentRules
import Testing

@Suite("HTTP Date header (IMF-fixdate)")
struct HTTPDateTests {
    @Test("RFC 9110's example and the epoch read to the right second")
    func known() {
        #expect(HTTPDate.secondsSince1970("Sun, 06 Nov 1994 08:49:37 GMT") == 784_111_777)
        #expect(HTTPDate.secondsSince1970("Thu, 01 Jan 1970 00:00:00 GMT") == 0)
        #expect(HTTPDate.secondsSince1970("Tue, 29 Feb 2028 23:59:59 GMT") == 1_835_481_599)
    }

    @Test(
        "anything else is nil, never a guess",
        arguments: [
            "", "Sun, 06 Nov 1994 08:49:37 UTC", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994",
            "Sun, 31 Feb 1994 08:49:37 GMT", "Sun, 06 Nov 1994 24:49:37 GMT", "Sun, 06 Nov 1994 08:49:37 GMT ",
            "Xyz, 06 Nov 1994 08:49:37 GMT", "Sun, 6 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 1994 08:4a:37 GMT",
            "Mon, 29 Feb 2100 00:00:00 GMT",
        ])
    func refused(_ text: String) {
        #expect(HTTPDate.secondsSince1970(text) == nil)
    }
}
