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
 * DMA: the model translates every IOVA through nic_xlate(): the ranges a
 * host driver handed over its socket (tally_nic_host.c), or guest RAM for a
 * driver inside a QEMU guest (IOVA = guest-physical address).
 */
#ifndef TALLY_NIC_H
#define TALLY_NIC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <tally/tally_hostif.h>

#include "tally_model.h"

struct nic_range {
	uint64_t iova;
	uint64_t len;
	uint8_t *host;		/* mapping of [iova, iova + len) */
	size_t map_len;		/* bytes to munmap from map_base */
	void *map_base;
};

struct nic {
	struct tally_model *model;
	uint8_t *bar;
	size_t bar_len;		/* file size: a power of two */
	int bar_fd;
	const char *bar_path;	/* NULL: anonymous memory file */
	bool hold_wire;		/* --hold-wire: wait for SIGUSR2 */

	/* host transport */
	const char *sock_path;
	int listen_fd;
	int drv_fd;		/* the attached driver; -1 when none */
	uint32_t drv_pid;
	bool drv_ready;		/* memory received, ACK sent */
	int mem_err;		/* first error while receiving memory */
	struct nic_range ranges[TALLY_HOSTIF_MAX_MEM];
	unsigned int nb_ranges;
	unsigned int last_hit;
	uint64_t attaches;
	uint64_t refused;

	/* guest RAM (PCI transport) */
	uint8_t *guest_ram;
	uint64_t guest_len;
	uint64_t guest_low;	/* bytes of RAM below 4 GiB */
};

/* tally_nic_host.c */
int nic_host_listen(struct nic *n);
/* Accept and serve socket messages without blocking; returns work done. */
unsigned int nic_host_poll(struct nic *n);
void nic_host_close(struct nic *n);

/* tally_nic_xlate.c */
void *nic_xlate(void *arg, uint64_t iova, size_t len);
void nic_ranges_clear(struct nic *n);
int nic_guest_map(struct nic *n, const char *path);

/* tally_nic_stats.c: the device's statistics as text. */
size_t nic_stats_format(const struct nic *n, char *buf, size_t len);

#endif /* TALLY_NIC_H */
