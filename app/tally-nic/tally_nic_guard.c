/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The SIGBUS guard: memory a driver shares (MEM) is its file's pages, and
 * the driver may truncate the file while the device still reaches them
 * (by mistake, or to crash the device). An access past the end of a file
 * raises SIGBUS, which would kill the device process. The guard's handler
 * maps anonymous zero memory over the whole range that holds the faulting
 * address (MAP_FIXED), counts the fault and returns: the access runs again
 * and reads zeros (or writes into memory nobody else sees). The device
 * loop notices the count (nic_guard_faults()), logs it and detaches the
 * driver, which unmaps its ranges. A fault anywhere else goes to the
 * handler installed before this one, or takes the default action: the
 * process dies of it. A SIGBUS someone sends is not a fault: default
 * action at once.
 *
 * Why not lib/plat's tally_guard (which guards the BAR's mapping): its
 * table has a few dozen slots, taken under a lock by a linear search; a
 * driver shares up to TALLY_HOSTIF_MAX_MEM ranges, added and cut at every
 * memory event. This table has a slot for each, taken and given back in
 * O(1). The two handlers chain: this one is installed first, at start;
 * tally_guard's, installed when the BAR is guarded, passes on the faults
 * that are not in the BAR.
 *
 * The handler takes no lock and allocates nothing: it reads a fixed table
 * of {start, len} slots. The device thread publishes a slot by storing
 * start, then len with release; retires it by storing len 0 first; the
 * handler loads len with acquire, then start. A slot being changed reads
 * as free or as its new contents, never as a mix. The device model runs
 * on the device thread (inline mode), the one that changes the table, so a
 * fault never meets a change half done anyway.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>

#include "tally_nic.h"

#define NIC_GUARD_SLOTS		TALLY_HOSTIF_MAX_MEM	/* a slot a range */

struct nic_guard_slot {
	uintptr_t start;
	uintptr_t len;		/* 0: free */
};

static struct nic_guard_slot nic_guard[NIC_GUARD_SLOTS];
static unsigned int nic_guard_top;	/* slots ever used are below */
static uint32_t nic_guard_free[NIC_GUARD_SLOTS];	/* retired slots */
static unsigned int nic_guard_nb_free;
static uint64_t nic_guard_count;	/* faults taken (the handler adds) */
static uintptr_t nic_guard_addr;	/* the last one's address */
static struct sigaction nic_guard_old;	/* the handler before this one */

/* Not a fault in a driver's memory: the handler before, or die of it (a
 * fault runs again and meets the default action; a signal someone sent is
 * sent again, and delivered when the handler returns). */
static void
nic_guard_chain(int sig, siginfo_t *si, void *ctx)
{
	struct sigaction dfl;

	if (si->si_code > 0 && (nic_guard_old.sa_flags & SA_SIGINFO) &&
	    nic_guard_old.sa_sigaction != NULL) {
		nic_guard_old.sa_sigaction(sig, si, ctx);
		return;
	}
	if (si->si_code > 0 && !(nic_guard_old.sa_flags & SA_SIGINFO) &&
	    nic_guard_old.sa_handler != SIG_DFL && nic_guard_old.sa_handler != SIG_IGN) {
		nic_guard_old.sa_handler(sig);
		return;
	}
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	sigaction(sig, &dfl, NULL);
	if (si->si_code <= 0)
		raise(sig);
}

static void
nic_guard_on_sigbus(int sig, siginfo_t *si, void *ctx)
{
	uintptr_t a = (uintptr_t)si->si_addr, start, len;
	unsigned int i, top;
	int err = errno;
	void *p;

	top = __atomic_load_n(&nic_guard_top, __ATOMIC_ACQUIRE);
	for (i = 0; si->si_code > 0 && i < top; i++) {
		/* pairs with the release store of len in nic_guard_set() */
		len = __atomic_load_n(&nic_guard[i].len, __ATOMIC_ACQUIRE);
		start = __atomic_load_n(&nic_guard[i].start, __ATOMIC_RELAXED);
		if (len == 0 || a - start >= len)
			continue;
		p = mmap((void *)start, len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
		if (p != (void *)start)
			break;
		__atomic_store_n(&nic_guard_addr, a, __ATOMIC_RELAXED);
		/* pairs with the acquire load in nic_guard_faults() */
		__atomic_fetch_add(&nic_guard_count, 1, __ATOMIC_RELEASE);
		errno = err;
		return;
	}
	nic_guard_chain(sig, si, ctx);
	errno = err;
}

int
nic_guard_install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = nic_guard_on_sigbus;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	return sigaction(SIGBUS, &sa, &nic_guard_old) == 0 ? 0 : -errno;
}

void
nic_guard_set(int slot, void *host, uint64_t len)
{
	struct nic_guard_slot *g;

	if (slot < 0)
		return;
	g = &nic_guard[slot];
	__atomic_store_n(&g->len, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&g->start, (uintptr_t)host, __ATOMIC_RELAXED);
	/* pairs with the acquire load of len in the handler */
	__atomic_store_n(&g->len, (uintptr_t)len, __ATOMIC_RELEASE);
}

int
nic_guard_add(void *host, uint64_t len)
{
	unsigned int slot;

	if (nic_guard_nb_free != 0) {
		slot = nic_guard_free[--nic_guard_nb_free];
	} else if (nic_guard_top < NIC_GUARD_SLOTS) {
		slot = nic_guard_top;
		/* the slot is free (len 0) before the handler may look at it */
		__atomic_store_n(&nic_guard_top, nic_guard_top + 1, __ATOMIC_RELEASE);
	} else {
		return -ENOSPC;
	}
	nic_guard_set((int)slot, host, len);
	return (int)slot;
}

void
nic_guard_del(int slot)
{
	if (slot < 0)
		return;
	__atomic_store_n(&nic_guard[slot].len, 0, __ATOMIC_RELEASE);
	nic_guard_free[nic_guard_nb_free++] = (uint32_t)slot;
}

uint64_t
nic_guard_faults(uintptr_t *addr)
{
	/* pairs with the release add in the handler */
	uint64_t count = __atomic_load_n(&nic_guard_count, __ATOMIC_ACQUIRE);

	if (addr != NULL)
		*addr = __atomic_load_n(&nic_guard_addr, __ATOMIC_RELAXED);
	return count;
}
