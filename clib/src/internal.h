/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* What the library's files share. Nothing here is exported. */
#ifndef EUA_INTERNAL_H
#define EUA_INTERNAL_H

#include "externaluseragent.h"
#include "json.h"

#include <gio/gio.h>

#define EUA_SERVICE_NAME "org.externaluseragent.SignIn"
#define EUA_SERVICE_PATH "/org/externaluseragent/SignIn"
#define EUA_SERVICE_INTERFACE "org.externaluseragent.SignIn1"
#define EUA_REQUEST_INTERFACE "org.freedesktop.portal.Request"
#define EUA_SERVICE_ERROR_PREFIX "org.externaluseragent.SignIn.Error."

/** A new error of `code` with a message (printf format). */
eua_error *eua_error_new(eua_client_error_code code, const char *format, ...) G_GNUC_PRINTF(2, 3);
/** The error a failed D-Bus call or connection answers, `doing` naming what was tried ("GetAccessToken"). */
eua_error *eua_error_from_gerror(const GError *error, const char *doing);
/** The error of a `Response` with code 2: its results' `error`, `error_description` and `oauth_error`. */
eua_error *eua_error_from_response(GVariant *results, const char *doing);
/** Hands `error` to the caller's `out` (or frees it when `out` is NULL). */
void eua_error_give(eua_error *error, eua_error **out);

/** A JSON text of a GVariant (a{sv} becomes an object, arrays arrays, integers numbers); strings are wiped on free. */
void eua_variant_write_json(GString *out, GVariant *value);
/** The JSON of a GetAccessToken reply (sxa{sv}): access_token, expires_at, then the extra keys. Wipe it when done. */
GString *eua_token_json(GVariant *reply);
/** Frees a GString after zeroing its bytes (it may hold a token). */
void eua_gstring_wipe_free(GString *string);

/** Reads `json` (NULL: {}) into an a{sv} of the keys `known` with their D-Bus types; NULL and `*error` when invalid. */
typedef struct {
    const char *key;
    /** "s", "as", "b", "u" (an integer 0…UINT32_MAX, or within min/max when max > 0). */
    const char *type;
    uint32_t min, max;
    /** The key goes to the `client` dictionary of SignIn instead of `options`. */
    gboolean client_key;
    /** The key is taken out of the dictionaries (parent_window). */
    gboolean separate;
} eua_json_key;

/** Converts `json` into `client` and `options` dictionaries (builders already opened as a{sv}) and a separate
 * `parent_window` string; `required` keys must be present. */
gboolean eua_json_to_dicts(const char *json, const eua_json_key *known, const char *const *required,
                           GVariantBuilder *client, GVariantBuilder *options, char **parent_window, eua_error **error);

#endif
