/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* JSON from the app into the service's a{sv} dictionaries (strictly: known keys, checked types and ranges), and the
 * service's D-Bus answers into JSON for the app. */
#include "internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- D-Bus → JSON */

/* Appends the basic value of `type` at the current position of `message`. */
static int write_basic(eua_buf *out, sd_bus_message *message, char type) {
    union {
        const char *string;
        int boolean;
        uint8_t byte;
        int16_t int16;
        uint16_t uint16;
        int32_t int32;
        uint32_t uint32;
        int64_t int64;
        uint64_t uint64;
        double number;
    } value;
    int r = sd_bus_message_read_basic(message, type, &value);
    if (r <= 0) return r < 0 ? r : -EBADMSG;
    switch (type) {
    case 's': case 'o': case 'g': eua_json_write_string(out, value.string); break;
    case 'b': eua_buf_append(out, value.boolean ? "true" : "false"); break;
    case 'y': eua_buf_printf(out, "%u", value.byte); break;
    case 'n': eua_buf_printf(out, "%d", value.int16); break;
    case 'q': eua_buf_printf(out, "%u", value.uint16); break;
    case 'i': eua_buf_printf(out, "%d", value.int32); break;
    case 'u': eua_buf_printf(out, "%u", value.uint32); break;
    case 'x': eua_buf_printf(out, "%lld", (long long)value.int64); break;
    case 't': eua_buf_printf(out, "%llu", (unsigned long long)value.uint64); break;
    case 'd': eua_buf_printf(out, "%.17g", value.number); break;
    default: eua_buf_append(out, "null"); break;   /* a file descriptor: nothing the app could use */
    }
    return 1;
}

/* Appends the members of the container `message` is in, as `open` … `close`, separated by commas. */
static int write_members(eua_buf *out, sd_bus_message *message, char open, char close) {
    eua_buf_append_c(out, open);
    int r;
    for (size_t i = 0;; i++) {
        if (i) {
            r = sd_bus_message_at_end(message, false);
            if (r < 0) return r;
            if (r > 0) break;
            eua_buf_append_c(out, ',');
        }
        r = eua_message_write_json(out, message);
        if (r < 0) return r;
        if (r == 0) break;
    }
    eua_buf_append_c(out, close);
    return 1;
}

int eua_message_write_json(eua_buf *out, sd_bus_message *message) {
    char type;
    const char *contents;
    int r = sd_bus_message_peek_type(message, &type, &contents);
    if (r <= 0) return r;
    if (!strchr("arve", type)) return write_basic(out, message, type);
    r = sd_bus_message_enter_container(message, type, contents);
    if (r <= 0) return r < 0 ? r : -EBADMSG;
    if (type == 'a' && contents[0] == '{' && contents[1] == 's') {
        /* A dictionary with string keys: an object. */
        eua_buf_append_c(out, '{');
        for (size_t i = 0;; i++) {
            char entry_type;
            const char *entry;
            r = sd_bus_message_peek_type(message, &entry_type, &entry);
            if (r < 0) return r;
            if (r == 0) break;
            r = sd_bus_message_enter_container(message, 'e', entry);
            if (r <= 0) return r < 0 ? r : -EBADMSG;
            const char *key;
            r = sd_bus_message_read_basic(message, 's', &key);
            if (r <= 0) return r < 0 ? r : -EBADMSG;
            if (i) eua_buf_append_c(out, ',');
            eua_json_write_string(out, key);
            eua_buf_append_c(out, ':');
            r = eua_message_write_json(out, message);
            if (r <= 0) return r < 0 ? r : -EBADMSG;
            r = sd_bus_message_exit_container(message);
            if (r < 0) return r;
        }
        eua_buf_append_c(out, '}');
    } else if (type == 'v') {
        r = eua_message_write_json(out, message);
        if (r <= 0) return r < 0 ? r : -EBADMSG;
    } else {
        /* Arrays, structs and dictionary entries with other keys: arrays. */
        r = write_members(out, message, '[', ']');
        if (r < 0) return r;
    }
    r = sd_bus_message_exit_container(message);
    return r < 0 ? r : 1;
}

int eua_token_json(eua_buf *out, sd_bus_message *reply) {
    const char *token;
    int64_t expires_at;
    int r = sd_bus_message_read(reply, "sx", &token, &expires_at);
    if (r <= 0) return r < 0 ? r : -EBADMSG;
    eua_buf_append(out, "{\"access_token\":");
    eua_json_write_string(out, token);
    eua_buf_printf(out, ",\"expires_at\":%lld", (long long)expires_at);
    eua_buf rest = {0};
    r = eua_message_write_json(&rest, reply);
    if (r <= 0) {
        eua_buf_wipe(&rest);
        return r < 0 ? r : -EBADMSG;
    }
    if (rest.length > 2) {
        eua_buf_append_c(out, ',');
        eua_buf_append_len(out, rest.text + 1, rest.length - 1);
    } else {
        eua_buf_append_c(out, '}');
    }
    eua_buf_wipe(&rest);
    return 1;
}

/* ---------------------------------------------------------------- JSON → D-Bus */

static const char *kind_name(eua_json_kind kind) {
    switch (kind) {
    case EUA_JSON_NULL: return "null";
    case EUA_JSON_BOOL: return "a boolean";
    case EUA_JSON_NUMBER: return "a number";
    case EUA_JSON_STRING: return "a string";
    case EUA_JSON_ARRAY: return "an array";
    case EUA_JSON_OBJECT: return "an object";
    }
    return "a value";
}

/* Whether `value` is what `spec` wants; otherwise `*error`. */
static bool check_value(const eua_json *value, const eua_json_key *spec, eua_error **error) {
    const char *type = spec->type;
    if (strcmp(type, "s") == 0 && value->kind == EUA_JSON_STRING) return true;
    if (strcmp(type, "b") == 0 && value->kind == EUA_JSON_BOOL) return true;
    if (strcmp(type, "u") == 0 && value->kind == EUA_JSON_NUMBER) {
        uint32_t max = spec->max ? spec->max : UINT32_MAX;
        if (!value->is_integer || value->integer < spec->min || value->integer > max) {
            *error = eua_error_new(EUA_CLIENT_ERROR_INVALID_ARGUMENT, "\"%s\" must be a whole number from %u to %u",
                                   spec->key, spec->min, max);
            return false;
        }
        return true;
    }
    if (strcmp(type, "as") == 0 && value->kind == EUA_JSON_ARRAY) {
        for (size_t i = 0; i < value->count; i++) {
            if (value->items[i]->kind != EUA_JSON_STRING) {
                *error = eua_error_new(EUA_CLIENT_ERROR_INVALID_ARGUMENT,
                                       "\"%s\" must be an array of strings; item %zu is %s", spec->key, i,
                                       kind_name(value->items[i]->kind));
                return false;
            }
        }
        return true;
    }
    static const struct { const char *type, *name; } names[] = {
        {"s", "a string"}, {"b", "true or false"}, {"u", "a whole number"}, {"as", "an array of strings"}};
    const char *wanted = "a value";
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        if (strcmp(names[i].type, type) == 0) wanted = names[i].name;
    }
    *error = eua_error_new(EUA_CLIENT_ERROR_INVALID_ARGUMENT, "\"%s\" must be %s, not %s", spec->key, wanted,
                           kind_name(value->kind));
    return false;
}

static const eua_json_key *spec_of(const eua_json_key *known, const char *key) {
    for (const eua_json_key *k = known; k->key; k++) {
        if (strcmp(k->key, key) == 0) return k;
    }
    return NULL;
}

eua_json *eua_json_check(const char *json, const eua_json_key *known, const char *const *required, eua_error **error) {
    char *message = NULL;
    eua_json *root = eua_json_parse(json ? json : "{}", &message);
    if (!root) {
        *error = eua_error_new(EUA_CLIENT_ERROR_INVALID_ARGUMENT, "%s", message);
        free(message);
        return NULL;
    }
    if (root->kind != EUA_JSON_OBJECT) {
        *error = eua_error_new(EUA_CLIENT_ERROR_INVALID_ARGUMENT, "the JSON text must be an object, not %s",
                               kind_name(root->kind));
        goto failed;
    }
    for (const char *const *key = required; key && *key; key++) {
        if (!eua_json_member(root, *key)) {
            *error = eua_error_new(EUA_CLIENT_ERROR_INVALID_ARGUMENT, "\"%s\" is required", *key);
            goto failed;
        }
    }
    for (size_t i = 0; i < root->count; i++) {
        const eua_json_key *spec = spec_of(known, root->keys[i]);
        if (!spec) {
            eua_buf names = {0};
            for (const eua_json_key *k = known; k->key; k++) eua_buf_printf(&names, "%s%s", k == known ? "" : ", ", k->key);
            *error = eua_error_new(EUA_CLIENT_ERROR_INVALID_ARGUMENT, "unknown key \"%.64s\"; the keys are %s",
                                   root->keys[i], names.text);
            eua_buf_wipe(&names);
            goto failed;
        }
        if (!check_value(root->items[i], spec, error)) goto failed;
    }
    return root;
failed:
    eua_json_free(root);
    return NULL;
}

const char *eua_json_separate(const eua_json *object, const eua_json_key *known) {
    for (size_t i = 0; object && i < object->count; i++) {
        const eua_json_key *spec = spec_of(known, object->keys[i]);
        if (spec && spec->separate && object->items[i]->kind == EUA_JSON_STRING) return object->items[i]->string;
    }
    return "";
}

/* Appends `value` (checked against `spec`) as a variant. */
static int append_variant(sd_bus_message *message, const eua_json *value, const eua_json_key *spec) {
    int r = sd_bus_message_open_container(message, 'v', spec->type);
    if (r < 0) return r;
    if (spec->type[0] == 's') {
        r = sd_bus_message_append_basic(message, 's', value->string);
    } else if (spec->type[0] == 'b') {
        int boolean = value->boolean;
        r = sd_bus_message_append_basic(message, 'b', &boolean);
    } else if (spec->type[0] == 'u') {
        uint32_t number = (uint32_t)value->integer;
        r = sd_bus_message_append_basic(message, 'u', &number);
    } else {
        r = sd_bus_message_open_container(message, 'a', "s");
        for (size_t i = 0; r >= 0 && i < value->count; i++) {
            r = sd_bus_message_append_basic(message, 's', value->items[i]->string);
        }
        if (r >= 0) r = sd_bus_message_close_container(message);
    }
    if (r < 0) return r;
    return sd_bus_message_close_container(message);
}

int eua_append_dict(sd_bus_message *message, const eua_json *object, const eua_json_key *known, bool client,
                    const char *handle_token) {
    int r = sd_bus_message_open_container(message, 'a', "{sv}");
    for (size_t i = 0; r >= 0 && object && i < object->count; i++) {
        const eua_json_key *spec = spec_of(known, object->keys[i]);
        if (!spec || spec->separate || spec->client_key != client) continue;
        r = sd_bus_message_open_container(message, 'e', "sv");
        if (r >= 0) r = sd_bus_message_append_basic(message, 's', spec->key);
        if (r >= 0) r = append_variant(message, object->items[i], spec);
        if (r >= 0) r = sd_bus_message_close_container(message);
    }
    if (r >= 0 && handle_token) r = sd_bus_message_append(message, "{sv}", "handle_token", "s", handle_token);
    if (r >= 0) r = sd_bus_message_close_container(message);
    return r;
}
