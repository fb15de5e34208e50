/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tally-nic: one Tally NIC as its own process.
 *
 * Design: the device (lib/model, posted mode; one or several ports, each
 * with its window of the one BAR file and its own mailbox session) lives on
 * one thread, the main
 * loop of tally_nic.c: it applies posted register writes, runs the device
 * pipeline, serves the host socket and backs off when idle. Nothing else
 * touches the model, so the address translation tables below change only
 * between two device steps, never under one.
 *
 * DMA: the model translates every IOVA through the translation table the
 * driver programs (tally_regs.h); a translation names a bus address, which
 * this process reaches through nic_bus_map() (tally_nic_xlate.c): the
 * ranges a host driver shares over its socket (tally_nic_host.c), or guest
 * RAM for a driver inside a QEMU guest (bus = guest-physical address).
 * Memory is mapped at the address the driver uses for it where this
 * process has that address free, so translations of consecutive pages join
 * into one (the model then hands out one pointer for a buffer that crosses
 * a page).
 *
 * Clients: every client of the socket is untrusted (doc/device-process.md,
 * "Who may connect"). The kernel's credentials of a connection
 * (SO_PEERCRED) decide whether it is served at all (struct nic_access);
 * a connection then waits for its HELLO in a small table, with a deadline,
 * and nothing the device does for a client waits for it: the device thread
 * never blocks on a socket. Memory a driver shares may shrink under the
 * device: the SIGBUS guard (tally_nic_guard.c) puts zeros in its place and
 * the device loop detaches that driver.
 */
#ifndef TALLY_NIC_H
#define TALLY_NIC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <tally/tally_hostif.h>

#include "tally_model.h"

/* A bus range the driver shares (MEM): [bus, bus + len) mapped at host. */
struct nic_range {
	uint64_t bus;
	uint64_t len;
	uint8_t *host;
	int guard;		/* its slot in the SIGBUS guard; -1 none */
};

#define NIC_PENDING_MAX		8	/* connections waiting for their HELLO */
#define NIC_HELLO_TIMEOUT_NS	1000000000ull	/* ... for at most this long */
#define NIC_ALLOW_MAX		32	/* entries of --allow-uid, of --allow-gid */

/* Who a connection is, as the kernel says (SO_PEERCRED). */
struct nic_cred {
	uint32_t pid;
	uint32_t uid;
	uint32_t gid;
};

/* A connection that has not said HELLO yet. */
struct nic_pending {
	int fd;
	struct nic_cred cred;
	uint64_t deadline;	/* tally_time_ns(): closed when still silent */
};

/*
 * Who may connect (tally_nic_peer.c): root and the device process's own
 * uid always; the uids and gids listed (a gid as the peer's primary or
 * supplementary group). The socket file is 0600, or 0660 in sock_gid.
 */
struct nic_access {
	uint32_t uids[NIC_ALLOW_MAX];
	unsigned int nb_uids;
	uint32_t gids[NIC_ALLOW_MAX];
	unsigned int nb_gids;
	int64_t sock_gid;	/* --socket-group; -1 none */
	bool host_clients;	/* --allow-host-clients (with --guest-ram) */
};

struct nic {
	struct tally_model *model;	/* port 0 */
	struct tally_model *ports[TALLY_MAX_PORTS];	/* port i of the device */
	uint32_t nb_ports;
	uint8_t *bar;
	size_t bar_len;		/* file size: a power of two */
	int bar_fd;
	int bar_lost;			/* atomic: the BAR file shrank (tally_guard.h) */
	const char *bar_path;	/* NULL: anonymous memory file */
	bool hold_wire;		/* --hold-wire: wait for SIGUSR2 */

	/* host transport */
	const char *sock_path;
	int listen_fd;
	struct nic_access access;
	struct nic_pending pending[NIC_PENDING_MAX];
	unsigned int nb_pending;
	int drv_fd;		/* the attached driver; -1 when none */
	uint32_t drv_pid;	/* the kernel's, not HELLO's */
	uint32_t drv_uid;
	bool drv_ready;		/* memory received, ACK sent */
	int mem_err;		/* first error since the last SYNC */
	struct nic_range *ranges;	/* sorted by bus, none overlapping */
	unsigned int nb_ranges;
	unsigned int cap_ranges;
	uint64_t shared_bytes;	/* in ranges */
	uint64_t attaches;
	uint64_t refused;	/* ATTACH while a driver is attached */
	uint64_t not_allowed;	/* connections refused by their credentials */
	uint64_t no_hello;	/* closed at their deadline */
	uint64_t dropped;	/* closed: table full, or an answer not taken */
	uint64_t mem_gone;	/* SIGBUS in shared memory (the driver detached) */
	uint64_t guard_seen;	/* nic_guard_faults() handled */
	uint64_t log_window;	/* lines about clients: at most NIC_LOG_BURST */
	unsigned int log_lines;	/* ... a second; */
	uint64_t log_quiet;	/* ... the others counted */

	/* guest RAM (PCI transport) */
	uint8_t *guest_ram;
	int guest_fd;
	uint64_t guest_len;
	uint64_t guest_low;	/* bytes of RAM below 4 GiB */
	uint64_t mirrored;	/* bytes of guest RAM mapped at their IOVA */
};

/* tally_nic_host.c */
int nic_host_listen(struct nic *n);
/* Accept and serve socket messages without blocking; returns work done. */
unsigned int nic_host_poll(struct nic *n);
/* The SIGBUS guard took faults (the last at addr): detach the driver. */
void nic_host_mem_gone(struct nic *n, uint64_t faults, uintptr_t addr);
void nic_host_close(struct nic *n);

/* tally_nic_peer.c: command-line lists (0, or -EINVAL with a message). */
int nic_access_uids(struct nic_access *a, const char *list);
int nic_access_gids(struct nic_access *a, const char *list);
int nic_access_group(struct nic_access *a, const char *group);
/* Bind s to path, the file with the mode and group access asks for. */
int nic_access_bind(const struct nic_access *a, int s, const char *path);
/* The kernel's credentials of the peer of s. 0 or -errno. */
int nic_peer_cred(int s, struct nic_cred *c);
bool nic_peer_allowed(const struct nic_access *a, int s, const struct nic_cred *c);

/* tally_nic_guard.c: the SIGBUS guard over the shared ranges. */
int nic_guard_install(void);
/* Guard [host, host + len): its slot, or -ENOSPC. */
int nic_guard_add(void *host, uint64_t len);
void nic_guard_set(int slot, void *host, uint64_t len);
void nic_guard_del(int slot);
/* Faults the guard took so far; *addr the last one's address. */
uint64_t nic_guard_faults(uintptr_t *addr);

/* tally_nic_xlate.c: the device's bus (tally_model_bus_map_t). */
void *nic_bus_map(void *arg, uint64_t iova, uint64_t bus, uint64_t len);
void nic_bus_unmap(void *arg, void *host, uint64_t len);
/* MEM / MEM_DEL of the host transport: 0 or -errno. */
int nic_range_add(struct nic *n, int fd, uint64_t bus, uint64_t len, uint64_t offset);
int nic_range_del(struct nic *n, uint64_t bus, uint64_t len);
void nic_ranges_clear(struct nic *n);
int nic_guest_map(struct nic *n, const char *path);
void nic_guest_unmap(struct nic *n);

/* tally_nic_stats.c: the device's statistics as text. */
size_t nic_stats_format(const struct nic *n, char *buf, size_t len);

#endif /* TALLY_NIC_H */
