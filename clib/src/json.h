/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* A small strict JSON reader and writer (RFC 8259), for the library's own arguments and results only.
 * Not exported (the version script keeps every symbol but eua_* local). */
#ifndef EUA_JSON_H
#define EUA_JSON_H

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

/** The largest JSON text the library reads. */
#define EUA_JSON_MAX_BYTES (1024 * 1024)
/** The deepest nesting the library reads. */
#define EUA_JSON_MAX_DEPTH 32

typedef enum { EUA_JSON_NULL, EUA_JSON_BOOL, EUA_JSON_NUMBER, EUA_JSON_STRING, EUA_JSON_ARRAY, EUA_JSON_OBJECT } eua_json_kind;

/** A parsed value. Strings are valid UTF-8 without NUL. Objects keep their keys in order; duplicates are refused. */
typedef struct eua_json {
    eua_json_kind kind;
    bool boolean;
    double number;
    /** The number is an integer in int64 range (no fraction, no exponent). */
    bool is_integer;
    int64_t integer;
    char *string;
    size_t count;
    struct eua_json **items;
    char **keys;
} eua_json;

/** Parses `text` whole; NULL and a message (g_free it) saying where and what on error. */
eua_json *eua_json_parse(const char *text, char **message);
void eua_json_free(eua_json *value);
/** The member `key` of an object, or NULL. */
const eua_json *eua_json_member(const eua_json *object, const char *key);

/** Appends `text` (UTF-8) as a JSON string. */
void eua_json_write_string(GString *out, const char *text);

#endif
