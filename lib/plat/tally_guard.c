/* SPDX-License-Identifier: BSD-3-Clause */
/* Guarded shared mappings (see tally_guard.h). */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#include "tally_guard.h"

struct tally_guard_slot {
	uintptr_t start;		/* atomic: 0 = free; published last */
	size_t len;
	int *lost;
};

static struct tally_guard_slot guard_slots[TALLY_GUARD_MAX];
static struct sigaction guard_old;	/* the handler before ours */
static pthread_mutex_t guard_lock = PTHREAD_MUTEX_INITIALIZER;
static int guard_installed;
static unsigned long guard_lost;	/* atomic */

static void
guard_chain(int sig, siginfo_t *si, void *uc)
{
	if ((guard_old.sa_flags & SA_SIGINFO) && guard_old.sa_sigaction != NULL) {
		guard_old.sa_sigaction(sig, si, uc);
		return;
	}
	if (guard_old.sa_handler != SIG_DFL && guard_old.sa_handler != SIG_IGN) {
		guard_old.sa_handler(sig);
		return;
	}
	/* default action: restore it and return; the access faults again
	 * and the process ends as it would have without us */
	signal(SIGBUS, SIG_DFL);
}

static void
guard_handler(int sig, siginfo_t *si, void *uc)
{
	uintptr_t a = (uintptr_t)si->si_addr, start;
	unsigned int i;

	for (i = 0; i < TALLY_GUARD_MAX; i++) {
		struct tally_guard_slot *s = &guard_slots[i];

		start = __atomic_load_n(&s->start, __ATOMIC_ACQUIRE);
		if (start == 0 || a < start || a - start >= s->len)
			continue;
		/* zero pages where the file's were: the access is retried */
		if (mmap((void *)start, s->len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED)
			break;
		if (s->lost != NULL)
			__atomic_store_n(s->lost, 1, __ATOMIC_RELEASE);
		__atomic_fetch_add(&guard_lost, 1, __ATOMIC_RELAXED);
		return;
	}
	guard_chain(sig, si, uc);
}

static int
guard_install(void)
{
	struct sigaction sa;

	if (guard_installed)
		return 0;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = guard_handler;
	sa.sa_flags = SA_SIGINFO | SA_NODEFER;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGBUS, &sa, &guard_old) != 0)
		return -errno;
	guard_installed = 1;
	return 0;
}

int
tally_guard_add(void *addr, size_t len, int *lost)
{
	unsigned int i;
	int rc;

	if (addr == NULL || len == 0)
		return -EINVAL;
	pthread_mutex_lock(&guard_lock);
	rc = guard_install();
	if (rc == 0) {
		rc = -ENOSPC;
		for (i = 0; i < TALLY_GUARD_MAX; i++) {
			struct tally_guard_slot *s = &guard_slots[i];

			if (__atomic_load_n(&s->start, __ATOMIC_RELAXED) != 0)
				continue;
			s->len = len;
			s->lost = lost;
			__atomic_store_n(&s->start, (uintptr_t)addr, __ATOMIC_RELEASE);
			rc = 0;
			break;
		}
	}
	pthread_mutex_unlock(&guard_lock);
	return rc;
}

void
tally_guard_del(void *addr)
{
	unsigned int i;

	pthread_mutex_lock(&guard_lock);
	for (i = 0; i < TALLY_GUARD_MAX; i++)
		if (__atomic_load_n(&guard_slots[i].start, __ATOMIC_RELAXED) ==
		    (uintptr_t)addr && addr != NULL)
			__atomic_store_n(&guard_slots[i].start, 0, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&guard_lock);
}

unsigned long
tally_guard_lost_count(void)
{
	return __atomic_load_n(&guard_lost, __ATOMIC_RELAXED);
}
