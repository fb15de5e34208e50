/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Matchers of a port's rte_flow engine: one per (group, priority, mask),
 * shared by the rules of that shape (and by raw-key rules and template
 * tables), on lib/steer matchers. The first one is pre-sized for the whole
 * counter bank, and parked rather than freed when its last rule goes.
 * Every call holds the engine lock. Also: lib/steer errors as rte_flow errors.
 */
#include <string.h>
#include <sys/queue.h>

#include <rte_flow_driver.h>
#include <rte_malloc.h>

#include "tally_dma.h"
#include "tally_pmd.h"
#include "tally_flow.h"
#include "tally_flow_priv.h"
#include "tally_logs.h"

int
tally_flow_steer_error(int ret, struct rte_flow_error *error, const void *cause,
	    enum rte_flow_error_type type)
{
	const char *msg;

	switch (ret) {
	case -EEXIST:
		msg = "a rule with the same match exists in this group and priority";
		break;
	case -ELOOP:
		msg = "jump would create a loop between groups";
		type = RTE_FLOW_ERROR_TYPE_ACTION;
		break;
	case -ENOSPC:
		msg = "steering resources exhausted (rules, matchers or RSS sets)";
		break;
	case -EAGAIN:
		msg = "counters are all waiting for reuse; retry";
		break;
	case -ENOMEM:
		msg = "out of memory for steering tables";
		break;
	default:
		msg = "steering engine refused the rule";
		break;
	}
	return rte_flow_error_set(error, -ret, type, cause, msg);
}

/* Does a hash array sized for the counter bank, for keys of nwords words,
 * fit in a quarter of the DPDK memory free (matcher_presize())? Free is
 * what the heap has free plus, for the port's first pre-sized array, what
 * EAL can still add to it with huge pages: the heap grows on demand, so at
 * probe it holds little. Later ones take the heap as it is: EAL gives the
 * pages of a freed array back, and a port whose matchers come and go one
 * rule at a time must not make EAL fetch and clear that much every time.
 * The same holds for a window of hugetlbfs pages (tally_flow_mem.c): a
 * freed block's pages go back to the pool, and a port whose rules change
 * shape again and again (verbs-fuzz: thousands of shapes) would populate
 * and clear a bank-sized array for each one. */
bool
tally_flow_presize_fits(struct tally_flow_ctx *fc, uint32_t nwords)
{
	struct rte_malloc_socket_stats st;
	uint64_t need = tally_steer_reserve_bytes(fc->cnt->num, nwords);
	int socket = fc->dev->data->numa_node;

	socket = socket < 0 ? 0 : socket;
	return need != 0 && rte_malloc_get_socket_stats(socket, &st) == 0 &&
	       need <= (st.heap_freesz_bytes +
			(fc->presized_once ? 0 : tally_dma_growable(socket))) / 4;
}

/*
 * The port's first matcher of the synchronous API is sized for as many rules
 * as the counter bank has counters (a port that counts its rules cannot hold
 * more), so that filling it never migrates its hash array; later matchers
 * start small and grow. Only when the array fits in a quarter of the free
 * DPDK heap: a small heap keeps the growing matcher instead. When the
 * pre-sized matcher goes (tally_flow_matcher_gone() parks it instead, until
 * a rule of a new shape comes or the rules are flushed), the next new
 * matcher is the first again.
 */
static void
matcher_presize(struct tally_flow_ctx *fc, struct tally_steer_matcher *m)
{
	if (fc->presize_tried)
		return;
	fc->presize_tried = true;
	if (!tally_flow_presize_fits(fc, tally_steer_matcher_nwords(m)))
		return;
	if (tally_steer_matcher_reserve_locked(m, fc->cnt->num) != 0) {
		TALLY_FLOW_LOG(DEBUG, "no pre-sized array for %u rules", fc->cnt->num);
	} else {
		fc->presized = tally_steer_matcher_udata(m);
		fc->presized_once = true;
	}
}

/* The create paths' shortcuts to fm go: it leaves use. */
static void
matcher_forget(struct tally_flow_ctx *fc, const struct tally_flow_matcher *fm)
{
	if (fc->last == fm)
		fc->last = NULL;
	if (fc->shape.fm == fm)
		fc->shape.fm = NULL;	/* its builder is not used again */
}

static void
matcher_release(struct tally_flow_ctx *fc, struct tally_flow_matcher *fm)
{
	matcher_forget(fc, fm);
	if (fc->presized == fm) {
		fc->presized = NULL;
		fc->presize_tried = false;
	}
	TAILQ_REMOVE(&fc->matchers, fm, next);
	if (tally_steer_matcher_destroy_locked(fm->m) != 0)
		TALLY_FLOW_LOG(ERR, "matcher of group %u still busy", fm->group);
	rte_free(fm);
}

struct tally_flow_matcher *
tally_flow_matcher_get(struct tally_flow_ctx *fc, uint32_t group, uint32_t priority,
		       const struct tally_match_key *mask, struct rte_flow_error *error,
		       int *ret)
{
	struct tally_flow_matcher *fm = fc->last;
	struct tally_steer_table *tbl;

	if (fm == NULL || fm->group != group || fm->priority != priority ||
	    memcmp(&fm->mask, mask, sizeof(*mask)) != 0) {
		TAILQ_FOREACH(fm, &fc->matchers, next)
			if (fm->group == group && fm->priority == priority &&
			    memcmp(&fm->mask, mask, sizeof(*mask)) == 0)
				break;
	}
	if (fm != NULL) {
		if (fm->refs == 0) {	/* parked (tally_flow_matcher_gone()) */
			*ret = tally_steer_matcher_unpark_locked(fm->m);
			if (*ret)
				goto fail;
		}
		fm->refs++;
		fc->last = fm;
		return fm;
	}
	/* a new shape: the parked pre-sized matcher goes, and the array
	 * sized for the bank goes to the new one */
	if (fc->presized != NULL && fc->presized->refs == 0)
		matcher_release(fc, fc->presized);
	tbl = tally_steer_table_get(fc->steer, group);
	if (tbl == NULL) {
		*ret = tally_steer_table_create_locked(fc->steer, group, &tbl);
		if (*ret)
			goto fail;
	}
	fm = rte_zmalloc("tally_matcher", sizeof(*fm), 0);
	if (fm == NULL) {
		*ret = -ENOMEM;
		goto fail;
	}
	*ret = tally_steer_matcher_create_locked(tbl, priority, mask, &fm->m);
	if (*ret) {
		rte_free(fm);
		goto fail;
	}
	tally_steer_matcher_set_udata(fm->m, fm);
	matcher_presize(fc, fm->m);
	fm->group = group;
	fm->priority = priority;
	fm->mask = *mask;
	fm->refs = 1;
	TAILQ_INSERT_TAIL(&fc->matchers, fm, next);
	fc->last = fm;
	return fm;
fail:
	*ret = tally_flow_steer_error(*ret, error, NULL, RTE_FLOW_ERROR_TYPE_ITEM);
	return NULL;
}

/*
 * The last reference to a matcher went. The pre-sized one (matcher_presize())
 * is parked: out of its table's list, with refs 0 and its array kept for
 * the next rule of its shape (tally_flow_matcher_get()), because freeing an array
 * sized for the whole bank clears hundreds of MB, and a port whose rules
 * come and go around none would pay that, and the allocation, each time.
 * It goes when a rule of a new shape needs a matcher, at flush and with the
 * port. Any other matcher goes at once.
 */
void
tally_flow_matcher_gone(struct tally_flow_ctx *fc, struct tally_flow_matcher *fm)
{
	if (fc->presized == fm && tally_steer_matcher_park_locked(fm->m) == 0) {
		matcher_forget(fc, fm);
		return;
	}
	matcher_release(fc, fm);
}

void
tally_flow_matcher_count(const struct tally_flow_ctx *fc, uint32_t *in_use, uint32_t *idle)
{
	const struct tally_flow_matcher *fm;

	*in_use = *idle = 0;
	TAILQ_FOREACH(fm, &fc->matchers, next) {
		if (fm->refs > 0)
			(*in_use)++;
		else
			(*idle)++;
	}
}

/* The parked matcher, if any, goes (flush). */
void
tally_flow_matcher_idle_drop(struct tally_flow_ctx *fc)
{
	if (fc->presized != NULL && fc->presized->refs == 0)
		matcher_release(fc, fc->presized);
}

struct tally_flow_matcher *
tally_flow_matcher_acquire(struct tally_adapter *ad, uint32_t group,
			   uint32_t priority, const struct tally_match_key *mask,
			   int *ret)
{
	struct tally_flow_matcher *fm;

	*ret = 0;
	fm = tally_flow_matcher_get(ad->flow, group, priority, mask, NULL, ret);
	if (fm == NULL && *ret > 0)	/* a positive errno, as rte_flow has it */
		*ret = -*ret;
	if (fm == NULL && *ret == 0)
		*ret = -ENOMEM;
	return fm;
}

void
tally_flow_matcher_release(struct tally_adapter *ad, struct tally_flow_matcher *fm)
{
	tally_flow_matcher_put(ad->flow, fm);
}
