/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* A test client of org.externaluseragent.SignIn1, in C against GIO only (what an app in a sandbox would run):
 *   signin-client signin ISSUER CLIENT_ID [ACCOUNT]   SignIn, then wait for Response: prints response= and results
 *   signin-client close ISSUER CLIENT_ID [DELAY_MS]   SignIn, then (after DELAY_MS) Close: prints closed=yes, and any
 *                                                     Response seen
 *   signin-client token ACCOUNT [MIN_VALID [ID]]      GetAccessToken (min_valid, id_token): prints access_token_length=,
 *                                                     access_token_sha256=, expires_at= and the extras (tokens as lengths
 *                                                     and checksums only)
 *   signin-client list                                ListAccounts: prints one account= line per account
 *   signin-client signout ACCOUNT [END]               SignOut (with end_session when END is given), then wait for
 *                                                     Response
 *   signin-client raw METHOD GVARIANT-TEXT|@FILE [PATH INTERFACE]
 *                                                     any call with parameters in GVariant text form (at the main
 *                                                     object unless PATH and INTERFACE are given)
 *   signin-client flood N ISSUER CLIENT_ID [LIST]     N SignIn (ListAccounts with LIST) calls at once: prints ok= and
 *                                                     each error name's count
 *   signin-client bench N ACCOUNT                     N GetAccessToken calls one after another: prints p50_us=, p99_us=,
 *                                                     and the client's CPU time (cpu_us=)
 * Errors print error=<D-Bus error name> and message=; the exit status is 0 when the call itself answered. */
#include <gio/gio.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
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
        if (g_variant_is_of_type(value, G_VARIANT_TYPE_STRING) && g_str_has_suffix(key, "_token")) {
            /* A token: its length and checksum only. */
            const char *text = g_variant_get_string(value, NULL);
            char *sum = g_compute_checksum_for_string(G_CHECKSUM_SHA256, text, -1);
            printf("%s_length=%zu\n%s_sha256=%s\n", key, strlen(text), key, sum);
            g_free(sum);
        } else if (g_variant_is_of_type(value, G_VARIANT_TYPE_STRING)) {
            printf("%s=%s\n", key, g_variant_get_string(value, NULL));
        } else {
            char *text = g_variant_print(value, FALSE);
            printf("%s=%s\n", key, text);
            g_free(text);
        }
        g_variant_unref(value);
    }
}

static int sign_in(GDBusConnection *bus, const char *issuer, const char *client, const char *account, int close,
                   int delay_ms) {
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
        if (delay_ms > 0 && delay_ms <= 60000) g_usleep((gulong)delay_ms * 1000);
        GVariant *closed = g_dbus_connection_call_sync(bus, NAME, handle, "org.freedesktop.portal.Request", "Close",
                                                       NULL, NULL, G_DBUS_CALL_FLAGS_NONE, 10000, NULL, &error);
        if (!closed) { print_error(error); return 0; }
        printf("closed=yes\n");
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

static int flood(GDBusConnection *bus, int count, const char *issuer, const char *client, int list) {
    flood_errors = g_hash_table_new(g_str_hash, g_str_equal);
    flood_pending = count;
    for (int i = 0; i < count; i++) {
        GVariantBuilder client_builder;
        g_variant_builder_init(&client_builder, G_VARIANT_TYPE("a{sv}"));
        g_variant_builder_add(&client_builder, "{sv}", "issuer", g_variant_new_string(issuer));
        g_variant_builder_add(&client_builder, "{sv}", "client_id", g_variant_new_string(client));
        if (list) {
            g_variant_builder_clear(&client_builder);
            g_dbus_connection_call(bus, NAME, PATH, IFACE, "ListAccounts",
                                   g_variant_new("(@a{sv})", g_variant_new_array(G_VARIANT_TYPE("{sv}"), NULL, 0)),
                                   G_VARIANT_TYPE("(aa{sv})"), G_DBUS_CALL_FLAGS_NONE, 60000, NULL, on_flood_reply, NULL);
            continue;
        }
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

static int compare_times(const void *a, const void *b) {
    gint64 x = *(const gint64 *)a, y = *(const gint64 *)b;
    return x < y ? -1 : x > y;
}

static int bench(GDBusConnection *bus, int count, const char *account) {
    if (count < 1 || count > 1000000) { fprintf(stderr, "N must be 1 to 1000000\n"); return 2; }
    gint64 *times = g_new(gint64, count);
    for (int i = 0; i < count; i++) {
        GError *error = NULL;
        gint64 start = g_get_monotonic_time();
        GVariant *reply = g_dbus_connection_call_sync(bus, NAME, PATH, IFACE, "GetAccessToken",
                                                      g_variant_new("(s@a{sv})", account,
                                                                    g_variant_new_array(G_VARIANT_TYPE("{sv}"), NULL, 0)),
                                                      NULL, G_DBUS_CALL_FLAGS_NONE, 30000, NULL, &error);
        times[i] = g_get_monotonic_time() - start;
        if (!reply) { print_error(error); return 0; }
        g_variant_unref(reply);
    }
    qsort(times, count, sizeof *times, compare_times);
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    printf("calls=%d\np50_us=%lld\np99_us=%lld\ncpu_us=%lld\n", count, (long long)times[count / 2],
           (long long)times[(count * 99) / 100 < count ? (count * 99) / 100 : count - 1],
           (long long)(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1000000 + usage.ru_utime.tv_usec + usage.ru_stime.tv_usec);
    g_free(times);
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 2) { fprintf(stderr, "usage: see the comment at the top of signin-client.c\n"); return 2; }
    loop = g_main_loop_new(NULL, FALSE);
    GError *error = NULL;
    GDBusConnection *bus = g_bus_get_sync(G_BUS_TYPE_SESSION, NULL, &error);
    if (!bus) { fprintf(stderr, "no bus: %s\n", error->message); return 3; }
    const char *command = argv[1];
    if (!strcmp(command, "signin") && argc >= 4) return sign_in(bus, argv[2], argv[3], argc > 4 ? argv[4] : NULL, 0, 0);
    if (!strcmp(command, "close") && argc >= 4) return sign_in(bus, argv[2], argv[3], NULL, 1, argc > 4 ? atoi(argv[4]) : 0);
    if (!strcmp(command, "bench") && argc >= 4) return bench(bus, atoi(argv[2]), argv[3]);
    if (!strcmp(command, "flood") && argc >= 5) return flood(bus, atoi(argv[2]), argv[3], argv[4], argc > 5);
    GVariant *reply = NULL;
    if (!strcmp(command, "token") && argc >= 3) {
        GVariantBuilder options;
        g_variant_builder_init(&options, G_VARIANT_TYPE("a{sv}"));
        if (argc > 3) g_variant_builder_add(&options, "{sv}", "min_valid", g_variant_new_uint32(atoi(argv[3])));
        if (argc > 4) g_variant_builder_add(&options, "{sv}", "id_token", g_variant_new_boolean(TRUE));
        reply = g_dbus_connection_call_sync(bus, NAME, PATH, IFACE, "GetAccessToken",
                                            g_variant_new("(sa{sv})", argv[2], &options),
                                            NULL, G_DBUS_CALL_FLAGS_NONE, 30000, NULL, &error);
        if (!reply) { print_error(error); return 0; }
        const char *token;
        gint64 expires;
        GVariant *extra;
        g_variant_get(reply, "(&sx@a{sv})", &token, &expires, &extra);
        char *sum = g_compute_checksum_for_string(G_CHECKSUM_SHA256, token, -1);
        printf("access_token_length=%zu\naccess_token_sha256=%s\nexpires_at=%lld\n", strlen(token), sum, (long long)expires);
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
    if (!strcmp(command, "signout") && argc >= 3) {
        const char *token = "out1";
        char *path = request_path(bus, token);
        g_dbus_connection_signal_subscribe(bus, NAME, "org.freedesktop.portal.Request", "Response", path, NULL,
                                           G_DBUS_SIGNAL_FLAGS_NONE, on_response, NULL, NULL);
        GVariantBuilder options;
        g_variant_builder_init(&options, G_VARIANT_TYPE("a{sv}"));
        g_variant_builder_add(&options, "{sv}", "handle_token", g_variant_new_string(token));
        if (argc > 3) g_variant_builder_add(&options, "{sv}", "end_session", g_variant_new_boolean(TRUE));
        reply = g_dbus_connection_call_sync(bus, NAME, PATH, IFACE, "SignOut", g_variant_new("(ssa{sv})", "", argv[2], &options),
                                            G_VARIANT_TYPE("(o)"), G_DBUS_CALL_FLAGS_NONE, 10000, NULL, &error);
        if (!reply) { print_error(error); return 0; }
        g_timeout_add(60000, on_timeout, NULL);
        g_main_loop_run(loop);
        if (response_results) {
            printf("response=%u\n", response_code);
            print_results(response_results);
        } else {
            printf("response=none\n");
        }
        return 0;
    }
    if (!strcmp(command, "raw") && argc >= 4) {
        /* @FILE: the parameters' text is FILE's contents (a text longer than one argument may be). */
        char *contents = NULL;
        if (argv[3][0] == '@' && !g_file_get_contents(argv[3] + 1, &contents, NULL, &error)) {
            fprintf(stderr, "cannot read %s: %s\n", argv[3] + 1, error->message);
            return 2;
        }
        GVariant *parameters = g_variant_parse(NULL, contents ? contents : argv[3], NULL, NULL, &error);
        if (!parameters) { fprintf(stderr, "bad GVariant text: %s\n", error->message); return 2; }
        reply = g_dbus_connection_call_sync(bus, NAME, argc > 4 ? argv[4] : PATH, argc > 5 ? argv[5] : IFACE, argv[2],
                                            parameters, NULL, G_DBUS_CALL_FLAGS_NONE, 30000, NULL, &error);
        if (!reply) { print_error(error); return 0; }
        char *text = g_variant_print(reply, TRUE);
        printf("reply=%s\n", text);
        return 0;
    }
    fprintf(stderr, "unknown command %s\n", command);
    return 2;
}
