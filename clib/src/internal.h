/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* What the library's files share. Nothing here is exported. */
#ifndef EUA_INTERNAL_H
#define EUA_INTERNAL_H

#include "externaluseragent.h"
#include "json.h"

#include <systemd/sd-bus.h>

#define EUA_SERVICE_NAME "org.externaluseragent.SignIn"
#define EUA_SERVICE_PATH "/org/externaluseragent/SignIn"
#define EUA_SERVICE_INTERFACE "org.externaluseragent.SignIn1"
#define EUA_REQUEST_INTERFACE "org.freedesktop.portal.Request"
#define EUA_SERVICE_ERROR_PREFIX "org.externaluseragent.SignIn.Error."

/** A new error of `code` with a message (printf format). */
eua_error *eua_error_new(eua_client_error_code code, const char *format, ...) EUA_PRINTF(2, 3);
/** The error a failed D-Bus call answers (its error name and message), `doing` naming what was tried. */
eua_error *eua_error_from_bus(const sd_bus_error *error, const char *doing);
/** The error of a local sd-bus failure (a negative errno), `doing` naming what was tried. */
eua_error *eua_error_from_errno(int negative_errno, const char *doing);
/** The error of a `Response` with code 2: its results' `error`, `error_description` and `oauth_error` (an object). */
eua_error *eua_error_from_response(const eua_json *results, const char *doing);
/** Hands `error` to the caller's `out` (or frees it when `out` is NULL). */
void eua_error_give(eua_error *error, eua_error **out);

/** Appends the next complete value of `message` as JSON (a{s…} becomes an object, other arrays and structs arrays,
 * integers numbers); 0 at the end of the enclosing container, < 0 (an errno) when the message cannot be read. */
int eua_message_write_json(eua_buf *out, sd_bus_message *message);
/** The JSON of a GetAccessToken reply (sxa{sv}): access_token, expires_at, then the extra keys; < 0 when the reply
 * cannot be read. Wipe it when done. */
int eua_token_json(eua_buf *out, sd_bus_message *reply);

/** A key an options object may hold, with its D-Bus type. */
typedef struct {
    const char *key;
    /** "s", "as", "b", "u" (an integer 0…UINT32_MAX, or within min/max when max > 0). */
    const char *type;
    uint32_t min, max;
    /** The key goes to the `client` dictionary of SignIn instead of `options`. */
    bool client_key;
    /** The key is kept out of the dictionaries (parent_window). */
    bool separate;
} eua_json_key;

/** Reads `json` (NULL: {}) and checks it against `known` (only those keys, each of its type and range) and
 * `required`; the parsed object, or NULL and `*error` (invalidArgument) when it is not valid. */
eua_json *eua_json_check(const char *json, const eua_json_key *known, const char *const *required, eua_error **error);
/** Appends the members of the checked `object` whose key is a `client_key` (or is not, for `client` false) as an
 * a{sv}, leaving out `separate` keys, and `handle_token` when not NULL; < 0 (an errno) on failure. */
int eua_append_dict(sd_bus_message *message, const eua_json *object, const eua_json_key *known, bool client,
                    const char *handle_token);
/** The string value of the `separate` key of `object` (parent_window), or "". */
const char *eua_json_separate(const eua_json *object, const eua_json_key *known);

#endif
