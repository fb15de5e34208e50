/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Live-object registry: every verbs object this library created and has not
 * destroyed yet, keyed by the handle the application holds.
 *
 * Destroy calls look the handle up first, so a second destroy, or a handle
 * that never came from us, gets EINVAL instead of a free of freed memory.
 * The registry is intrusive (each object embeds its node), so adding never
 * allocates and never fails; the bucket array grows opportunistically (if
 * growing fails, chains just get longer).
 *
 * Thread-safety: one leaf mutex; callers may hold tally_verbs_lock.
 */
#include <pthread.h>
#include <stdlib.h>

#include "tally_verbs_priv.h"

#define LIVE_MIN_BUCKETS	256

static pthread_mutex_t live_lock = PTHREAD_MUTEX_INITIALIZER;
static struct tally_verbs_live *live_static[LIVE_MIN_BUCKETS];
static struct tally_verbs_live **live_bucket = live_static;
static size_t live_nb = LIVE_MIN_BUCKETS;	/* power of two */
static size_t live_count;

static size_t
live_hash(const void *obj, size_t nb)
{
	uint64_t h = (uint64_t)(uintptr_t)obj;

	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	return (size_t)h & (nb - 1);
}

/* Double the buckets; without memory, chains just get longer. */
static void
live_grow(void)
{
	size_t nb = live_nb * 2, i;
	struct tally_verbs_live **b = calloc(nb, sizeof(*b));

	if (b == NULL)
		return;
	for (i = 0; i < live_nb; i++) {
		struct tally_verbs_live *n = live_bucket[i], *next;

		for (; n != NULL; n = next) {
			size_t h = live_hash(n->obj, nb);

			next = n->next;
			n->next = b[h];
			b[h] = n;
		}
	}
	if (live_bucket != live_static)
		free(live_bucket);
	live_bucket = b;
	live_nb = nb;
}

void
tally_verbs_live_add(struct tally_verbs_live *node, const void *obj)
{
	size_t h;

	pthread_mutex_lock(&live_lock);
	if (live_count >= live_nb * 2)
		live_grow();
	h = live_hash(obj, live_nb);
	node->obj = obj;
	node->next = live_bucket[h];
	live_bucket[h] = node;
	live_count++;
	pthread_mutex_unlock(&live_lock);
}

static struct tally_verbs_live **
live_find(const void *obj)
{
	struct tally_verbs_live **p = &live_bucket[live_hash(obj, live_nb)];

	for (; *p != NULL; p = &(*p)->next)
		if ((*p)->obj == obj)
			return p;
	return NULL;
}

bool
tally_verbs_live_has(const void *obj)
{
	bool found;

	if (obj == NULL)
		return false;
	pthread_mutex_lock(&live_lock);
	found = live_find(obj) != NULL;
	pthread_mutex_unlock(&live_lock);
	return found;
}

bool
tally_verbs_live_del(const void *obj)
{
	struct tally_verbs_live **p;

	if (obj == NULL)
		return false;
	pthread_mutex_lock(&live_lock);
	p = live_find(obj);
	if (p != NULL) {
		*p = (*p)->next;
		live_count--;
	}
	pthread_mutex_unlock(&live_lock);
	return p != NULL;
}
