/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Multi-process support (tally_mp.c): each process's way to the device
 * (struct tally_proc, tally_pmd.h), the secondary's attach and the IPC
 * by which the primary answers what only it can.
 */
#ifndef TALLY_MP_H
#define TALLY_MP_H

#include <stddef.h>
#include <stdint.h>

#include <ethdev_driver.h>

struct tally_io;
struct tally_posted;

/* The secondaries' ops: reads and bursts; the rest -EPERM (tally_ethdev.c). */
extern const struct eth_dev_ops tally_eth_dev_ops_secondary;

/* Primary probe, right after the port is allocated: its tally_proc, where
 * the probe puts its transport's hooks. NULL without memory. */
struct tally_proc *tally_mp_proc_new(struct rte_eth_dev *dev);
/* Primary, once the HAL is open: the process's HAL, the IPC action. */
void tally_mp_primary_init(struct rte_eth_dev *dev);
/* Either process, at close: its tally_proc and what it holds. */
void tally_mp_proc_free(struct rte_eth_dev *dev);

/*
 * Secondary probe: the primary's port `name` in this process (NULL when the
 * primary has none; the adapter then tells the transport), then its
 * set-up reaching the device through io (a joined posted session, or MMIO
 * when posted is NULL). The port owns posted (malloc'd) and bar_map
 * (munmapped at close) from then on, also on failure, which releases the
 * port. A probe that fails between the two releases the port itself.
 */
struct rte_eth_dev *tally_mp_secondary_port(const char *name);
int tally_mp_secondary_attach(struct rte_eth_dev *dev, struct rte_device *rdev,
			      const struct tally_io *io, struct tally_posted *posted,
			      void *bar_map, size_t bar_map_len);
int tally_mp_secondary_close(struct rte_eth_dev *dev);

/* Flow counters in use (the primary's pool; asked over IPC in a secondary). */
uint32_t tally_mp_cnt_in_use(struct rte_eth_dev *dev);
/* rte_pmd_tally_counter_read() of a secondary: the primary reads. */
int tally_mp_counter_read(uint16_t port_id, uint32_t id, uint64_t *packets,
			  uint64_t *bytes);

#endif /* TALLY_MP_H */
