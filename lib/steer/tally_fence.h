/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Device fence sequencer (TALLY_REG_FENCE / TALLY_REG_FENCE_DONE).
 *
 * One per device, shared by every user that defers reuse of memory or
 * counter indices the device may still hold (steering ctx, counter pool).
 * The device only remembers the last sequence written, so all fence
 * requests of a device must go through the same sequencer: otherwise two
 * users' sequences interleave and "done" comparisons become meaningless.
 *
 * Usage: take a ticket with tally_fence_ticket() right after unpublishing
 * something; it names the first fence that will be requested after that
 * point. The thing may be reused once tally_fence_done(ticket) is true.
 * tally_fence_request() writes the next sequence to the device.
 *
 * Sequences are 32-bit and compared with wrap-around (serial arithmetic).
 * Thread-safety: every function may be called from any thread.
 */
#ifndef TALLY_FENCE_H
#define TALLY_FENCE_H

#include <stdbool.h>
#include <stdint.h>
#include <pthread.h>

#include <tally/tally_io.h>

struct tally_fence {
	const struct tally_io *io;
	pthread_mutex_t lock;		/* orders seq increments with FENCE writes */
	uint32_t requested;		/* last sequence written to FENCE */
};

void tally_fence_init(struct tally_fence *f, const struct tally_io *io);
void tally_fence_fini(struct tally_fence *f);

/* Ticket for something unpublished now: the next fence to be requested. */
static inline uint32_t
tally_fence_ticket(struct tally_fence *f)
{
	return __atomic_load_n(&f->requested, __ATOMIC_ACQUIRE) + 1;
}

/* Write a new fence sequence to the device; returns it. */
uint32_t tally_fence_request(struct tally_fence *f);

/* True once FENCE_DONE has reached ticket (one register read), or once the
 * device is gone (io->ops->state): a device that reads no memory any more
 * is past every fence. */
bool tally_fence_done(struct tally_fence *f, uint32_t ticket);

/* Request a fence if ticket has not been requested yet, then poll until done
 * (calling io->ops->service when present) for at most timeout_us.
 * Returns 0 (at once when the device is gone) or -ETIMEDOUT. */
int tally_fence_wait(struct tally_fence *f, uint32_t ticket, uint64_t timeout_us);

#endif /* TALLY_FENCE_H */
