/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* What Swift cannot import from GIO by itself: GObject's type-check and cast macros. */
#ifndef EUA_CGIO_SHIM_H
#define EUA_CGIO_SHIM_H
#include <gio/gio.h>
#include <gio/gdesktopappinfo.h>

/** The desktop-entry view of an app info, or NULL when it is not one (G_IS_DESKTOP_APP_INFO + cast). */
static inline GDesktopAppInfo *eua_desktop_app_info(GAppInfo *info) {
    return (info && G_IS_DESKTOP_APP_INFO(info)) ? G_DESKTOP_APP_INFO(info) : NULL;
}

/** Releases a GObject passed around as an opaque pointer. */
static inline void eua_object_unref(void *object) {
    if (object) g_object_unref(object);
}
#endif
