#include "csecret.h"
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The parts of GLib, GIO and libsecret used here, as their headers declare them. */
typedef struct { uint32_t domain; int code; char *message; } GError;
typedef struct { const char *name; int type; } SecretSchemaAttribute;
typedef struct {
    const char *name;
    int flags;
    SecretSchemaAttribute attributes[32];
    int reserved;
    void *reserved1, *reserved2, *reserved3, *reserved4, *reserved5, *reserved6, *reserved7;
} SecretSchema;

static const SecretSchema schema = {
    "org.externaluseragent.Token", 0, {{"issuer", 0}, {"client", 0}, {"subject", 0}, {NULL, 0}}, 0,
    NULL, NULL, NULL, NULL, NULL, NULL, NULL};

static struct {
    int (*store)(const SecretSchema *, const char *, const char *, const char *, void *, GError **, ...);
    char *(*lookup)(const SecretSchema *, void *, GError **, ...);
    int (*clear)(const SecretSchema *, void *, GError **, ...);
    void (*password_free)(char *);
    void (*error_free)(GError *);
    void *(*connection_new_for_address)(const char *, int, void *, void *, GError **);
    void *(*connection_call)(void *, const char *, const char *, const char *, const char *, void *, void *, int, int,
                             void *, GError **);
    void *(*variant_new)(const char *, ...);
    void (*variant_get)(void *, const char *, ...);
    void (*variant_unref)(void *);
    void (*object_unref)(void *);
} lib;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static const char *load_failure;
static char load_message[512];

static void load(void) {
    /* Never closed: GLib starts threads that stay. */
    void *library = dlopen("libsecret-1.so.0", RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        snprintf(load_message, sizeof load_message,
                 "libsecret-1.so.0 could not be opened (%s); install libsecret (Debian: libsecret-1-0) or use "
                 "the file back end ([storage] backend = \"file\")", dlerror());
        load_failure = load_message;
        return;
    }
    struct { void **field; const char *symbol; } symbols[] = {
        {(void **)&lib.store, "secret_password_store_sync"},
        {(void **)&lib.lookup, "secret_password_lookup_sync"},
        {(void **)&lib.clear, "secret_password_clear_sync"},
        {(void **)&lib.password_free, "secret_password_free"},
        {(void **)&lib.error_free, "g_error_free"},
        {(void **)&lib.connection_new_for_address, "g_dbus_connection_new_for_address_sync"},
        {(void **)&lib.connection_call, "g_dbus_connection_call_sync"},
        {(void **)&lib.variant_new, "g_variant_new"},
        {(void **)&lib.variant_get, "g_variant_get"},
        {(void **)&lib.variant_unref, "g_variant_unref"},
        {(void **)&lib.object_unref, "g_object_unref"},
    };
    for (size_t i = 0; i < sizeof symbols / sizeof symbols[0]; i++) {
        *symbols[i].field = dlsym(library, symbols[i].symbol);
        if (!*symbols[i].field) {
            snprintf(load_message, sizeof load_message, "libsecret-1.so.0 (or the GLib it uses) has no %s",
                     symbols[i].symbol);
            load_failure = load_message;
            return;
        }
    }
}

const char *csecret_load(void) {
    pthread_once(&load_once, load);
    return load_failure;
}

static char *take_error(GError *error, const char *fallback) {
    char *text = strdup(error && error->message ? error->message : fallback);
    if (error) lib.error_free(error);
    return text;
}

int csecret_service_running(int timeout_ms, char **why) {
    const char *address = getenv("DBUS_SESSION_BUS_ADDRESS");
    if (!address || !*address) {
        *why = strdup("no session bus: DBUS_SESSION_BUS_ADDRESS is not set");
        return 0;
    }
    const char *failure = csecret_load();
    if (failure) {
        *why = strdup(failure);
        return 0;
    }
    GError *error = NULL;
    /* G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT | G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION */
    void *connection = lib.connection_new_for_address(address, 1 | 8, NULL, NULL, &error);
    if (!connection) {
        *why = take_error(error, "the session bus could not be reached");
        return 0;
    }
    void *reply = lib.connection_call(connection, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                                      "org.freedesktop.DBus", "NameHasOwner",
                                      lib.variant_new("(s)", "org.freedesktop.secrets"), NULL, 0, timeout_ms, NULL,
                                      &error);
    int owned = 0;
    if (reply) {
        lib.variant_get(reply, "(b)", &owned);
        lib.variant_unref(reply);
        if (!owned) *why = strdup("no Secret Service (org.freedesktop.secrets) is running on the session bus");
    } else {
        *why = take_error(error, "the session bus did not answer");
    }
    lib.object_unref(connection);
    return owned ? 1 : 0;
}

int csecret_store(const char *issuer, const char *client, const char *subject, const char *label, const char *secret,
                  char **error) {
    const char *failure = csecret_load();
    if (failure) { *error = strdup(failure); return 0; }
    GError *problem = NULL;
    int ok = lib.store(&schema, "default", label, secret, NULL, &problem, "issuer", issuer, "client", client,
                       "subject", subject, NULL);
    if (!ok) *error = take_error(problem, "the Secret Service refused to store the item");
    return ok ? 1 : 0;
}

char *csecret_lookup(const char *issuer, const char *client, const char *subject, char **error) {
    const char *failure = csecret_load();
    if (failure) { *error = strdup(failure); return NULL; }
    GError *problem = NULL;
    char *found = lib.lookup(&schema, NULL, &problem, "issuer", issuer, "client", client, "subject", subject, NULL);
    if (problem) {
        *error = take_error(problem, "the Secret Service could not be asked");
        return NULL;
    }
    if (!found) return NULL;
    char *copy = strdup(found);
    lib.password_free(found);
    return copy;
}

int csecret_clear(const char *issuer, const char *client, const char *subject, char **error) {
    const char *failure = csecret_load();
    if (failure) { *error = strdup(failure); return 0; }
    GError *problem = NULL;
    lib.clear(&schema, NULL, &problem, "issuer", issuer, "client", client, "subject", subject, NULL);
    if (problem) {
        *error = take_error(problem, "the Secret Service could not remove the item");
        return 0;
    }
    return 1;
}

void csecret_free(char *text) {
    if (!text) return;
    volatile char *wipe = text;
    while (*wipe) *wipe++ = 0;
    free(text);
}
