/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* A small strict JSON reader and writer (RFC 8259), for the library's own arguments and results only, and the few
 * memory and text helpers the library's files share (no GLib: an app that links the library loads libc and
 * libsystemd only). Not exported (the version script keeps every symbol but eua_* local). */
#ifndef EUA_JSON_H
#define EUA_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** The largest JSON text the library reads. */
#define EUA_JSON_MAX_BYTES (1024 * 1024)
/** The deepest nesting the library reads. */
#define EUA_JSON_MAX_DEPTH 32

#define EUA_PRINTF(format_index, first_argument) __attribute__((format(printf, format_index, first_argument)))

/** malloc, calloc, realloc and strdup that end the process when memory is exhausted (as GLib's g_malloc did). */
void *eua_alloc(size_t size);
void *eua_realloc(void *memory, size_t size);
char *eua_strdup(const char *text);
/** A new string formatted as printf does (numbers in the C locale's form). */
char *eua_printf(const char *format, ...) EUA_PRINTF(1, 2);
/** Whether `text` (`length` bytes) is valid UTF-8 without NUL. */
bool eua_utf8_valid(const char *text, size_t length);

/** A growing text: `text` is NUL-terminated, `length` bytes long, in `allocated` bytes. */
typedef struct {
    char *text;
    size_t length;
    size_t allocated;
} eua_buf;

void eua_buf_append(eua_buf *buf, const char *text);
void eua_buf_append_len(eua_buf *buf, const char *text, size_t length);
void eua_buf_append_c(eua_buf *buf, char c);
void eua_buf_printf(eua_buf *buf, const char *format, ...) EUA_PRINTF(2, 3);
/** Zeroes every allocated byte (the text may hold a token), then frees it; the buffer is empty afterwards. */
void eua_buf_wipe(eua_buf *buf);
/** The text, handed to the caller (free with free(); "" when nothing was appended); the buffer is empty afterwards. */
char *eua_buf_steal(eua_buf *buf);

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

/** Parses `text` whole; NULL and a message (free it) saying where and what on error. */
eua_json *eua_json_parse(const char *text, char **message);
void eua_json_free(eua_json *value);
/** The member `key` of an object, or NULL. */
const eua_json *eua_json_member(const eua_json *object, const char *key);

/** Appends `text` (UTF-8) as a JSON string. */
void eua_json_write_string(eua_buf *out, const char *text);

#endif
