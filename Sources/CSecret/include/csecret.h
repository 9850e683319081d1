/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef CSECRET_H
#define CSECRET_H
/* The freedesktop Secret Service through libsecret, opened with dlopen on first use (csecret_load) rather than
 * linked, so commands that keep no token (eua agents, eua open) never map libsecret, GLib and GIO. No header is
 * needed to build: the few types used are declared in csecret.c. Debian: libsecret-1-0 to run.
 *
 * Items use the schema "org.externaluseragent.Token" with three string attributes, issuer, client and subject,
 * so a lookup names its item instead of scanning. Every call blocks; the caller runs it off the cooperative pool.
 * A returned message or secret is the caller's to free with csecret_free. */
#include <stddef.h>

/* Opens libsecret-1.so.0 once per process, thread-safely; NULL on success, else what is missing. */
const char *csecret_load(void);

/* 1 when a Secret Service owns org.freedesktop.secrets on the session bus at DBUS_SESSION_BUS_ADDRESS (asked with
 * a deadline of timeout_ms; a service that is only activatable does not count), else 0 with *why set. */
int csecret_service_running(int timeout_ms, char **why);

/* Whether name is owned on the session bus (2), only activatable there (1), or neither (0, with *why set), asked
 * with a deadline of timeout_ms for each of the two questions (NameHasOwner, ListActivatableNames). */
int csecret_bus_name_state(const char *name, int timeout_ms, char **why);

/* Whether the Secret Service can take and give secrets now (csecret_keyring_state). */
enum {
    CSECRET_KEYRING_READY = 1,    /* it runs (or is activatable), and its default collection is unlocked or absent */
    CSECRET_KEYRING_MISSING = 0,  /* nothing owns org.freedesktop.secrets and nothing can activate it */
    CSECRET_KEYRING_LOCKED = -1,  /* its default collection is locked (it is not unlocked here: no prompt is shown) */
    CSECRET_KEYRING_FAILED = -2,  /* the bus, libsecret or the service failed */
};

/* The Secret Service's state (CSECRET_KEYRING_…): whether its name is owned or activatable is asked with a deadline of
 * timeout_ms for each question, the default collection through libsecret (D-Bus's default deadline, 25 s); *why is set
 * unless it is CSECRET_KEYRING_READY. */
int csecret_keyring_state(int timeout_ms, char **why);

/* Stores secret (text) under the three attributes with label, in the default collection; 1, or 0 with *error. */
int csecret_store(const char *issuer, const char *client, const char *subject, const char *label, const char *secret,
                  char **error);

/* The secret under the three attributes; NULL with *error NULL when there is none, NULL with *error on failure. */
char *csecret_lookup(const char *issuer, const char *client, const char *subject, char **error);

/* Removes the item under the three attributes; 1 (also when there was none), or 0 with *error. */
int csecret_clear(const char *issuer, const char *client, const char *subject, char **error);

/* The sign-in service's accounts (eua-signin-service): items of the schema "org.externaluseragent.SignIn.Account",
 * each owned by one app (attribute app) and named by a random account id (attribute account); the attributes issuer,
 * client, subject, display_name and scopes describe it without its secret (ListAccounts reads only them). Values
 * must hold no tab or newline (the service checks). */

/* Stores secret under app and account with the describing attributes and label; 1, or 0 with *error. */
int csecret_account_store(const char *app, const char *account, const char *issuer, const char *client,
                          const char *subject, const char *display_name, const char *scopes, const char *label,
                          const char *secret, char **error);

/* The secret of app's account; NULL with *error NULL when app has no such account, NULL with *error on failure. */
char *csecret_account_lookup(const char *app, const char *account, char **error);

/* Removes app's account (1 also when there was none), or 0 with *error. */
int csecret_account_clear(const char *app, const char *account, char **error);

/* app's accounts, one line each: account, issuer, client, subject, display_name, scopes, separated by tabs (an empty
 * text when there are none); NULL with *error on failure. */
char *csecret_account_list(const char *app, char **error);

/* Frees a secret or message returned above (a secret is wiped first). */
void csecret_free(char *text);
#endif
