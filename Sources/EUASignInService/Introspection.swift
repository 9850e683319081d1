// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import CGIO

/// The interfaces the service exports, as introspection XML (GDBus checks each call's signature against it).
enum Introspection {
    static let signInInterface = "org.externaluseragent.SignIn1"
    static let requestInterface = "org.freedesktop.portal.Request"

    static let xml = """
        <node>
          <interface name="org.externaluseragent.SignIn1">
            <method name="SignIn">
              <arg type="s" name="parent_window" direction="in"/>
              <arg type="a{sv}" name="client" direction="in"/>
              <arg type="a{sv}" name="options" direction="in"/>
              <arg type="o" name="handle" direction="out"/>
            </method>
            <method name="GetAccessToken">
              <arg type="s" name="account" direction="in"/>
              <arg type="a{sv}" name="options" direction="in"/>
              <arg type="s" name="access_token" direction="out"/>
              <arg type="x" name="expires_at" direction="out"/>
              <arg type="a{sv}" name="extra" direction="out"/>
            </method>
            <method name="ListAccounts">
              <arg type="a{sv}" name="options" direction="in"/>
              <arg type="aa{sv}" name="accounts" direction="out"/>
            </method>
            <method name="SignOut">
              <arg type="s" name="parent_window" direction="in"/>
              <arg type="s" name="account" direction="in"/>
              <arg type="a{sv}" name="options" direction="in"/>
              <arg type="o" name="handle" direction="out"/>
            </method>
            <property name="version" type="u" access="read"/>
          </interface>
          <interface name="org.freedesktop.portal.Request">
            <method name="Close"/>
            <signal name="Response">
              <arg type="u" name="response"/>
              <arg type="a{sv}" name="results"/>
            </signal>
          </interface>
        </node>
        """

    /// The parsed node (kept for the process's life).
    nonisolated(unsafe) static let node: UnsafeMutablePointer<GDBusNodeInfo> = {
        var error: UnsafeMutablePointer<GError>?
        guard let node = g_dbus_node_info_new_for_xml(xml, &error) else {
            fatalError("the service's own introspection XML does not parse: \(Bus.take(error))")
        }
        return node
    }()

    /// The interface `name` of ``node``.
    static func interface(_ name: String) -> UnsafeMutablePointer<GDBusInterfaceInfo> {
        g_dbus_node_info_lookup_interface(node, name)
    }
}
