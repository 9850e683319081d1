/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
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
    void (*free)(void *);
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
        {(void **)&lib.free, "g_free"},
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

/* Why csecret_bus_name_state found a name neither owned nor activatable. */
static const char no_owner_message[] = "nothing owns it and no D-Bus service file makes it activatable";

static char *take_error(GError *error, const char *fallback) {
    char *text = strdup(error && error->message ? error->message : fallback);
    if (error) lib.error_free(error);
    return text;
}

int csecret_service_running(int timeout_ms, char **why) {
    int state = csecret_bus_name_state("org.freedesktop.secrets", timeout_ms, why);
    if (state == 2) return 1;
    if (state == 1) {
        *why = strdup("no Secret Service (org.freedesktop.secrets) is running on the session bus (one is only "
                      "activatable)");
    } else if (*why && !strcmp(*why, no_owner_message)) {
        free(*why);
        *why = strdup("no Secret Service (org.freedesktop.secrets) is running on the session bus");
    }
    return 0;
}

int csecret_bus_name_state(const char *name, int timeout_ms, char **why) {
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
    void *connection = lib.connection_new_for_address(address, 1 | 8, NULL, NULL, &error);
    if (!connection) {
        *why = take_error(error, "the session bus could not be reached");
        return 0;
    }
    int state = 0;
    void *reply = lib.connection_call(connection, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                                      "org.freedesktop.DBus", "NameHasOwner", lib.variant_new("(s)", name), NULL, 0,
                                      timeout_ms, NULL, &error);
    if (!reply) {
        *why = take_error(error, "the session bus did not answer");
        lib.object_unref(connection);
        return 0;
    }
    int owned = 0;
    lib.variant_get(reply, "(b)", &owned);
    lib.variant_unref(reply);
    if (owned) {
        state = 2;
    } else {
        reply = lib.connection_call(connection, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                                    "ListActivatableNames", NULL, NULL, 0, timeout_ms, NULL, &error);
        if (!reply) {
            *why = take_error(error, "the session bus did not answer");
        } else {
            const char **names = NULL;
            lib.variant_get(reply, "(^a&s)", &names);
            for (size_t i = 0; names && names[i]; i++) if (!strcmp(names[i], name)) state = 1;
            lib.free(names);
            lib.variant_unref(reply);
            if (!state) *why = strdup(no_owner_message);
        }
    }
    lib.object_unref(connection);
    return state;
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

/* The sign-in service's accounts: one schema, the owner's app id and a random account id name an item. */
static const SecretSchema account_schema = {
    "org.externaluseragent.SignIn.Account", 0,
    {{"app", 0}, {"account", 0}, {"issuer", 0}, {"client", 0}, {"subject", 0}, {"display_name", 0}, {"scopes", 0},
     {NULL, 0}},
    0, NULL, NULL, NULL, NULL, NULL, NULL, NULL};

typedef struct GList { void *data; struct GList *next; struct GList *prev; } GList;

/* What listing needs besides the calls above (libsecret 0.19 and later): loaded on its first use only. */
static struct {
    GList *(*search)(const SecretSchema *, int, void *, GError **, ...);
    void *(*get_attributes)(void *);
    void *(*hash_lookup)(void *, const void *);
    void (*hash_unref)(void *);
    void (*list_free)(GList *);
    void (*disconnect)(void);
} listing;

static pthread_once_t listing_once = PTHREAD_ONCE_INIT;
static const char *listing_failure;

static void load_listing(void) {
    if (csecret_load()) { listing_failure = csecret_load(); return; }
    void *library = dlopen("libsecret-1.so.0", RTLD_NOW | RTLD_LOCAL);
    struct { void **field; const char *symbol; } symbols[] = {
        {(void **)&listing.search, "secret_password_search_sync"},
        {(void **)&listing.get_attributes, "secret_retrievable_get_attributes"},
        {(void **)&listing.hash_lookup, "g_hash_table_lookup"},
        {(void **)&listing.hash_unref, "g_hash_table_unref"},
        {(void **)&listing.list_free, "g_list_free"},
        {(void **)&listing.disconnect, "secret_service_disconnect"},
    };
    for (size_t i = 0; i < sizeof symbols / sizeof symbols[0]; i++) {
        *symbols[i].field = library ? dlsym(library, symbols[i].symbol) : NULL;
        if (!*symbols[i].field) {
            listing_failure = "libsecret-1.so.0 is older than 0.19 (no secret_password_search_sync); install a newer "
                              "libsecret (Debian 11 and later have one)";
            return;
        }
    }
}

/* Forgets libsecret's connection to the Secret Service after a failure, so that the next call finds the service anew
 * (a keyring that restarted has another unique bus name, and libsecret would go on calling the old one). */
static void forget_service(void) {
    pthread_once(&listing_once, load_listing);
    if (!listing_failure) listing.disconnect();
}

int csecret_account_store(const char *app, const char *account, const char *issuer, const char *client,
                          const char *subject, const char *display_name, const char *scopes, const char *label,
                          const char *secret, char **error) {
    const char *failure = csecret_load();
    if (failure) { *error = strdup(failure); return 0; }
    GError *problem = NULL;
    int ok = lib.store(&account_schema, "default", label, secret, NULL, &problem, "app", app, "account", account,
                       "issuer", issuer, "client", client, "subject", subject, "display_name", display_name,
                       "scopes", scopes, NULL);
    if (!ok) {
        *error = take_error(problem, "the Secret Service refused to store the item");
        forget_service();
    }
    return ok ? 1 : 0;
}

char *csecret_account_lookup(const char *app, const char *account, char **error) {
    const char *failure = csecret_load();
    if (failure) { *error = strdup(failure); return NULL; }
    GError *problem = NULL;
    char *found = lib.lookup(&account_schema, NULL, &problem, "app", app, "account", account, NULL);
    if (problem) {
        *error = take_error(problem, "the Secret Service could not be asked");
        forget_service();
        return NULL;
    }
    if (!found) return NULL;
    char *copy = strdup(found);
    lib.password_free(found);
    return copy;
}

int csecret_account_clear(const char *app, const char *account, char **error) {
    const char *failure = csecret_load();
    if (failure) { *error = strdup(failure); return 0; }
    GError *problem = NULL;
    lib.clear(&account_schema, NULL, &problem, "app", app, "account", account, NULL);
    if (problem) {
        *error = take_error(problem, "the Secret Service could not remove the item");
        forget_service();
        return 0;
    }
    return 1;
}

/* Appends text (or nothing for NULL) to the growing buffer; 0 when memory ran out. */
static int append(char **buffer, size_t *length, size_t *capacity, const char *text) {
    size_t more = text ? strlen(text) : 0;
    if (*length + more + 1 > *capacity) {
        size_t wanted = (*length + more + 1) * 2;
        char *grown = realloc(*buffer, wanted);
        if (!grown) return 0;
        *buffer = grown;
        *capacity = wanted;
    }
    if (more) memcpy(*buffer + *length, text, more);
    *length += more;
    (*buffer)[*length] = 0;
    return 1;
}

char *csecret_account_list(const char *app, char **error) {
    pthread_once(&listing_once, load_listing);
    if (listing_failure) { *error = strdup(listing_failure); return NULL; }
    GError *problem = NULL;
    /* SECRET_SEARCH_ALL | SECRET_SEARCH_UNLOCK: every item of app's, its attributes only (no secret is read). */
    GList *items = listing.search(&account_schema, (1 << 1) | (1 << 2), NULL, &problem, "app", app, NULL);
    if (problem) {
        *error = take_error(problem, "the Secret Service could not be searched");
        forget_service();
        return NULL;
    }
    static const char *const fields[] = {"account", "issuer", "client", "subject", "display_name", "scopes"};
    size_t length = 0, capacity = 256;
    char *text = malloc(capacity);
    int ok = text != NULL;
    if (ok) text[0] = 0;
    for (GList *item = items; item; item = item->next) {
        void *attributes = listing.get_attributes(item->data);
        for (size_t i = 0; ok && attributes && i < sizeof fields / sizeof fields[0]; i++) {
            ok = append(&text, &length, &capacity, listing.hash_lookup(attributes, fields[i]))
                && append(&text, &length, &capacity, i + 1 < sizeof fields / sizeof fields[0] ? "\t" : "\n");
        }
        if (attributes) listing.hash_unref(attributes);
        lib.object_unref(item->data);
    }
    listing.list_free(items);
    if (!ok) {
        free(text);
        *error = strdup("out of memory while listing the accounts");
        return NULL;
    }
    return text;
}

/* What csecret_keyring_state needs (libsecret's service and collection objects): loaded on its first use only. */
static struct {
    void *(*service_get)(int, void *, GError **);
    void *(*collection_for_alias)(void *, const char *, int, void *, GError **);
    int (*collection_get_locked)(void *);
} keyring;

static pthread_once_t keyring_once = PTHREAD_ONCE_INIT;
static const char *keyring_failure;

static void load_keyring(void) {
    if (csecret_load()) { keyring_failure = csecret_load(); return; }
    void *library = dlopen("libsecret-1.so.0", RTLD_NOW | RTLD_LOCAL);
    struct { void **field; const char *symbol; } symbols[] = {
        {(void **)&keyring.service_get, "secret_service_get_sync"},
        {(void **)&keyring.collection_for_alias, "secret_collection_for_alias_sync"},
        {(void **)&keyring.collection_get_locked, "secret_collection_get_locked"},
    };
    for (size_t i = 0; i < sizeof symbols / sizeof symbols[0]; i++) {
        *symbols[i].field = library ? dlsym(library, symbols[i].symbol) : NULL;
        if (!*symbols[i].field) {
            keyring_failure = "libsecret-1.so.0 has no secret_collection_for_alias_sync; install libsecret 0.18 or later";
            return;
        }
    }
}

int csecret_keyring_state(int timeout_ms, char **why) {
    pthread_once(&keyring_once, load_keyring);
    if (keyring_failure) { *why = strdup(keyring_failure); return CSECRET_KEYRING_FAILED; }
    char *reason = NULL;
    int name = csecret_bus_name_state("org.freedesktop.secrets", timeout_ms, &reason);
    if (name == 0) {
        int missing = reason && !strcmp(reason, no_owner_message);
        if (missing) {
            free(reason);
            reason = strdup("no Secret Service (org.freedesktop.secrets) runs on the session bus, and none is "
                            "activatable there");
        }
        *why = reason;
        return missing ? CSECRET_KEYRING_MISSING : CSECRET_KEYRING_FAILED;
    }
    GError *problem = NULL;
    /* SECRET_SERVICE_NONE: the service object only (no session opened, no collections loaded). */
    void *service = keyring.service_get(0, NULL, &problem);
    if (!service) {
        *why = take_error(problem, "the Secret Service could not be reached");
        forget_service();
        return CSECRET_KEYRING_FAILED;
    }
    /* SECRET_COLLECTION_NONE: the collection's properties only (Locked among them), no items. */
    void *collection = keyring.collection_for_alias(service, "default", 0, NULL, &problem);
    lib.object_unref(service);
    if (problem) {
        *why = take_error(problem, "the Secret Service did not say which collection is its default");
        forget_service();
        return CSECRET_KEYRING_FAILED;
    }
    /* No default collection yet: storing makes one (the keyring asks the person for its password). */
    if (!collection) return CSECRET_KEYRING_READY;
    int locked = keyring.collection_get_locked(collection);
    lib.object_unref(collection);
    if (locked) {
        *why = strdup("the keyring's default collection is locked");
        return CSECRET_KEYRING_LOCKED;
    }
    return CSECRET_KEYRING_READY;
}
