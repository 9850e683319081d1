/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* A strict JSON reader (RFC 8259: no comments, no trailing commas, no NaN, no lone surrogates, valid UTF-8 only),
 * a string writer, and the memory and text helpers of json.h. The library reads only small argument objects and writes only what it builds itself, so a
 * few hundred lines here spare every app a dependency (json-glib) it would otherwise load for four keys. */
#include "json.h"

#include <errno.h>
#include <locale.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- memory and text helpers */

void *eua_alloc(size_t size) {
    void *memory = calloc(1, size ? size : 1);
    if (!memory) abort();
    return memory;
}

void *eua_realloc(void *memory, size_t size) {
    void *bigger = realloc(memory, size ? size : 1);
    if (!bigger) abort();
    return bigger;
}

char *eua_strdup(const char *text) {
    if (!text) return NULL;
    char *copy = strdup(text);
    if (!copy) abort();
    return copy;
}

/* The C locale, for numbers written and read the same whatever the app's locale. */
static locale_t c_locale(void) {
    static locale_t locale;
    locale_t current = __atomic_load_n(&locale, __ATOMIC_ACQUIRE);
    if (current) return current;
    locale_t made = newlocale(LC_ALL_MASK, "C", (locale_t)0);
    if (!made) abort();
    locale_t expected = (locale_t)0;
    if (!__atomic_compare_exchange_n(&locale, &expected, made, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
        freelocale(made);
        return expected;
    }
    return made;
}

static char *vformat(const char *format, va_list arguments) {
    locale_t previous = uselocale(c_locale());
    char *text = NULL;
    int length = vasprintf(&text, format, arguments);
    uselocale(previous);
    if (length < 0) abort();
    return text;
}

char *eua_printf(const char *format, ...) {
    va_list arguments;
    va_start(arguments, format);
    char *text = vformat(format, arguments);
    va_end(arguments);
    return text;
}

bool eua_utf8_valid(const char *text, size_t length) {
    const unsigned char *p = (const unsigned char *)text, *end = p + length;
    while (p < end) {
        unsigned char c = *p;
        size_t n;
        uint32_t code;
        if (c == 0) return false;
        if (c < 0x80) { p++; continue; }
        if (c >= 0xC2 && c <= 0xDF) { n = 1; code = c & 0x1F; }
        else if (c >= 0xE0 && c <= 0xEF) { n = 2; code = c & 0x0F; }
        else if (c >= 0xF0 && c <= 0xF4) { n = 3; code = c & 0x07; }
        else return false;
        if ((size_t)(end - p) <= n) return false;
        for (size_t i = 1; i <= n; i++) {
            if ((p[i] & 0xC0) != 0x80) return false;
            code = (code << 6) | (p[i] & 0x3F);
        }
        /* Overlong forms, surrogates and code points past U+10FFFF. */
        if ((n == 2 && code < 0x800) || (n == 3 && (code < 0x10000 || code > 0x10FFFF))
            || (code >= 0xD800 && code <= 0xDFFF)) return false;
        p += n + 1;
    }
    return true;
}

static void reserve(eua_buf *buf, size_t more) {
    size_t needed = buf->length + more + 1;
    if (needed <= buf->allocated) return;
    size_t size = buf->allocated ? buf->allocated : 64;
    while (size < needed) size *= 2;
    /* Grown by hand rather than realloc: the old bytes may hold a token and are wiped before they are freed. */
    char *bigger = eua_alloc(size);
    if (buf->text) {
        memcpy(bigger, buf->text, buf->length + 1);
        explicit_bzero(buf->text, buf->allocated);
        free(buf->text);
    }
    buf->text = bigger;
    buf->allocated = size;
}

void eua_buf_append_len(eua_buf *buf, const char *text, size_t length) {
    reserve(buf, length);
    memcpy(buf->text + buf->length, text, length);
    buf->length += length;
    buf->text[buf->length] = 0;
}

void eua_buf_append(eua_buf *buf, const char *text) { eua_buf_append_len(buf, text, strlen(text)); }

void eua_buf_append_c(eua_buf *buf, char c) { eua_buf_append_len(buf, &c, 1); }

void eua_buf_printf(eua_buf *buf, const char *format, ...) {
    va_list arguments;
    va_start(arguments, format);
    char *text = vformat(format, arguments);
    va_end(arguments);
    eua_buf_append(buf, text);
    explicit_bzero(text, strlen(text));
    free(text);
}

void eua_buf_wipe(eua_buf *buf) {
    if (buf->text) {
        explicit_bzero(buf->text, buf->allocated);
        free(buf->text);
    }
    *buf = (eua_buf){0};
}

char *eua_buf_steal(eua_buf *buf) {
    char *text = buf->text ? buf->text : eua_strdup("");
    *buf = (eua_buf){0};
    return text;
}

/* Appends the UTF-8 bytes of `code` (a Unicode scalar value). */
static void append_utf8(eua_buf *out, uint32_t code) {
    char bytes[4];
    size_t n;
    if (code < 0x80) { bytes[0] = (char)code; n = 1; }
    else if (code < 0x800) { bytes[0] = (char)(0xC0 | (code >> 6)); bytes[1] = (char)(0x80 | (code & 0x3F)); n = 2; }
    else if (code < 0x10000) {
        bytes[0] = (char)(0xE0 | (code >> 12)); bytes[1] = (char)(0x80 | ((code >> 6) & 0x3F));
        bytes[2] = (char)(0x80 | (code & 0x3F)); n = 3;
    } else {
        bytes[0] = (char)(0xF0 | (code >> 18)); bytes[1] = (char)(0x80 | ((code >> 12) & 0x3F));
        bytes[2] = (char)(0x80 | ((code >> 6) & 0x3F)); bytes[3] = (char)(0x80 | (code & 0x3F)); n = 4;
    }
    eua_buf_append_len(out, bytes, n);
}

/* A growing array of pointers. */
typedef struct {
    void **items;
    size_t count, allocated;
} list;

static void list_add(list *l, void *item) {
    if (l->count == l->allocated) {
        l->allocated = l->allocated ? l->allocated * 2 : 8;
        l->items = eua_realloc(l->items, l->allocated * sizeof *l->items);
    }
    l->items[l->count++] = item;
}

/* ---------------------------------------------------------------- the reader */

typedef struct {
    const char *text;
    size_t at;
    size_t length;
    char *message;
} reader;

static void fail(reader *r, const char *what) {
    if (!r->message) r->message = eua_printf("the JSON text is not valid at byte %zu: %s", r->at, what);
}

static void skip_space(reader *r) {
    while (r->at < r->length) {
        char c = r->text[r->at];
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r') break;
        r->at++;
    }
}

static eua_json *parse_value(reader *r, int depth);

static bool literal(reader *r, const char *word) {
    size_t n = strlen(word);
    if (r->length - r->at < n || memcmp(r->text + r->at, word, n) != 0) return false;
    r->at += n;
    return true;
}

static int hex4(reader *r) {
    if (r->length - r->at < 4) return -1;
    int value = 0;
    for (int i = 0; i < 4; i++) {
        int c = (unsigned char)r->text[r->at + i], d;
        if (c >= '0' && c <= '9') d = c - '0';
        else if (c >= 'a' && c <= 'f') d = c - 'a' + 10;
        else if (c >= 'A' && c <= 'F') d = c - 'A' + 10;
        else return -1;
        value = value * 16 + d;
    }
    r->at += 4;
    return value;
}

/* Reads a string after its opening quote; the result is valid UTF-8 without NUL. */
static char *parse_string(reader *r) {
    eua_buf out = {0};
    while (true) {
        if (r->at >= r->length) { fail(r, "a string is not closed"); break; }
        unsigned char c = (unsigned char)r->text[r->at];
        if (c == '"') {
            r->at++;
            if (!eua_utf8_valid(out.text ? out.text : "", out.length)) {
                fail(r, "a string is not valid UTF-8");
                break;
            }
            return eua_buf_steal(&out);
        }
        if (c < 0x20) { fail(r, "a control character in a string must be escaped"); break; }
        if (c != '\\') { eua_buf_append_c(&out, (char)c); r->at++; continue; }
        r->at++;
        if (r->at >= r->length) { fail(r, "a string ends inside an escape"); break; }
        char e = r->text[r->at++];
        switch (e) {
        case '"': eua_buf_append_c(&out, '"'); continue;
        case '\\': eua_buf_append_c(&out, '\\'); continue;
        case '/': eua_buf_append_c(&out, '/'); continue;
        case 'b': eua_buf_append_c(&out, '\b'); continue;
        case 'f': eua_buf_append_c(&out, '\f'); continue;
        case 'n': eua_buf_append_c(&out, '\n'); continue;
        case 'r': eua_buf_append_c(&out, '\r'); continue;
        case 't': eua_buf_append_c(&out, '\t'); continue;
        case 'u': break;
        default: fail(r, "an unknown escape in a string"); goto failed;
        }
        int unit = hex4(r);
        if (unit < 0) { fail(r, "\\u needs four hex digits"); break; }
        uint32_t code = (uint32_t)unit;
        if (unit >= 0xD800 && unit <= 0xDBFF) {
            if (!literal(r, "\\u")) { fail(r, "a high surrogate without its low half"); break; }
            int low = hex4(r);
            if (low < 0xDC00 || low > 0xDFFF) { fail(r, "a high surrogate without its low half"); break; }
            code = 0x10000 + (((uint32_t)unit - 0xD800) << 10) + ((uint32_t)low - 0xDC00);
        } else if (unit >= 0xDC00 && unit <= 0xDFFF) {
            fail(r, "a lone low surrogate");
            break;
        } else if (unit == 0) {
            fail(r, "\\u0000 is not accepted (D-Bus strings cannot hold NUL)");
            break;
        }
        append_utf8(&out, code);
    }
failed:
    eua_buf_wipe(&out);
    return NULL;
}

static bool parse_number(reader *r, eua_json *value) {
    size_t start = r->at;
    const char *t = r->text;
    bool integer = true;
    if (r->at < r->length && t[r->at] == '-') r->at++;
    if (r->at >= r->length) return false;
    if (t[r->at] == '0') {
        r->at++;
    } else if (t[r->at] >= '1' && t[r->at] <= '9') {
        while (r->at < r->length && t[r->at] >= '0' && t[r->at] <= '9') r->at++;
    } else {
        return false;
    }
    if (r->at < r->length && t[r->at] == '.') {
        integer = false;
        r->at++;
        size_t digits = r->at;
        while (r->at < r->length && t[r->at] >= '0' && t[r->at] <= '9') r->at++;
        if (r->at == digits) return false;
    }
    if (r->at < r->length && (t[r->at] == 'e' || t[r->at] == 'E')) {
        integer = false;
        r->at++;
        if (r->at < r->length && (t[r->at] == '+' || t[r->at] == '-')) r->at++;
        size_t digits = r->at;
        while (r->at < r->length && t[r->at] >= '0' && t[r->at] <= '9') r->at++;
        if (r->at == digits) return false;
    }
    char *copy = strndup(t + start, r->at - start);
    if (!copy) abort();
    value->kind = EUA_JSON_NUMBER;
    value->number = strtod_l(copy, NULL, c_locale());
    if (integer) {
        errno = 0;
        long long parsed = strtoll(copy, NULL, 10);
        value->is_integer = errno == 0;
        value->integer = parsed;
    }
    free(copy);
    return true;
}

static eua_json *parse_container(reader *r, int depth, bool object) {
    eua_json *value = eua_alloc(sizeof *value);
    value->kind = object ? EUA_JSON_OBJECT : EUA_JSON_ARRAY;
    list items = {0}, keys = {0};
    char close = object ? '}' : ']';
    skip_space(r);
    if (r->at < r->length && r->text[r->at] == close) {
        r->at++;
        goto done;
    }
    while (true) {
        skip_space(r);
        if (object) {
            if (r->at >= r->length || r->text[r->at] != '"') { fail(r, "an object key must be a string"); goto failed; }
            r->at++;
            char *key = parse_string(r);
            if (!key) goto failed;
            for (size_t i = 0; i < keys.count; i++) {
                if (strcmp(keys.items[i], key) == 0) {
                    fail(r, "a key appears twice in one object");
                    free(key);
                    goto failed;
                }
            }
            list_add(&keys, key);
            skip_space(r);
            if (r->at >= r->length || r->text[r->at] != ':') { fail(r, "':' must follow an object key"); goto failed; }
            r->at++;
        }
        eua_json *item = parse_value(r, depth + 1);
        if (!item) goto failed;
        list_add(&items, item);
        skip_space(r);
        if (r->at < r->length && r->text[r->at] == ',') { r->at++; continue; }
        if (r->at < r->length && r->text[r->at] == close) { r->at++; break; }
        fail(r, object ? "',' or '}' expected" : "',' or ']' expected");
        goto failed;
    }
done:
    value->count = items.count;
    value->items = (eua_json **)items.items;
    value->keys = (char **)keys.items;
    if (!object) { free(value->keys); value->keys = NULL; }
    return value;
failed:
    for (size_t i = 0; i < items.count; i++) eua_json_free(items.items[i]);
    for (size_t i = 0; i < keys.count; i++) free(keys.items[i]);
    free(items.items);
    free(keys.items);
    free(value);
    return NULL;
}

static eua_json *parse_value(reader *r, int depth) {
    if (depth > EUA_JSON_MAX_DEPTH) { fail(r, "nested deeper than 32 levels"); return NULL; }
    skip_space(r);
    if (r->at >= r->length) { fail(r, "a value is missing"); return NULL; }
    char c = r->text[r->at];
    if (c == '{' || c == '[') { r->at++; return parse_container(r, depth, c == '{'); }
    eua_json *value = eua_alloc(sizeof *value);
    if (c == '"') {
        r->at++;
        value->kind = EUA_JSON_STRING;
        value->string = parse_string(r);
        if (value->string) return value;
    } else if (literal(r, "true")) {
        value->kind = EUA_JSON_BOOL;
        value->boolean = true;
        return value;
    } else if (literal(r, "false")) {
        value->kind = EUA_JSON_BOOL;
        return value;
    } else if (literal(r, "null")) {
        value->kind = EUA_JSON_NULL;
        return value;
    } else if (parse_number(r, value)) {
        return value;
    } else {
        fail(r, "a value must be an object, array, string, number, true, false or null");
    }
    free(value);
    return NULL;
}

eua_json *eua_json_parse(const char *text, char **message) {
    size_t length = strnlen(text, EUA_JSON_MAX_BYTES + 1);
    if (length > EUA_JSON_MAX_BYTES) {
        *message = eua_strdup("the JSON text is longer than 1 MiB; pass a smaller one");
        return NULL;
    }
    reader r = {.text = text, .at = 0, .length = length, .message = NULL};
    eua_json *value = parse_value(&r, 0);
    if (value) {
        skip_space(&r);
        if (r.at != r.length) {
            fail(&r, "text follows the value");
            eua_json_free(value);
            value = NULL;
        }
    }
    *message = value ? NULL : r.message;
    if (value) free(r.message);
    return value;
}

void eua_json_free(eua_json *value) {
    if (!value) return;
    for (size_t i = 0; i < value->count; i++) {
        eua_json_free(value->items[i]);
        if (value->keys) free(value->keys[i]);
    }
    free(value->items);
    free(value->keys);
    if (value->string) {
        explicit_bzero(value->string, strlen(value->string));
        free(value->string);
    }
    free(value);
}

const eua_json *eua_json_member(const eua_json *object, const char *key) {
    if (!object || object->kind != EUA_JSON_OBJECT) return NULL;
    for (size_t i = 0; i < object->count; i++) {
        if (strcmp(object->keys[i], key) == 0) return object->items[i];
    }
    return NULL;
}

void eua_json_write_string(eua_buf *out, const char *text) {
    eua_buf_append_c(out, '"');
    for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
        switch (*p) {
        case '"': eua_buf_append(out, "\\\""); break;
        case '\\': eua_buf_append(out, "\\\\"); break;
        case '\n': eua_buf_append(out, "\\n"); break;
        case '\r': eua_buf_append(out, "\\r"); break;
        case '\t': eua_buf_append(out, "\\t"); break;
        default:
            if (*p < 0x20 || *p == 0x7f) eua_buf_printf(out, "\\u%04x", *p);
            else eua_buf_append_c(out, (char)*p);
        }
    }
    eua_buf_append_c(out, '"');
}
