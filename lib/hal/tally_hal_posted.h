/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The posted-write transport: a BAR that is shared memory (the device
 * process on the host, or behind QEMU's ivshmem on a PCI function), reached
 * through the mailbox of tally_mbox.h.
 *
 * What: tally_posted_attach() checks that the BAR advertises CAPS.POSTED and
 * carries a mailbox, starts a driver session (tally_posted_join() posts
 * into a running one instead) and fills a struct tally_io
 * whose write32 posts to the mailbox and whose read32 first waits for every
 * earlier posted write to be applied (reads flush, as on PCIe). Memory-like
 * blocks (statistics, counter banks) stay plain loads from the BAR. When the
 * device has a doorbell page (CAPS.DB_PAGE) a queue doorbell is one store
 * there, once the device applied every write this process posted before;
 * until then it goes through the mailbox like any write.
 *
 * Device loss: every wait on the device watches the mailbox heartbeat; no
 * change for TALLY_MBOX_LOST_US marks the device lost for good: reads
 * return all ones, writes are dropped, `state` says -ENODEV. Nothing blocks
 * for longer than that. A transport that knows better (the device process's
 * connection closed) says so through tally_posted_watch(): then the loss is
 * seen as soon as the heartbeat has stood still for a few heartbeats.
 *
 * Threads: write32/read32/state may be called from any thread at once (a
 * write reserves its slot with one atomic add); attach and detach from the
 * control thread only, with no other call in flight.
 */
#ifndef TALLY_HAL_POSTED_H
#define TALLY_HAL_POSTED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <tally/tally_io.h>
#include <tally/tally_mbox.h>
#include <tally/tally_regs.h>

struct tally_posted {
	struct tally_mbox *mb;		/* inside the BAR */
	volatile uint8_t *bar;
	size_t bar_len;
	bool joined;			/* posting into another driver's session */
	int lost;			/* atomic: the device stopped answering */
	uint64_t hb_seen;		/* atomic: last heartbeat state() saw */
	uint64_t hb_time_ns;		/* atomic: when it changed */
	/* atomic: a value `cons` had (never more than it has now): a post
	 * with room by this one does not read `cons`, a line the device
	 * writes at every applied write */
	uint64_t cons_seen;
	/* atomic: writes this process published this session (the highest
	 * n + 1): a doorbell may take the doorbell page once cons has it */
	uint64_t published;
	volatile uint8_t *db;		/* the doorbell page (CAPS.DB_PAGE), or NULL */
	/* atomic: the queues (Rx q bit q, Tx q bit TALLY_MAX_QUEUES + q)
	 * this process rang through the page */
	uint64_t db_used;
	/* per queue, 64 bytes each, so that two lcores ringing two queues
	 * do not share a line (the struct may be malloc()ed: padded, not
	 * aligned): the value this process stored last, and the last one a
	 * read saw taken (atomics) */
	struct {
		uint32_t val;
		uint32_t flushed;
		uint8_t pad[56];
	} dbq[2 * TALLY_MAX_QUEUES];
	/* tally_posted_watch(): true once the device is gone for sure */
	bool (*peer_gone)(void *arg);
	void *peer_arg;
};

/*
 * Start a session on the device behind bar (bar_len bytes, the register file
 * at offset 0) and fill io. -ENODEV no Tally signature, -ENOTSUP the device
 * does not advertise CAPS.POSTED or has no mailbox, -ETIMEDOUT the device
 * does not acknowledge the session (not running).
 */
int tally_posted_attach(struct tally_posted *p, volatile uint8_t *bar,
			size_t bar_len, const char *name, struct tally_io *io);
/*
 * Post into the session another process of the driver runs on the device
 * behind bar (a DPDK secondary process): no reset, no new session. The
 * device need not advertise CAPS.POSTED (an in-process device keeps a
 * mailbox for other processes). -ENODEV no signature or no session.
 */
int tally_posted_join(struct tally_posted *p, volatile uint8_t *bar,
		      size_t bar_len, const char *name, struct tally_io *io);
/* End the session (the device stops applying writes from it); after a join
 * only stop posting. */
void tally_posted_detach(struct tally_posted *p);
/* True once the device was found gone. */
bool tally_posted_lost(const struct tally_posted *p);
/*
 * Also treat the device as lost when gone(arg) is true (e.g. the device
 * process closed its connection). Asked only after the heartbeat stood
 * still for TALLY_POSTED_PEER_NS, from any thread (gone must be thread-safe
 * and must not block); never after tally_posted_detach(). Call after
 * attach, before the io is used.
 */
#define TALLY_POSTED_PEER_NS	2000000	/* two heartbeats */
void tally_posted_watch(struct tally_posted *p, bool (*gone)(void *arg), void *arg);

#endif /* TALLY_HAL_POSTED_H */
