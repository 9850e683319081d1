/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* JSON from the app into the service's a{sv} dictionaries (strictly: known keys, checked types and ranges), and the
 * service's GVariant answers into JSON for the app. */
#include "internal.h"

#include <string.h>

void eua_gstring_wipe_free(GString *string) {
    if (!string) return;
    memset(string->str, 0, string->allocated_len);
    g_string_free(string, TRUE);
}

void eua_variant_write_json(GString *out, GVariant *value) {
    if (g_variant_is_of_type(value, G_VARIANT_TYPE_VARIANT)) {
        GVariant *inner = g_variant_get_variant(value);
        eua_variant_write_json(out, inner);
        g_variant_unref(inner);
        return;
    }
    if (g_variant_is_of_type(value, G_VARIANT_TYPE_VARDICT)) {
        GVariantIter iter;
        const char *key;
        GVariant *member;
        gboolean first = TRUE;
        g_string_append_c(out, '{');
        g_variant_iter_init(&iter, value);
        while (g_variant_iter_next(&iter, "{&sv}", &key, &member)) {
            if (!first) g_string_append_c(out, ',');
            first = FALSE;
            eua_json_write_string(out, key);
            g_string_append_c(out, ':');
            eua_variant_write_json(out, member);
            g_variant_unref(member);
        }
        g_string_append_c(out, '}');
        return;
    }
    if (g_variant_is_container(value) && !g_variant_is_of_type(value, G_VARIANT_TYPE_DICTIONARY)) {
        g_string_append_c(out, '[');
        for (gsize i = 0, n = g_variant_n_children(value); i < n; i++) {
            GVariant *child = g_variant_get_child_value(value, i);
            if (i) g_string_append_c(out, ',');
            eua_variant_write_json(out, child);
            g_variant_unref(child);
        }
        g_string_append_c(out, ']');
        return;
    }
    switch (g_variant_classify(value)) {
    case G_VARIANT_CLASS_STRING:
    case G_VARIANT_CLASS_OBJECT_PATH:
    case G_VARIANT_CLASS_SIGNATURE: eua_json_write_string(out, g_variant_get_string(value, NULL)); return;
    case G_VARIANT_CLASS_BOOLEAN: g_string_append(out, g_variant_get_boolean(value) ? "true" : "false"); return;
    case G_VARIANT_CLASS_BYTE: g_string_append_printf(out, "%u", g_variant_get_byte(value)); return;
    case G_VARIANT_CLASS_INT16: g_string_append_printf(out, "%d", g_variant_get_int16(value)); return;
    case G_VARIANT_CLASS_UINT16: g_string_append_printf(out, "%u", g_variant_get_uint16(value)); return;
    case G_VARIANT_CLASS_INT32: g_string_append_printf(out, "%d", g_variant_get_int32(value)); return;
    case G_VARIANT_CLASS_UINT32: g_string_append_printf(out, "%u", g_variant_get_uint32(value)); return;
    case G_VARIANT_CLASS_INT64: g_string_append_printf(out, "%" G_GINT64_FORMAT, g_variant_get_int64(value)); return;
    case G_VARIANT_CLASS_UINT64: g_string_append_printf(out, "%" G_GUINT64_FORMAT, g_variant_get_uint64(value)); return;
    case G_VARIANT_CLASS_DOUBLE: {
        char number[G_ASCII_DTOSTR_BUF_SIZE];
        g_string_append(out, g_ascii_dtostr(number, sizeof number, g_variant_get_double(value)));
        return;
    }
    default: {
        char *text = g_variant_print(value, FALSE);
        eua_json_write_string(out, text);
        g_free(text);
    }
    }
}

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

/* The GVariant of `value` as `spec` wants it, or NULL and `*error`. */
static GVariant *convert(const eua_json *value, const eua_json_key *spec, eua_error **error) {
    const char *type = spec->type;
    if (strcmp(type, "s") == 0 && value->kind == EUA_JSON_STRING) return g_variant_new_string(value->string);
    if (strcmp(type, "b") == 0 && value->kind == EUA_JSON_BOOL) return g_variant_new_boolean(value->boolean);
    if (strcmp(type, "u") == 0 && value->kind == EUA_JSON_NUMBER) {
        uint32_t max = spec->max ? spec->max : UINT32_MAX;
        if (!value->is_integer || value->integer < spec->min || value->integer > max) {
            *error = eua_error_new(EUA_CLIENT_ERROR_INVALID_ARGUMENT, "\"%s\" must be a whole number from %u to %u",
                                   spec->key, spec->min, max);
            return NULL;
        }
        return g_variant_new_uint32((uint32_t)value->integer);
    }
    if (strcmp(type, "as") == 0 && value->kind == EUA_JSON_ARRAY) {
        GVariantBuilder list;
        g_variant_builder_init(&list, G_VARIANT_TYPE_STRING_ARRAY);
        for (size_t i = 0; i < value->count; i++) {
            if (value->items[i]->kind != EUA_JSON_STRING) {
                g_variant_builder_clear(&list);
                *error = eua_error_new(EUA_CLIENT_ERROR_INVALID_ARGUMENT,
                                       "\"%s\" must be an array of strings; item %zu is %s", spec->key, i,
                                       kind_name(value->items[i]->kind));
                return NULL;
            }
            g_variant_builder_add(&list, "s", value->items[i]->string);
        }
        return g_variant_builder_end(&list);
    }
    static const struct { const char *type, *name; } names[] = {
        {"s", "a string"}, {"b", "true or false"}, {"u", "a whole number"}, {"as", "an array of strings"}};
    const char *wanted = "a value";
    for (size_t i = 0; i < G_N_ELEMENTS(names); i++) {
        if (strcmp(names[i].type, type) == 0) wanted = names[i].name;
    }
    *error = eua_error_new(EUA_CLIENT_ERROR_INVALID_ARGUMENT, "\"%s\" must be %s, not %s", spec->key, wanted,
                           kind_name(value->kind));
    return NULL;
}

gboolean eua_json_to_dicts(const char *json, const eua_json_key *known, const char *const *required,
                           GVariantBuilder *client, GVariantBuilder *options, char **parent_window, eua_error **error) {
    char *message = NULL;
    eua_json *root = eua_json_parse(json ? json : "{}", &message);
    if (!root) {
        *error = eua_error_new(EUA_CLIENT_ERROR_INVALID_ARGUMENT, "%s", message);
        g_free(message);
        return FALSE;
    }
    gboolean ok = FALSE;
    if (root->kind != EUA_JSON_OBJECT) {
        *error = eua_error_new(EUA_CLIENT_ERROR_INVALID_ARGUMENT, "the JSON text must be an object, not %s",
                               kind_name(root->kind));
        goto done;
    }
    for (const char *const *key = required; key && *key; key++) {
        if (!eua_json_member(root, *key)) {
            *error = eua_error_new(EUA_CLIENT_ERROR_INVALID_ARGUMENT, "\"%s\" is required", *key);
            goto done;
        }
    }
    for (size_t i = 0; i < root->count; i++) {
        const eua_json_key *spec = NULL;
        for (const eua_json_key *k = known; k->key; k++) {
            if (strcmp(k->key, root->keys[i]) == 0) spec = k;
        }
        if (!spec) {
            GString *names = g_string_new(NULL);
            for (const eua_json_key *k = known; k->key; k++) g_string_append_printf(names, "%s%s", k == known ? "" : ", ", k->key);
            *error = eua_error_new(EUA_CLIENT_ERROR_INVALID_ARGUMENT, "unknown key \"%.64s\"; the keys are %s",
                                   root->keys[i], names->str);
            g_string_free(names, TRUE);
            goto done;
        }
        GVariant *value = convert(root->items[i], spec, error);
        if (!value) goto done;
        if (spec->separate) {
            g_free(*parent_window);
            *parent_window = g_variant_dup_string(value, NULL);
            g_variant_unref(g_variant_ref_sink(value));
        } else {
            g_variant_builder_add(spec->client_key ? client : options, "{sv}", spec->key, value);
        }
    }
    ok = TRUE;
done:
    eua_json_free(root);
    return ok;
}

GString *eua_token_json(GVariant *reply) {
    const char *token;
    gint64 expires_at;
    GVariant *extra;
    g_variant_get(reply, "(&sx@a{sv})", &token, &expires_at, &extra);
    GString *json = g_string_new("{\"access_token\":");
    eua_json_write_string(json, token);
    g_string_append_printf(json, ",\"expires_at\":%" G_GINT64_FORMAT, expires_at);
    GString *rest = g_string_sized_new(256);
    eua_variant_write_json(rest, extra);
    if (rest->len > 2) {
        g_string_append_c(json, ',');
        g_string_append_len(json, rest->str + 1, (gssize)rest->len - 1);
    } else {
        g_string_append_c(json, '}');
    }
    eua_gstring_wipe_free(rest);
    g_variant_unref(extra);
    return json;
}
