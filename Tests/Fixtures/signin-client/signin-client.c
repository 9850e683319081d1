/* A test client of org.externaluseragent.SignIn1, in C against GIO only (what an app in a sandbox would run):
 *   signin-client signin ISSUER CLIENT_ID [ACCOUNT]   SignIn, then wait for Response: prints response= and results
 *   signin-client close ISSUER CLIENT_ID              SignIn, then Close: prints closed, and any Response seen
 *   signin-client token ACCOUNT                       GetAccessToken: prints access_token_length=, expires_at=
 *   signin-client list                                ListAccounts: prints one account= line per account
 *   signin-client signout ACCOUNT                     SignOut, then wait for Response
 *   signin-client raw METHOD GVARIANT-TEXT            any call with parameters in GVariant text form
 *   signin-client flood N ISSUER CLIENT_ID            N SignIn calls at once: prints ok= and each error name's count
 * Errors print error=<D-Bus error name> and message=; the exit status is 0 when the call itself answered. */
#include <gio/gio.h>
#include <stdio.h>
#include <string.h>

#define NAME "org.externaluseragent.SignIn"
#define PATH "/org/externaluseragent/SignIn"
#define IFACE "org.externaluseragent.SignIn1"

static GMainLoop *loop;
static guint response_code = 99;
static GVariant *response_results;

static void on_response(GDBusConnection *c, const char *sender, const char *path, const char *iface,
                        const char *signal, GVariant *parameters, gpointer data) {
    g_variant_get(parameters, "(u@a{sv})", &response_code, &response_results);
    g_main_loop_quit(loop);
}

static gboolean on_timeout(gpointer data) {
    g_main_loop_quit(loop);
    return G_SOURCE_REMOVE;
}

static void print_error(GError *error) {
    char *name = g_dbus_error_get_remote_error(error);
    g_dbus_error_strip_remote_error(error);
    printf("error=%s\nmessage=%s\n", name ? name : "none", error->message);
    g_free(name);
}

/* The request path the service will use for this connection's token. */
static char *request_path(GDBusConnection *bus, const char *token) {
    char *sender = g_strdup(g_dbus_connection_get_unique_name(bus) + 1);
    for (char *p = sender; *p; p++) if (*p == '.') *p = '_';
    char *path = g_strdup_printf(PATH "/request/%s/%s", sender, token);
    g_free(sender);
    return path;
}

static void print_results(GVariant *results) {
    GVariantIter iter;
    const char *key;
    GVariant *value;
    g_variant_iter_init(&iter, results);
    while (g_variant_iter_next(&iter, "{&sv}", &key, &value)) {
        if (g_variant_is_of_type(value, G_VARIANT_TYPE_STRING)) {
            printf("%s=%s\n", key, g_variant_get_string(value, NULL));
        } else {
            char *text = g_variant_print(value, FALSE);
            printf("%s=%s\n", key, text);
            g_free(text);
        }
        g_variant_unref(value);
    }
}

static int sign_in(GDBusConnection *bus, const char *issuer, const char *client, const char *account, int close) {
    const char *token = "t1";
    char *path = request_path(bus, token);
    g_dbus_connection_signal_subscribe(bus, NAME, "org.freedesktop.portal.Request", "Response", path, NULL,
                                       G_DBUS_SIGNAL_FLAGS_NONE, on_response, NULL, NULL);
    GVariantBuilder client_builder, options;
    g_variant_builder_init(&client_builder, G_VARIANT_TYPE("a{sv}"));
    g_variant_builder_add(&client_builder, "{sv}", "issuer", g_variant_new_string(issuer));
    g_variant_builder_add(&client_builder, "{sv}", "client_id", g_variant_new_string(client));
    const char *scopes[] = {"openid", "profile", NULL};
    g_variant_builder_add(&client_builder, "{sv}", "scopes", g_variant_new_strv(scopes, -1));
    g_variant_builder_init(&options, G_VARIANT_TYPE("a{sv}"));
    g_variant_builder_add(&options, "{sv}", "handle_token", g_variant_new_string(token));
    if (account) g_variant_builder_add(&options, "{sv}", "account", g_variant_new_string(account));
    GError *error = NULL;
    GVariant *reply = g_dbus_connection_call_sync(bus, NAME, PATH, IFACE, "SignIn",
                                                  g_variant_new("(sa{sv}a{sv})", "", &client_builder, &options),
                                                  G_VARIANT_TYPE("(o)"), G_DBUS_CALL_FLAGS_NONE, 10000, NULL, &error);
    if (!reply) { print_error(error); return 0; }
    const char *handle;
    g_variant_get(reply, "(&o)", &handle);
    printf("handle=%s\nhandle_predicted=%s\n", handle, strcmp(handle, path) == 0 ? "yes" : "no");
    fflush(stdout);
    if (close) {
        GVariant *closed = g_dbus_connection_call_sync(bus, NAME, handle, "org.freedesktop.portal.Request", "Close",
                                                       NULL, NULL, G_DBUS_CALL_FLAGS_NONE, 10000, NULL, &error);
        if (!closed) { print_error(error); return 0; }
        printf("closed\n");
        g_variant_unref(closed);
        g_timeout_add(1000, on_timeout, NULL);
    } else {
        g_timeout_add(120000, on_timeout, NULL);
    }
    g_variant_unref(reply);
    g_main_loop_run(loop);
    if (response_results) {
        printf("response=%u\n", response_code);
        print_results(response_results);
    } else {
        printf("response=none\n");
    }
    return 0;
}

static int flood_pending, flood_ok;
static GHashTable *flood_errors;

static void on_flood_reply(GObject *source, GAsyncResult *result, gpointer data) {
    GError *error = NULL;
    GVariant *reply = g_dbus_connection_call_finish(G_DBUS_CONNECTION(source), result, &error);
    if (reply) {
        flood_ok++;
        g_variant_unref(reply);
    } else {
        char *name = g_dbus_error_get_remote_error(error);
        char *key = name ? name : g_strdup("none");
        g_hash_table_insert(flood_errors, key, GINT_TO_POINTER(GPOINTER_TO_INT(g_hash_table_lookup(flood_errors, key)) + 1));
        g_error_free(error);
    }
    if (--flood_pending == 0) g_main_loop_quit(loop);
}

static int flood(GDBusConnection *bus, int count, const char *issuer, const char *client) {
    flood_errors = g_hash_table_new(g_str_hash, g_str_equal);
    flood_pending = count;
    for (int i = 0; i < count; i++) {
        GVariantBuilder client_builder;
        g_variant_builder_init(&client_builder, G_VARIANT_TYPE("a{sv}"));
        g_variant_builder_add(&client_builder, "{sv}", "issuer", g_variant_new_string(issuer));
        g_variant_builder_add(&client_builder, "{sv}", "client_id", g_variant_new_string(client));
        g_dbus_connection_call(bus, NAME, PATH, IFACE, "SignIn",
                               g_variant_new("(sa{sv}@a{sv})", "", &client_builder,
                                             g_variant_new_array(G_VARIANT_TYPE("{sv}"), NULL, 0)),
                               G_VARIANT_TYPE("(o)"), G_DBUS_CALL_FLAGS_NONE, 60000, NULL, on_flood_reply, NULL);
    }
    g_main_loop_run(loop);
    printf("ok=%d\n", flood_ok);
    GHashTableIter iter;
    gpointer key, value;
    g_hash_table_iter_init(&iter, flood_errors);
    while (g_hash_table_iter_next(&iter, &key, &value)) printf("%s=%d\n", (char *)key, GPOINTER_TO_INT(value));
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 2) { fprintf(stderr, "usage: see the comment at the top of signin-client.c\n"); return 2; }
    loop = g_main_loop_new(NULL, FALSE);
    GError *error = NULL;
    GDBusConnection *bus = g_bus_get_sync(G_BUS_TYPE_SESSION, NULL, &error);
    if (!bus) { fprintf(stderr, "no bus: %s\n", error->message); return 3; }
    const char *command = argv[1];
    if (!strcmp(command, "signin") && argc >= 4) return sign_in(bus, argv[2], argv[3], argc > 4 ? argv[4] : NULL, 0);
    if (!strcmp(command, "close") && argc >= 4) return sign_in(bus, argv[2], argv[3], NULL, 1);
    if (!strcmp(command, "flood") && argc >= 5) return flood(bus, atoi(argv[2]), argv[3], argv[4]);
    GVariant *reply = NULL;
    if (!strcmp(command, "token") && argc >= 3) {
        reply = g_dbus_connection_call_sync(bus, NAME, PATH, IFACE, "GetAccessToken",
                                            g_variant_new("(s@a{sv})", argv[2], g_variant_new_array(G_VARIANT_TYPE("{sv}"), NULL, 0)),
                                            NULL, G_DBUS_CALL_FLAGS_NONE, 30000, NULL, &error);
        if (!reply) { print_error(error); return 0; }
        const char *token;
        gint64 expires;
        GVariant *extra;
        g_variant_get(reply, "(&sx@a{sv})", &token, &expires, &extra);
        printf("access_token_length=%zu\nexpires_at=%lld\n", strlen(token), (long long)expires);
        print_results(extra);
        return 0;
    }
    if (!strcmp(command, "list")) {
        reply = g_dbus_connection_call_sync(bus, NAME, PATH, IFACE, "ListAccounts",
                                            g_variant_new("(@a{sv})", g_variant_new_array(G_VARIANT_TYPE("{sv}"), NULL, 0)),
                                            NULL, G_DBUS_CALL_FLAGS_NONE, 30000, NULL, &error);
        if (!reply) { print_error(error); return 0; }
        GVariant *accounts = g_variant_get_child_value(reply, 0);
        printf("accounts=%zu\n", g_variant_n_children(accounts));
        for (gsize i = 0; i < g_variant_n_children(accounts); i++) print_results(g_variant_get_child_value(accounts, i));
        return 0;
    }
    if (!strcmp(command, "raw") && argc >= 4) {
        GVariant *parameters = g_variant_parse(NULL, argv[3], NULL, NULL, &error);
        if (!parameters) { fprintf(stderr, "bad GVariant text: %s\n", error->message); return 2; }
        reply = g_dbus_connection_call_sync(bus, NAME, PATH, IFACE, argv[2], parameters, NULL, G_DBUS_CALL_FLAGS_NONE,
                                            30000, NULL, &error);
        if (!reply) { print_error(error); return 0; }
        char *text = g_variant_print(reply, TRUE);
        printf("reply=%s\n", text);
        return 0;
    }
    fprintf(stderr, "unknown command %s\n", command);
    return 2;
}
