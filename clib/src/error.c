/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* The error struct: made here, mapped from the service's D-Bus errors and Response results, freed by the app. */
#include "internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
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
    eua_error *error = eua_alloc(sizeof *error);
    error->struct_size = sizeof(eua_error);
    error->code = code;
    error->name = eua_strdup(code_name(code));
    error->message = message;
    error->oauth_error = eua_strdup(oauth_error);
    return error;
}

eua_error *eua_error_new(eua_client_error_code code, const char *format, ...) {
    va_list arguments;
    va_start(arguments, format);
    char *message = NULL;
    if (vasprintf(&message, format, arguments) < 0) abort();
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
        {"org.freedesktop.DBus.Error.Disconnected", EUA_CLIENT_ERROR_SERVICE_UNAVAILABLE},
        {"org.freedesktop.DBus.Error.NoReply", EUA_CLIENT_ERROR_TIMED_OUT},
        {"org.freedesktop.DBus.Error.Timeout", EUA_CLIENT_ERROR_TIMED_OUT},
        {"org.freedesktop.DBus.Error.TimedOut", EUA_CLIENT_ERROR_TIMED_OUT},
        {"org.freedesktop.DBus.Error.InvalidArgs", EUA_CLIENT_ERROR_INVALID_ARGUMENT},
        {"org.freedesktop.DBus.Error.AccessDenied", EUA_CLIENT_ERROR_NOT_ALLOWED},
        {"org.freedesktop.DBus.Error.LimitsExceeded", EUA_CLIENT_ERROR_NOT_ALLOWED},
    };
    if (!name) return 0;
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        if (strcmp(names[i].name, name) == 0) return names[i].code;
    }
    if (strncmp(name, "org.freedesktop.DBus.Error.Spawn.", 33) == 0) return EUA_CLIENT_ERROR_SERVICE_UNAVAILABLE;
    return 0;
}

/* The message of `code` for a failure `doing`, `detail` saying what the bus or sd-bus said. */
static char *message_of(eua_client_error_code code, const char *doing, const char *detail) {
    if (code == EUA_CLIENT_ERROR_SERVICE_UNAVAILABLE) {
        return eua_printf("%s: the sign-in service " EUA_SERVICE_NAME " did not answer on the session bus (%s); "
                          "install its package (it is started by D-Bus activation) or check "
                          "`journalctl --user` for why it did not start",
                          doing, detail);
    }
    if (code == EUA_CLIENT_ERROR_TIMED_OUT) {
        return eua_printf("%s: no answer in time (%s); try again, or give a longer timeout", doing, detail);
    }
    return eua_printf("%s: %s", doing, detail);
}

eua_error *eua_error_from_bus(const sd_bus_error *error, const char *doing) {
    eua_client_error_code code = code_of_dbus_name(error->name);
    if (!code) code = EUA_CLIENT_ERROR_FAILED;
    const char *detail = error->message && *error->message ? error->message : error->name ? error->name : "no detail";
    return make(code, message_of(code, doing, detail), NULL);
}

eua_error *eua_error_from_errno(int negative_errno, const char *doing) {
    int number = negative_errno < 0 ? -negative_errno : negative_errno;
    eua_client_error_code code;
    switch (number) {
    case ETIMEDOUT: code = EUA_CLIENT_ERROR_TIMED_OUT; break;
    case ECANCELED: code = EUA_CLIENT_ERROR_PROGRAM_CANCELED; break;
    case ENOTCONN: case ECONNRESET: case ECONNREFUSED: case EPIPE: case ENOENT: case ESHUTDOWN:
        code = EUA_CLIENT_ERROR_SERVICE_UNAVAILABLE; break;
    default: code = EUA_CLIENT_ERROR_FAILED;
    }
    char scratch[128];
    const char *detail = strerror_r(number, scratch, sizeof scratch);
    return make(code, message_of(code, doing, detail), NULL);
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
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        if (strcmp(names[i].name, name) == 0) return names[i].code;
    }
    return EUA_CLIENT_ERROR_FAILED;
}

/* The string member `key` of `results`, or NULL. */
static const char *string_member(const eua_json *results, const char *key) {
    const eua_json *value = eua_json_member(results, key);
    return value && value->kind == EUA_JSON_STRING ? value->string : NULL;
}

eua_error *eua_error_from_response(const eua_json *results, const char *doing) {
    const char *name = string_member(results, "error");
    const char *description = string_member(results, "error_description");
    const char *oauth_error = string_member(results, "oauth_error");
    if (!name) name = "failed";
    if (!description) description = "the service gave no description";
    eua_client_error_code code = oauth_error ? EUA_CLIENT_ERROR_OAUTH_ERROR : code_of_response_error(name);
    return make(code, eua_printf("%s: %s", doing, description), oauth_error);
}

void eua_error_free(eua_error *error) {
    if (!error) return;
    free((char *)error->name);
    free((char *)error->message);
    free((char *)error->oauth_error);
    free(error);
}
