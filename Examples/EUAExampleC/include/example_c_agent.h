/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* The example C plugin exports only the entry symbol declared in eua_plugin.h. */
#ifndef EXAMPLE_C_AGENT_H
#define EXAMPLE_C_AGENT_H
#include "eua_plugin.h"
const eua_plugin_table *eua_plugin_entry_v1(const eua_host_table *host);
#endif
