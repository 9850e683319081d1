/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef EUA_NET_H
#define EUA_NET_H

/* The few Linux calls the plugins' networking needs that Swift's Glibc module does not show
 * (they are GNU extensions): accepting with flags, an eventfd, naming a thread. */

/* accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC): -1 and errno on failure. */
int eua_net_accept(int fd);

/* eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC): -1 and errno on failure. */
int eua_net_eventfd(void);

/* Names the calling thread (at most 15 bytes are kept); what `top -H` and `ps -L` show. */
void eua_net_name_thread(const char *name);

#endif
