/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tally-nic: one Tally NIC as its own process.
 *
 * Design: the device (lib/model, posted mode) lives on one thread, the main
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
};

struct nic {
	struct tally_model *model;
	uint8_t *bar;
	size_t bar_len;		/* file size: a power of two */
	int bar_fd;
	int bar_lost;			/* atomic: the BAR file shrank (tally_guard.h) */
	const char *bar_path;	/* NULL: anonymous memory file */
	bool hold_wire;		/* --hold-wire: wait for SIGUSR2 */

	/* host transport */
	const char *sock_path;
	int listen_fd;
	int drv_fd;		/* the attached driver; -1 when none */
	uint32_t drv_pid;
	bool drv_ready;		/* memory received, ACK sent */
	bool proto_err;		/* the driver sent what the protocol has not */
	int mem_err;		/* first error since the last SYNC */
	struct nic_range *ranges;	/* sorted by bus, none overlapping */
	unsigned int nb_ranges;
	unsigned int cap_ranges;
	uint64_t shared_bytes;	/* in ranges */
	uint64_t attaches;
	uint64_t refused;

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
void nic_host_close(struct nic *n);

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
