/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* A strict JSON reader (RFC 8259: no comments, no trailing commas, no NaN, no lone surrogates, valid UTF-8 only)
 * and a string writer. The library reads only small argument objects and writes only what it builds itself, so a
 * few hundred lines here spare every app a dependency (json-glib) it would otherwise load for four keys. */
#include "json.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const char *text;
    size_t at;
    size_t length;
    char *message;
} reader;

static void fail(reader *r, const char *what) {
    if (!r->message) r->message = g_strdup_printf("the JSON text is not valid at byte %zu: %s", r->at, what);
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
    GString *out = g_string_new(NULL);
    while (true) {
        if (r->at >= r->length) { fail(r, "a string is not closed"); break; }
        unsigned char c = (unsigned char)r->text[r->at];
        if (c == '"') {
            r->at++;
            if (!g_utf8_validate(out->str, (gssize)out->len, NULL)) {
                fail(r, "a string is not valid UTF-8");
                break;
            }
            return g_string_free(out, FALSE);
        }
        if (c < 0x20) { fail(r, "a control character in a string must be escaped"); break; }
        if (c != '\\') { g_string_append_c(out, (char)c); r->at++; continue; }
        r->at++;
        if (r->at >= r->length) { fail(r, "a string ends inside an escape"); break; }
        char e = r->text[r->at++];
        switch (e) {
        case '"': g_string_append_c(out, '"'); continue;
        case '\\': g_string_append_c(out, '\\'); continue;
        case '/': g_string_append_c(out, '/'); continue;
        case 'b': g_string_append_c(out, '\b'); continue;
        case 'f': g_string_append_c(out, '\f'); continue;
        case 'n': g_string_append_c(out, '\n'); continue;
        case 'r': g_string_append_c(out, '\r'); continue;
        case 't': g_string_append_c(out, '\t'); continue;
        case 'u': break;
        default: fail(r, "an unknown escape in a string"); goto failed;
        }
        int unit = hex4(r);
        if (unit < 0) { fail(r, "\\u needs four hex digits"); break; }
        gunichar code = (gunichar)unit;
        if (unit >= 0xD800 && unit <= 0xDBFF) {
            if (!literal(r, "\\u")) { fail(r, "a high surrogate without its low half"); break; }
            int low = hex4(r);
            if (low < 0xDC00 || low > 0xDFFF) { fail(r, "a high surrogate without its low half"); break; }
            code = 0x10000 + (((gunichar)unit - 0xD800) << 10) + ((gunichar)low - 0xDC00);
        } else if (unit >= 0xDC00 && unit <= 0xDFFF) {
            fail(r, "a lone low surrogate");
            break;
        } else if (unit == 0) {
            fail(r, "\\u0000 is not accepted (D-Bus strings cannot hold NUL)");
            break;
        }
        g_string_append_unichar(out, code);
    }
failed:
    memset(out->str, 0, out->len);
    g_string_free(out, TRUE);
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
    char *copy = g_strndup(t + start, r->at - start);
    value->kind = EUA_JSON_NUMBER;
    value->number = g_ascii_strtod(copy, NULL);
    if (integer) {
        errno = 0;
        long long parsed = strtoll(copy, NULL, 10);
        value->is_integer = errno == 0;
        value->integer = parsed;
    }
    g_free(copy);
    return true;
}

static eua_json *parse_container(reader *r, int depth, bool object) {
    eua_json *value = g_new0(eua_json, 1);
    value->kind = object ? EUA_JSON_OBJECT : EUA_JSON_ARRAY;
    GPtrArray *items = g_ptr_array_new();
    GPtrArray *keys = g_ptr_array_new();
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
            for (guint i = 0; i < keys->len; i++) {
                if (strcmp(keys->pdata[i], key) == 0) {
                    fail(r, "a key appears twice in one object");
                    g_free(key);
                    goto failed;
                }
            }
            g_ptr_array_add(keys, key);
            skip_space(r);
            if (r->at >= r->length || r->text[r->at] != ':') { fail(r, "':' must follow an object key"); goto failed; }
            r->at++;
        }
        eua_json *item = parse_value(r, depth + 1);
        if (!item) goto failed;
        g_ptr_array_add(items, item);
        skip_space(r);
        if (r->at < r->length && r->text[r->at] == ',') { r->at++; continue; }
        if (r->at < r->length && r->text[r->at] == close) { r->at++; break; }
        fail(r, object ? "',' or '}' expected" : "',' or ']' expected");
        goto failed;
    }
done:
    value->count = items->len;
    value->items = (eua_json **)g_ptr_array_free(items, FALSE);
    value->keys = (char **)g_ptr_array_free(keys, FALSE);
    if (!object) { g_free(value->keys); value->keys = NULL; }
    return value;
failed:
    for (guint i = 0; i < items->len; i++) eua_json_free(items->pdata[i]);
    for (guint i = 0; i < keys->len; i++) g_free(keys->pdata[i]);
    g_ptr_array_free(items, TRUE);
    g_ptr_array_free(keys, TRUE);
    g_free(value);
    return NULL;
}

static eua_json *parse_value(reader *r, int depth) {
    if (depth > EUA_JSON_MAX_DEPTH) { fail(r, "nested deeper than 32 levels"); return NULL; }
    skip_space(r);
    if (r->at >= r->length) { fail(r, "a value is missing"); return NULL; }
    char c = r->text[r->at];
    if (c == '{' || c == '[') { r->at++; return parse_container(r, depth, c == '{'); }
    eua_json *value = g_new0(eua_json, 1);
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
    g_free(value);
    return NULL;
}

eua_json *eua_json_parse(const char *text, char **message) {
    size_t length = strnlen(text, EUA_JSON_MAX_BYTES + 1);
    if (length > EUA_JSON_MAX_BYTES) {
        *message = g_strdup("the JSON text is longer than 1 MiB; pass a smaller one");
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
    if (value) g_free(r.message);
    return value;
}

void eua_json_free(eua_json *value) {
    if (!value) return;
    for (size_t i = 0; i < value->count; i++) {
        eua_json_free(value->items[i]);
        if (value->keys) g_free(value->keys[i]);
    }
    g_free(value->items);
    g_free(value->keys);
    if (value->string) {
        memset(value->string, 0, strlen(value->string));
        g_free(value->string);
    }
    g_free(value);
}

const eua_json *eua_json_member(const eua_json *object, const char *key) {
    if (!object || object->kind != EUA_JSON_OBJECT) return NULL;
    for (size_t i = 0; i < object->count; i++) {
        if (strcmp(object->keys[i], key) == 0) return object->items[i];
    }
    return NULL;
}

void eua_json_write_string(GString *out, const char *text) {
    g_string_append_c(out, '"');
    for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
        switch (*p) {
        case '"': g_string_append(out, "\\\""); break;
        case '\\': g_string_append(out, "\\\\"); break;
        case '\n': g_string_append(out, "\\n"); break;
        case '\r': g_string_append(out, "\\r"); break;
        case '\t': g_string_append(out, "\\t"); break;
        default:
            if (*p < 0x20 || *p == 0x7f) g_string_append_printf(out, "\\u%04x", *p);
            else g_string_append_c(out, (char)*p);
        }
    }
    g_string_append_c(out, '"');
}
