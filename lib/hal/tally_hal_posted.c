/* SPDX-License-Identifier: BSD-3-Clause */
/* Posted-write transport over a shared-memory BAR (see tally_hal_posted.h). */
#include <errno.h>
#include <sched.h>
#include <string.h>
#include <unistd.h>

#include <tally/tally_regs.h>

#include "tally_hal_posted.h"
#include "tally_plat.h"

#define POSTED_SPIN		256	/* polls between clock reads */
#define POSTED_YIELD_NS		20000	/* spin this long, then yield */

enum posted_wait_kind {
	POSTED_WAIT_APPLIED,		/* cons >= target */
	POSTED_WAIT_SPACE,		/* target - cons < ENTRIES */
	POSTED_WAIT_ACK,		/* session_ack == target */
	POSTED_WAIT_BEAT,		/* heartbeat >= target */
};

static bool
posted_done(const struct tally_posted *p, enum posted_wait_kind k,
	    uint64_t target)
{
	/* acquire loads: pair with the device's release stores of cons and
	 * session_ack, made after the effects they report */
	switch (k) {
	case POSTED_WAIT_APPLIED:
		return __atomic_load_n(&p->mb->cons, __ATOMIC_ACQUIRE) >= target;
	case POSTED_WAIT_SPACE:
		return target - __atomic_load_n(&p->mb->cons, __ATOMIC_ACQUIRE) <
		       TALLY_MBOX_ENTRIES;
	case POSTED_WAIT_ACK:
		return __atomic_load_n(&p->mb->session_ack, __ATOMIC_ACQUIRE) ==
		       target;
	case POSTED_WAIT_BEAT:
		return (int64_t)(__atomic_load_n(&p->mb->heartbeat, __ATOMIC_ACQUIRE) -
				 target) >= 0;
	}
	return true;
}

enum posted_lost_why {
	POSTED_LOST_HEARTBEAT,		/* the heartbeat stood still */
	POSTED_LOST_PEER,		/* the transport says the device is gone */
	POSTED_LOST_STUCK,		/* heartbeat, but posted work never applied */
};

static void
posted_mark_lost(struct tally_posted *p, enum posted_lost_why why)
{
	if (__atomic_exchange_n(&p->lost, 1, __ATOMIC_ACQ_REL) != 0)
		return;
	switch (why) {
	case POSTED_LOST_PEER:
		TALLY_LOG(ERR, "device stopped answering (its transport is gone): treated as removed");
		break;
	case POSTED_LOST_STUCK:
		TALLY_LOG(ERR, "device stopped applying posted writes (heartbeat, no progress for %u ms): treated as removed",
			  TALLY_MBOX_LOST_US / 1000);
		break;
	case POSTED_LOST_HEARTBEAT:
		TALLY_LOG(ERR, "device stopped answering (no heartbeat for %u ms): treated as removed",
			  TALLY_MBOX_LOST_US / 1000);
		break;
	}
}

/* The heartbeat stood still for idle_ns: is the device lost? (marks it) */
static bool
posted_check_lost(struct tally_posted *p, uint64_t idle_ns)
{
	if (idle_ns > (uint64_t)TALLY_MBOX_LOST_US * 1000) {
		posted_mark_lost(p, POSTED_LOST_HEARTBEAT);
		return true;
	}
	if (p->peer_gone != NULL && idle_ns > TALLY_POSTED_PEER_NS &&
	    p->peer_gone(p->peer_arg)) {
		posted_mark_lost(p, POSTED_LOST_PEER);
		return true;
	}
	return false;
}

/* What the device has done for the wait of kind k: applied writes, the
 * session it serves, or its ticks. */
static uint64_t
posted_progress(const struct tally_posted *p, enum posted_wait_kind k)
{
	if (k == POSTED_WAIT_ACK)
		return __atomic_load_n(&p->mb->session_ack, __ATOMIC_RELAXED);
	if (k == POSTED_WAIT_BEAT)
		return __atomic_load_n(&p->mb->heartbeat, __ATOMIC_RELAXED);
	return __atomic_load_n(&p->mb->cons, __ATOMIC_RELAXED);
}

/*
 * Wait for the device; false (and the device marked lost) when its
 * heartbeat stands still for TALLY_MBOX_LOST_US, or when it keeps beating
 * but does nothing for what is waited on (the applied count or the
 * session it serves does not move) for as long: a healthy device applies
 * a posted write within microseconds, so a device that does not is stuck,
 * or lies (a cons beyond what was posted never satisfies a wait for space).
 */
static bool
posted_wait(struct tally_posted *p, enum posted_wait_kind k, uint64_t target)
{
	uint64_t hb, t0, now, start, prog, t_prog;
	unsigned int i;

	if (posted_done(p, k, target))
		return true;
	hb = __atomic_load_n(&p->mb->heartbeat, __ATOMIC_RELAXED);
	prog = posted_progress(p, k);
	start = t0 = t_prog = tally_time_ns();
	for (;;) {
		for (i = 0; i < POSTED_SPIN; i++) {
			if (posted_done(p, k, target))
				return true;
			tally_cpu_relax();
		}
		if (__atomic_load_n(&p->lost, __ATOMIC_ACQUIRE))
			return false;
		now = tally_time_ns();
		if (__atomic_load_n(&p->mb->heartbeat, __ATOMIC_RELAXED) != hb) {
			hb = __atomic_load_n(&p->mb->heartbeat, __ATOMIC_RELAXED);
			t0 = now;
		} else if (posted_check_lost(p, now - t0)) {
			return false;
		}
		if (posted_progress(p, k) != prog) {
			prog = posted_progress(p, k);
			t_prog = now;
		} else if (now - t_prog > (uint64_t)TALLY_MBOX_LOST_US * 1000) {
			posted_mark_lost(p, POSTED_LOST_STUCK);
			return false;
		}
		if (now - start > POSTED_YIELD_NS)
			sched_yield();
	}
}

/* The queue (Rx q: q, Tx q: TALLY_MAX_QUEUES + q) whose register r (a
 * TALLY_Q_* offset) off is; -1 when off is no such register. */
static inline int
posted_queue_of(uint32_t off, uint32_t r)
{
	if ((off & (TALLY_Q_STRIDE - 1)) != r || off < TALLY_RXQ_BASE ||
	    off >= TALLY_TXQ_BASE + TALLY_MAX_QUEUES * TALLY_Q_STRIDE)
		return -1;
	return (int)((off - TALLY_RXQ_BASE) / TALLY_Q_STRIDE);
}

/* Queue i's line in the doorbell page (TALLY_DB_LINE(i)). */
static inline volatile uint32_t *
posted_db_slot(const struct tally_posted *p, int i)
{
	return (volatile uint32_t *)(uintptr_t)(p->db + TALLY_DB_LINE(i) - TALLY_DB_PAGE_OFF);
}

/* Has the device applied every write this process published? (reads
 * `cons` only when the last look says no) */
static inline bool
posted_all_applied(struct tally_posted *p)
{
	uint64_t n = __atomic_load_n(&p->published, __ATOMIC_RELAXED), c;

	if (n <= __atomic_load_n(&p->cons_seen, __ATOMIC_RELAXED))
		return true;
	/* acquire: pairs with the device's release store of cons */
	c = __atomic_load_n(&p->mb->cons, __ATOMIC_ACQUIRE);
	__atomic_store_n(&p->cons_seen, c, __ATOMIC_RELAXED);
	return n <= c;
}

/* A queue doorbell through the page: the line, then the value this process
 * last stored there (what a read must see taken), then the queue's bit. */
static inline void
posted_db_store(struct tally_posted *p, int i, uint32_t val)
{
	/* release: the descriptors before it are visible first */
	__atomic_store_n(posted_db_slot(p, i), val, __ATOMIC_RELEASE);
	__atomic_store_n(&p->dbq[i].val, val, __ATOMIC_RELAXED);
	if (!(__atomic_load_n(&p->db_used, __ATOMIC_RELAXED) & (1ull << i)))
		__atomic_fetch_or(&p->db_used, 1ull << i, __ATOMIC_RELAXED);
}

/*
 * An enable samples the queue's line as "nothing rung": zero it first, and
 * only once the device applied what this process posted before (a disable
 * of the same queue still pending would see the zero as a doorbell).
 */
static void
posted_db_enable(struct tally_posted *p, int i)
{
	if (!posted_all_applied(p) &&
	    !posted_wait(p, POSTED_WAIT_APPLIED, __atomic_load_n(&p->published, __ATOMIC_RELAXED)))
		return;
	__atomic_store_n(posted_db_slot(p, i), 0, __ATOMIC_RELAXED);
	__atomic_store_n(&p->dbq[i].val, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&p->dbq[i].flushed, 0, __ATOMIC_RELAXED);
}

static void
posted_write32(void *ctx, uint32_t off, uint32_t val)
{
	struct tally_posted *p = ctx;
	struct tally_mbox_entry *e;
	uint64_t n, cur;
	int i;

	if (__atomic_load_n(&p->lost, __ATOMIC_ACQUIRE))
		return;
	if (p->db != NULL) {
		/* a queue doorbell: one store to its line, with nothing of
		 * ours still posted ahead of it (it must not overtake an
		 * enable, a completion-counter attach) */
		i = posted_queue_of(off, TALLY_Q_DOORBELL);
		if (i >= 0 && posted_all_applied(p)) {
			posted_db_store(p, i, val);
			return;
		}
		i = posted_queue_of(off, TALLY_Q_CTRL);
		if (i >= 0 && (val & TALLY_Q_CTRL_EN))
			posted_db_enable(p, i);
	}
	n = __atomic_fetch_add(&p->mb->reserve, 1, __ATOMIC_RELAXED);
	/* room for n as of an earlier look at cons, else wait for it (cons
	 * only grows, and never passes n while entry n is unpublished) */
	if (n - __atomic_load_n(&p->cons_seen, __ATOMIC_RELAXED) >= TALLY_MBOX_ENTRIES) {
		if (!posted_wait(p, POSTED_WAIT_SPACE, n))
			return;
		__atomic_store_n(&p->cons_seen, __atomic_load_n(&p->mb->cons, __ATOMIC_ACQUIRE),
				 __ATOMIC_RELAXED);
	}
	e = &p->mb->entries[n & (TALLY_MBOX_ENTRIES - 1)];
	__atomic_store_n(&e->off, off, __ATOMIC_RELAXED);
	__atomic_store_n(&e->val, val, __ATOMIC_RELAXED);
	/* release: pairs with the device's acquire load of seq; off and val
	 * (and every store before this write, e.g. descriptors) come first */
	__atomic_store_n(&e->seq, n + 1, __ATOMIC_RELEASE);
	cur = __atomic_load_n(&p->published, __ATOMIC_RELAXED);
	while (cur < n + 1 &&
	       !__atomic_compare_exchange_n(&p->published, &cur, n + 1, true,
					    __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
}

/*
 * Reads flush the doorbell page too: every value this process stored there
 * and no read has seen taken yet must be taken before the read. The device
 * reads the page once per poll, after the heartbeat's tick: two ticks after
 * the values were visible, it has taken them. (A value another thread's
 * read saw taken counts: it was visible before that read looked.)
 */
static bool
posted_db_flush(struct tally_posted *p)
{
	uint32_t v[2 * TALLY_MAX_QUEUES];
	uint64_t used, pend = 0, hb;
	int i;

	/* this thread's stores to the page are visible before the loads */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	used = __atomic_load_n(&p->db_used, __ATOMIC_RELAXED);
	while (used != 0) {
		i = __builtin_ctzll(used);
		used &= used - 1;
		v[i] = __atomic_load_n(&p->dbq[i].val, __ATOMIC_RELAXED);
		if (v[i] != __atomic_load_n(&p->dbq[i].flushed, __ATOMIC_RELAXED))
			pend |= 1ull << i;
	}
	if (pend == 0)
		return true;
	hb = __atomic_load_n(&p->mb->heartbeat, __ATOMIC_ACQUIRE);
	if (!posted_wait(p, POSTED_WAIT_BEAT, hb + 2))
		return false;
	while (pend != 0) {
		i = __builtin_ctzll(pend);
		pend &= pend - 1;
		__atomic_store_n(&p->dbq[i].flushed, v[i], __ATOMIC_RELAXED);
	}
	return true;
}

static uint32_t
posted_read32(void *ctx, uint32_t off)
{
	struct tally_posted *p = ctx;

	if ((off & 3) != 0 || off >= p->bar_len)
		return 0;
	if (__atomic_load_n(&p->lost, __ATOMIC_ACQUIRE) ||
	    !posted_wait(p, POSTED_WAIT_APPLIED,
			 __atomic_load_n(&p->mb->reserve, __ATOMIC_RELAXED)) ||
	    (p->db != NULL && !posted_db_flush(p)))
		return UINT32_MAX;
	return __atomic_load_n((const uint32_t *)(uintptr_t)(p->bar + off),
			       __ATOMIC_ACQUIRE);
}

/* Cheap liveness check for the control path (link status, the PMD's loss
 * watch): the heartbeat must have moved within TALLY_MBOX_LOST_US of the
 * previous check (or the transport's own word, tally_posted_watch()). */
static int
posted_state(void *ctx)
{
	struct tally_posted *p = ctx;
	uint64_t hb, now;

	if (__atomic_load_n(&p->lost, __ATOMIC_ACQUIRE))
		return -ENODEV;
	hb = __atomic_load_n(&p->mb->heartbeat, __ATOMIC_RELAXED);
	now = tally_time_ns();
	if (hb != __atomic_load_n(&p->hb_seen, __ATOMIC_RELAXED)) {
		__atomic_store_n(&p->hb_seen, hb, __ATOMIC_RELAXED);
		__atomic_store_n(&p->hb_time_ns, now, __ATOMIC_RELAXED);
		return 0;
	}
	return posted_check_lost(p, now - __atomic_load_n(&p->hb_time_ns,
							 __ATOMIC_RELAXED)) ? -ENODEV : 0;
}

static const struct tally_io_ops tally_posted_ops = {
	.name = "posted",
	.read32 = posted_read32,
	.write32 = posted_write32,
	.service = NULL,
	.state = posted_state,
};

/* The BAR's mailbox, checked; -errno as tally_posted_attach() says. */
static int
posted_open(struct tally_posted *p, volatile uint8_t *bar, size_t bar_len,
	    const char *name, bool need_caps)
{
	const volatile uint32_t *r = (const volatile uint32_t *)bar;

	memset(p, 0, sizeof(*p));
	if (bar == NULL || bar_len < TALLY_MBOX_OFF + TALLY_MBOX_LEN)
		return -EINVAL;
	if (r[TALLY_REG_SIG / 4] != TALLY_SIGNATURE)
		return -ENODEV;
	if (need_caps && !(r[TALLY_REG_CAPS / 4] & TALLY_CAP_POSTED))
		return -ENOTSUP;
	p->bar = bar;
	p->bar_len = bar_len;
	p->mb = (struct tally_mbox *)(uintptr_t)(bar + TALLY_MBOX_OFF);
	if (__atomic_load_n(&p->mb->magic, __ATOMIC_ACQUIRE) != TALLY_MBOX_MAGIC ||
	    p->mb->entries_log2 != TALLY_MBOX_LOG2) {
		TALLY_LOG(ERR, "%s: no mailbox in the BAR", name);
		p->mb = NULL;
		return -ENOTSUP;
	}
	if ((r[TALLY_REG_CAPS / 4] & (TALLY_CAP_POSTED | TALLY_CAP_DB_PAGE)) ==
	    (TALLY_CAP_POSTED | TALLY_CAP_DB_PAGE) &&
	    bar_len >= TALLY_DB_PAGE_OFF + TALLY_DB_PAGE_LEN)
		p->db = bar + TALLY_DB_PAGE_OFF;
	return 0;
}

static void
posted_fill_io(struct tally_posted *p, struct tally_io *io)
{
	p->hb_seen = __atomic_load_n(&p->mb->heartbeat, __ATOMIC_RELAXED);
	p->hb_time_ns = tally_time_ns();
	memset(io, 0, sizeof(*io));
	io->ops = &tally_posted_ops;
	io->ctx = p;
	io->bar = p->bar;
	io->bar_len = p->bar_len;
}

int
tally_posted_attach(struct tally_posted *p, volatile uint8_t *bar,
		    size_t bar_len, const char *name, struct tally_io *io)
{
	uint64_t session;
	int rc = posted_open(p, bar, bar_len, name, true);

	if (rc != 0)
		return rc;
	/* a session id no earlier driver used: time and pid */
	session = (tally_time_ns() << 16) ^ (uint64_t)getpid();
	if (session == 0 ||
	    session == __atomic_load_n(&p->mb->session_ack, __ATOMIC_ACQUIRE))
		session++;
	__atomic_store_n(&p->mb->reserve, 0, __ATOMIC_RELAXED);
	/* release: pairs with the device's acquire load of session; the
	 * zeroed reservation counter comes first */
	__atomic_store_n(&p->mb->session, session, __ATOMIC_RELEASE);
	if (!posted_wait(p, POSTED_WAIT_ACK, session)) {
		TALLY_LOG(ERR, "%s: the device did not take the session (not running?)",
			  name);
		return -ETIMEDOUT;
	}
	posted_fill_io(p, io);
	return 0;
}

int
tally_posted_join(struct tally_posted *p, volatile uint8_t *bar,
		  size_t bar_len, const char *name, struct tally_io *io)
{
	uint64_t session;
	int rc = posted_open(p, bar, bar_len, name, false);

	if (rc != 0)
		return rc;
	/* acquire: pairs with the device's release store of session_ack */
	session = __atomic_load_n(&p->mb->session_ack, __ATOMIC_ACQUIRE);
	if (session == 0 || session != __atomic_load_n(&p->mb->session, __ATOMIC_RELAXED)) {
		TALLY_LOG(ERR, "%s: no driver session to join", name);
		p->mb = NULL;
		p->db = NULL;
		return -ENODEV;
	}
	p->joined = true;
	posted_fill_io(p, io);
	return 0;
}

void
tally_posted_detach(struct tally_posted *p)
{
	if (p->mb == NULL)
		return;
	if (!__atomic_load_n(&p->lost, __ATOMIC_ACQUIRE))
		(void)posted_wait(p, POSTED_WAIT_APPLIED,
				  __atomic_load_n(&p->mb->reserve, __ATOMIC_RELAXED));
	if (!p->joined)
		__atomic_store_n(&p->mb->session, 0, __ATOMIC_RELEASE);
	p->mb = NULL;
	p->db = NULL;
	p->peer_gone = NULL;
}

void
tally_posted_watch(struct tally_posted *p, bool (*gone)(void *arg), void *arg)
{
	p->peer_arg = arg;
	p->peer_gone = gone;
}

bool
tally_posted_lost(const struct tally_posted *p)
{
	return __atomic_load_n(&p->lost, __ATOMIC_ACQUIRE) != 0;
}
