/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Device side of the posted-write mailbox (tally_mbox.h): the device takes
 * register writes from the BAR in order and applies them through the same
 * decoder a trapped store goes through. Queue doorbells may also come
 * through the doorbell page (CAPS.DB_PAGE, tally_regs.h): the device reads
 * the line of every enabled queue at each poll.
 *
 * Only the thread that runs the device calls tally_model_mbox_poll() and
 * tally_model_detach(); it alone writes `session_ack`, `cons`, `heartbeat`
 * and clears entries.
 */
#include <string.h>

#include "tally_model_priv.h"

static struct tally_mbox *
tally_model_mbox(struct tally_model *m)
{
	return (struct tally_mbox *)(void *)(m->bar + TALLY_MBOX_OFF);
}

void
tally_model_mbox_init(struct tally_model *m)
{
	struct tally_mbox *mb = tally_model_mbox(m);

	memset(mb, 0, sizeof(*mb));
	mb->entries_log2 = TALLY_MBOX_LOG2;
	if (!m->cfg.posted) {
		/* in-process (cfg.mbox): the driver that created the device
		 * owns it; other processes join this one session */
		mb->session = 1;
		mb->session_ack = 1;
	}
	/* release: the magic is the last thing a driver checks */
	__atomic_store_n(&mb->magic, TALLY_MBOX_MAGIC, __ATOMIC_RELEASE);
}

static void
tally_model_mbox_clear(struct tally_mbox *mb)
{
	unsigned int i;

	for (i = 0; i < TALLY_MBOX_ENTRIES; i++)
		__atomic_store_n(&mb->entries[i].seq, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&mb->cons, 0, __ATOMIC_RELEASE);
}

/* A new session: drop what was posted before it, reset, acknowledge. */
static void
tally_model_mbox_attach(struct tally_model *m, struct tally_mbox *mb,
			uint64_t session)
{
	tally_model_mbox_clear(mb);
	tally_model_lock(m);
	tally_model_reset(m);
	tally_model_unlock(m);
	/* release: pairs with the driver's acquire load of session_ack; the
	 * reset and the cleared ring are visible before it */
	__atomic_store_n(&mb->session_ack, session, __ATOMIC_RELEASE);
	TALLY_LOG(INFO, "driver session 0x%llx attached",
		  (unsigned long long)session);
}

/*
 * The doorbell page: a line whose value differs from the one last taken is
 * a Q_DOORBELL write, unless it is behind the queue's producer index: the
 * driver stored it, then rang again through the mailbox (something it
 * posted was still pending) before this poll read the line, and the
 * mailbox's later value was applied first. Taking the older one would move
 * the producer back (a BAD_QUEUE fault once the device is past it). A
 * driver stores there only after the device applied all it posted before,
 * so the mailbox needs no look first. The Tx queues
 * rung are served by the step's round robin, not at once in queue order:
 * all lines are read in one poll, and queue 0 first every time would
 * starve the others on a busy wire.
 */
static unsigned int
tally_model_db_poll(struct tally_model *m)
{
	uint32_t en = m->db_en, v, b;
	struct tally_model_queue *q;
	unsigned int n = 0;

	while (en != 0) {
		b = (uint32_t)__builtin_ctz(en);
		en &= en - 1;
		/* bit b is the page's line b */
		q = b < TALLY_MAX_QUEUES ? &m->rxq[b] : &m->txq[b - TALLY_MAX_QUEUES];
		v = __atomic_load_n((const uint32_t *)(const void *)(m->bar + TALLY_DB_LINE(b)),
				    __ATOMIC_ACQUIRE);
		if (v == q->db_seen)
			continue;
		q->db_seen = v;
		tally_model_lock(m);
		/* a queue disabled since the poll began is no longer rung;
		 * free-running indices: "behind" is within half the range */
		if (q->en && (int32_t)(v - q->prod) > 0)
			tally_model_queue_doorbell(m, q, v, false);
		tally_model_unlock(m);
		n++;
	}
	return n;
}

unsigned int
tally_model_mbox_poll(struct tally_model *m)
{
	struct tally_mbox *mb = tally_model_mbox(m);
	struct tally_mbox_entry *e;
	unsigned int n = 0;
	uint64_t session, cons;

	if (!m->cfg.posted)
		return 0;
	/* the device alone writes it: no atomic add, which would wait for
	 * every store before it (completions the driver's CPU holds) */
	__atomic_store_n(&mb->heartbeat,
			 __atomic_load_n(&mb->heartbeat, __ATOMIC_RELAXED) + 1,
			 __ATOMIC_RELAXED);
	/* `session` shares its line with `reserve`, which every post adds
	 * to: read at every poll, the line would leave the driver's cache at
	 * every doorbell, and the driver's atomic add wait for it. Read when
	 * the last poll found nothing posted, and every 64th poll. */
	if (m->mbox_idle || (++m->mbox_polls & 63) == 0) {
		/* acquire: pairs with the driver's release store of session */
		session = __atomic_load_n(&mb->session, __ATOMIC_ACQUIRE);
		if (session != __atomic_load_n(&mb->session_ack, __ATOMIC_RELAXED)) {
			if (session != 0)
				tally_model_mbox_attach(m, mb, session);
			else
				__atomic_store_n(&mb->session_ack, 0, __ATOMIC_RELEASE);
			m->mbox_idle = true;
			return 1;
		}
	}
	if (__atomic_load_n(&mb->session_ack, __ATOMIC_RELAXED) == 0) {
		m->mbox_idle = true;
		return 0;
	}
	cons = __atomic_load_n(&mb->cons, __ATOMIC_RELAXED);
	while (n < TALLY_MBOX_ENTRIES) {
		e = &mb->entries[cons & (TALLY_MBOX_ENTRIES - 1)];
		/* acquire: pairs with the driver's release store of seq after
		 * it filled off and val */
		if (__atomic_load_n(&e->seq, __ATOMIC_ACQUIRE) != cons + 1)
			break;
		tally_model_write32(m, e->off, e->val);
		cons++;
		/* release: the write's effects are visible before cons says so */
		__atomic_store_n(&mb->cons, cons, __ATOMIC_RELEASE);
		n++;
	}
	m->mbox_idle = n == 0;
	if (m->db_en != 0)
		n += tally_model_db_poll(m);
	return n;
}

/* The posted writes of processes that joined the in-process device's
 * session: applied in order, under the lock the caller holds. */
unsigned int
tally_model_mbox_poll_locked(struct tally_model *m)
{
	struct tally_mbox *mb = tally_model_mbox(m);
	struct tally_mbox_entry *e;
	uint64_t cons = __atomic_load_n(&mb->cons, __ATOMIC_RELAXED);
	unsigned int n = 0;

	/* every 64th step: often enough for a joined process's liveness
	 * check (the model steps continuously while one is joined, its
	 * thread runs), rarely enough to cost the data path nothing */
	if ((++m->mbox_polls & 63) == 0)
		__atomic_store_n(&mb->heartbeat,
				 __atomic_load_n(&mb->heartbeat, __ATOMIC_RELAXED) + 1,
				 __ATOMIC_RELAXED);
	/* nothing reserved beyond what was applied: nothing posted */
	if (__atomic_load_n(&mb->reserve, __ATOMIC_RELAXED) == cons)
		return 0;
	while (n < TALLY_MBOX_ENTRIES) {
		e = &mb->entries[cons & (TALLY_MBOX_ENTRIES - 1)];
		/* acquire: pairs with the poster's release store of seq */
		if (__atomic_load_n(&e->seq, __ATOMIC_ACQUIRE) != cons + 1)
			break;
		tally_model_write32_locked(m, e->off, e->val);
		cons++;
		/* release: the write's effects are visible before cons says so */
		__atomic_store_n(&mb->cons, cons, __ATOMIC_RELEASE);
		n++;
	}
	return n;
}

void
tally_model_detach(struct tally_model *m)
{
	struct tally_mbox *mb = tally_model_mbox(m);

	tally_model_lock(m);
	tally_model_reset(m);
	tally_model_unlock(m);
	if (!m->cfg.posted)
		return;
	tally_model_mbox_clear(mb);
	__atomic_store_n(&mb->session, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&mb->session_ack, 0, __ATOMIC_RELEASE);
}
