/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* The error struct: made here, mapped from the service's D-Bus errors and Response results, freed by the app. */
#include "internal.h"

#include <stdarg.h>
#include <string.h>

static const char *code_name(eua_client_error_code code) {
    switch (code) {
    case EUA_CLIENT_ERROR_FAILED: return "failed";
    case EUA_CLIENT_ERROR_INVALID_ARGUMENT: return "invalidArgument";
    case EUA_CLIENT_ERROR_NOT_ALLOWED: return "notAllowed";
    case EUA_CLIENT_ERROR_NOT_FOUND: return "notFound";
    case EUA_CLIENT_ERROR_INTERACTION_REQUIRED: return "interactionRequired";
    case EUA_CLIENT_ERROR_TIMED_OUT: return "timedOut";
    case EUA_CLIENT_ERROR_USER_CANCELED: return "userCanceled";
    case EUA_CLIENT_ERROR_PROGRAM_CANCELED: return "programCanceled";
    case EUA_CLIENT_ERROR_SERVICE_UNAVAILABLE: return "serviceUnavailable";
    case EUA_CLIENT_ERROR_OAUTH_ERROR: return "oauthError";
    }
    return "failed";
}

static eua_error *make(eua_client_error_code code, char *message, const char *oauth_error) {
    eua_error *error = g_new0(eua_error, 1);
    error->struct_size = sizeof(eua_error);
    error->code = code;
    error->name = g_strdup(code_name(code));
    error->message = message;
    error->oauth_error = g_strdup(oauth_error);
    return error;
}

eua_error *eua_error_new(eua_client_error_code code, const char *format, ...) {
    va_list arguments;
    va_start(arguments, format);
    char *message = g_strdup_vprintf(format, arguments);
    va_end(arguments);
    return make(code, message, NULL);
}

void eua_error_give(eua_error *error, eua_error **out) {
    if (out) *out = error;
    else eua_error_free(error);
}

/* The code of a D-Bus error name, or 0 when it is none the library knows. */
static eua_client_error_code code_of_dbus_name(const char *name) {
    static const struct { const char *name; eua_client_error_code code; } names[] = {
        {EUA_SERVICE_ERROR_PREFIX "NotAllowed", EUA_CLIENT_ERROR_NOT_ALLOWED},
        {EUA_SERVICE_ERROR_PREFIX "InvalidArgument", EUA_CLIENT_ERROR_INVALID_ARGUMENT},
        {EUA_SERVICE_ERROR_PREFIX "NotFound", EUA_CLIENT_ERROR_NOT_FOUND},
        {EUA_SERVICE_ERROR_PREFIX "InteractionRequired", EUA_CLIENT_ERROR_INTERACTION_REQUIRED},
        {EUA_SERVICE_ERROR_PREFIX "Failed", EUA_CLIENT_ERROR_FAILED},
        {"org.freedesktop.DBus.Error.ServiceUnknown", EUA_CLIENT_ERROR_SERVICE_UNAVAILABLE},
        {"org.freedesktop.DBus.Error.NameHasNoOwner", EUA_CLIENT_ERROR_SERVICE_UNAVAILABLE},
        {"org.freedesktop.DBus.Error.UnknownObject", EUA_CLIENT_ERROR_SERVICE_UNAVAILABLE},
        {"org.freedesktop.DBus.Error.UnknownInterface", EUA_CLIENT_ERROR_SERVICE_UNAVAILABLE},
        {"org.freedesktop.DBus.Error.UnknownMethod", EUA_CLIENT_ERROR_SERVICE_UNAVAILABLE},
        {"org.freedesktop.DBus.Error.NoReply", EUA_CLIENT_ERROR_TIMED_OUT},
        {"org.freedesktop.DBus.Error.Timeout", EUA_CLIENT_ERROR_TIMED_OUT},
        {"org.freedesktop.DBus.Error.InvalidArgs", EUA_CLIENT_ERROR_INVALID_ARGUMENT},
        {"org.freedesktop.DBus.Error.AccessDenied", EUA_CLIENT_ERROR_NOT_ALLOWED},
        {"org.freedesktop.DBus.Error.LimitsExceeded", EUA_CLIENT_ERROR_NOT_ALLOWED},
    };
    if (!name) return 0;
    for (size_t i = 0; i < G_N_ELEMENTS(names); i++) {
        if (strcmp(names[i].name, name) == 0) return names[i].code;
    }
    if (g_str_has_prefix(name, "org.freedesktop.DBus.Error.Spawn.")) return EUA_CLIENT_ERROR_SERVICE_UNAVAILABLE;
    return 0;
}

eua_error *eua_error_from_gerror(const GError *error, const char *doing) {
    char *remote = g_dbus_error_get_remote_error(error);
    GError *copy = g_error_copy(error);
    g_dbus_error_strip_remote_error(copy);
    eua_client_error_code code = code_of_dbus_name(remote);
    if (!code) {
        if (g_error_matches(error, G_IO_ERROR, G_IO_ERROR_TIMED_OUT)) code = EUA_CLIENT_ERROR_TIMED_OUT;
        else if (g_error_matches(error, G_IO_ERROR, G_IO_ERROR_CANCELLED)) code = EUA_CLIENT_ERROR_PROGRAM_CANCELED;
        else if (g_error_matches(error, G_IO_ERROR, G_IO_ERROR_CLOSED)) code = EUA_CLIENT_ERROR_SERVICE_UNAVAILABLE;
        else code = EUA_CLIENT_ERROR_FAILED;
    }
    char *message;
    if (code == EUA_CLIENT_ERROR_SERVICE_UNAVAILABLE) {
        message = g_strdup_printf("%s: the sign-in service " EUA_SERVICE_NAME " did not answer on the session bus (%s); "
                                  "install its package (it is started by D-Bus activation) or check "
                                  "`journalctl --user` for why it did not start",
                                  doing, copy->message);
    } else if (code == EUA_CLIENT_ERROR_TIMED_OUT) {
        message = g_strdup_printf("%s: no answer in time (%s); try again, or give a longer timeout", doing, copy->message);
    } else {
        message = g_strdup_printf("%s: %s", doing, copy->message);
    }
    g_error_free(copy);
    g_free(remote);
    return make(code, message, NULL);
}

/* The code of a Response's `error` value: a service error name, or the name of one of the project's error codes. */
static eua_client_error_code code_of_response_error(const char *name) {
    eua_client_error_code code = code_of_dbus_name(name);
    if (code) return code;
    static const struct { const char *name; eua_client_error_code code; } names[] = {
        {"timedOut", EUA_CLIENT_ERROR_TIMED_OUT},
        {"userCanceled", EUA_CLIENT_ERROR_USER_CANCELED},
        {"programCanceled", EUA_CLIENT_ERROR_PROGRAM_CANCELED},
        {"oauthError", EUA_CLIENT_ERROR_OAUTH_ERROR},
        {"notAuthorized", EUA_CLIENT_ERROR_INTERACTION_REQUIRED},
        {"invalidOptions", EUA_CLIENT_ERROR_INVALID_ARGUMENT},
        {"invalidArgument", EUA_CLIENT_ERROR_INVALID_ARGUMENT},
        {"notAllowed", EUA_CLIENT_ERROR_NOT_ALLOWED},
    };
    for (size_t i = 0; i < G_N_ELEMENTS(names); i++) {
        if (strcmp(names[i].name, name) == 0) return names[i].code;
    }
    return EUA_CLIENT_ERROR_FAILED;
}

eua_error *eua_error_from_response(GVariant *results, const char *doing) {
    const char *name = "failed", *description = "the service gave no description", *oauth_error = NULL;
    g_variant_lookup(results, "error", "&s", &name);
    g_variant_lookup(results, "error_description", "&s", &description);
    g_variant_lookup(results, "oauth_error", "&s", &oauth_error);
    eua_client_error_code code = oauth_error ? EUA_CLIENT_ERROR_OAUTH_ERROR : code_of_response_error(name);
    return make(code, g_strdup_printf("%s: %s", doing, description), oauth_error);
}

void eua_error_free(eua_error *error) {
    if (!error) return;
    g_free((char *)error->name);
    g_free((char *)error->message);
    g_free((char *)error->oauth_error);
    g_free(error);
}
