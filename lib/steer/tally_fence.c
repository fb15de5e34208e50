/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>

#include <tally/tally_regs.h>
#include "tally_plat.h"
#include "tally_fence.h"

void
tally_fence_init(struct tally_fence *f, const struct tally_io *io)
{
	f->io = io;
	pthread_mutex_init(&f->lock, NULL);
	/* Continue from whatever the device completed last (0 after reset). */
	f->requested = io->ops->read32(io->ctx, TALLY_REG_FENCE_DONE);
}

void
tally_fence_fini(struct tally_fence *f)
{
	pthread_mutex_destroy(&f->lock);
}

uint32_t
tally_fence_request(struct tally_fence *f)
{
	uint32_t seq;

	pthread_mutex_lock(&f->lock);
	seq = f->requested + 1;
	/* Everything unpublished before this point must be visible to the
	 * device before it sees the fence. */
	tally_mb();
	f->io->ops->write32(f->io->ctx, TALLY_REG_FENCE, seq);
	/* pairs with the acquire load in tally_fence_ticket() */
	__atomic_store_n(&f->requested, seq, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&f->lock);
	return seq;
}

bool
tally_fence_done(struct tally_fence *f, uint32_t ticket)
{
	uint32_t req = __atomic_load_n(&f->requested, __ATOMIC_ACQUIRE);
	uint32_t done;

	if ((int32_t)(req - ticket) < 0)
		return false;	/* not even requested yet */
	done = f->io->ops->read32(f->io->ctx, TALLY_REG_FENCE_DONE);
	/* all ones: perhaps a device that is gone, which reads nothing any
	 * more - so whatever waited for it may be reused */
	if (done == UINT32_MAX && f->io->ops->state != NULL &&
	    f->io->ops->state(f->io->ctx) != 0)
		return true;
	return (int32_t)(done - ticket) >= 0;
}

int
tally_fence_wait(struct tally_fence *f, uint32_t ticket, uint64_t timeout_us)
{
	uint64_t deadline = tally_time_ns() + timeout_us * 1000;
	uint32_t req = __atomic_load_n(&f->requested, __ATOMIC_ACQUIRE);

	if ((int32_t)(req - ticket) < 0)
		tally_fence_request(f);
	for (;;) {
		if (tally_fence_done(f, ticket))
			return 0;
		if (tally_time_ns() > deadline)
			return -ETIMEDOUT;
		if (f->io->ops->service != NULL)
			f->io->ops->service(f->io->ctx);
	}
}
