/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The AGE action: a rule ages when its hit count has not changed for its
 * timeout.
 *
 * Every aged rule counts into a counter of its own (the rule's COUNT, or
 * one taken for the purpose), so its hits are exactly its own. A scan
 * thread per port (started with the first AGE rule) reads those counters
 * every TALLY_AGE_SCAN_MS: a changed count restarts the clock, a count
 * unchanged for the timeout moves the rule to the aged list, once. An aged
 * rule stays aged until it is destroyed, traffic or not.
 *
 * RTE_ETH_EVENT_FLOW_AGED is raised when a scan finds newly aged rules and
 * none was raised since the application last called rte_flow_get_aged_flows()
 * (or the queue variant), as the API describes.
 *
 * Locking: objects and lists are changed under the engine lock (the scan
 * takes it too); the event callback runs with no lock held.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ethdev_driver.h>
#include <rte_malloc.h>

#include "tally_pmd.h"
#include "tally_flow_priv.h"
#include "tally_logs.h"

#define TALLY_AGE_SCAN_MS	100

struct tally_flow_age_obj {
	TAILQ_ENTRY(tally_flow_age_obj) next;	/* active or aged list */
	struct rte_flow *flow;
	void *context;			/* the AGE context, or the flow */
	uint64_t last_hits;
	uint64_t last_change_ns;
	uint32_t timeout_s;
	uint16_t queue;			/* flow queue, or TALLY_FLOW_AGE_SYNC */
	bool aged;
};

struct tally_flow_age {
	TAILQ_HEAD(, tally_flow_age_obj) active;
	TAILQ_HEAD(, tally_flow_age_obj) aged;
	uint32_t nb_aged;
	struct tally_flow_age_obj **by_counter;	/* bank index -> object */
	uint32_t nb_counters;
	pthread_t thread;
	bool thread_started;
	int stop;				/* atomic */
	bool event_armed;
};

static uint64_t
age_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Bring one object up to date; true when it aged just now. Lock held. */
static bool
age_check(struct tally_flow_ctx *fc, struct tally_flow_age_obj *o, uint64_t now)
{
	uint64_t pkts, bytes;

	if (o->aged || tally_cnt_read(fc->cnt, o->flow->counter, &pkts, &bytes) != 0)
		return false;
	if (pkts != o->last_hits) {
		o->last_hits = pkts;
		o->last_change_ns = now;
		return false;
	}
	if (now - o->last_change_ns < (uint64_t)o->timeout_s * 1000000000ull)
		return false;
	o->aged = true;
	TAILQ_REMOVE(&fc->age->active, o, next);
	TAILQ_INSERT_TAIL(&fc->age->aged, o, next);
	fc->age->nb_aged++;
	return true;
}

static void *
age_thread(void *arg)
{
	struct tally_flow_ctx *fc = arg;
	struct tally_flow_age *ag = fc->age;
	struct timespec nap = { 0, TALLY_AGE_SCAN_MS * 1000000L };
	struct tally_flow_age_obj *o, *tmp;
	unsigned int fresh;
	bool raise;
	uint64_t now;

	while (!__atomic_load_n(&ag->stop, __ATOMIC_ACQUIRE)) {
		nanosleep(&nap, NULL);
		/* a device that is gone counts nothing: its rules would all
		 * look idle; nothing ages after the loss */
		if (tally_port_gone(fc->dev))
			continue;
		fresh = 0;
		tally_lock(&fc->lock);
		now = age_now_ns();
		for (o = TAILQ_FIRST(&ag->active); o != NULL; o = tmp) {
			tmp = TAILQ_NEXT(o, next);
			fresh += age_check(fc, o, now);
		}
		raise = fresh != 0 && ag->event_armed;
		if (raise)
			ag->event_armed = false;
		tally_unlock(&fc->lock);
		if (raise && !__atomic_load_n(&ag->stop, __ATOMIC_ACQUIRE))
			rte_eth_dev_callback_process(fc->dev, RTE_ETH_EVENT_FLOW_AGED, NULL);
	}
	return NULL;
}

static int
age_init(struct tally_flow_ctx *fc)
{
	struct tally_adapter *ad = tally_adapter(fc->dev);
	struct tally_flow_age *ag;
	int rc;

	ag = rte_zmalloc("tally_age", sizeof(*ag), 0);
	if (ag == NULL)
		return -ENOMEM;
	TAILQ_INIT(&ag->active);
	TAILQ_INIT(&ag->aged);
	ag->nb_counters = ad->hal.cnt_num;
	ag->by_counter = calloc(ag->nb_counters, sizeof(*ag->by_counter));
	if (ag->by_counter == NULL) {
		rte_free(ag);
		return -ENOMEM;
	}
	ag->event_armed = true;
	fc->age = ag;
	rc = pthread_create(&ag->thread, NULL, age_thread, fc);
	if (rc != 0) {
		free(ag->by_counter);
		rte_free(ag);
		fc->age = NULL;
		return -rc;
	}
	pthread_setname_np(ag->thread, "tally-age");
	ag->thread_started = true;
	return 0;
}

int
tally_flow_age_attach(struct rte_eth_dev *dev, struct tally_flow_ctx *fc,
		      struct rte_flow *flow, const struct rte_flow_action_age *conf,
		      uint16_t queue)
{
	struct tally_flow_age_obj *o;
	uint64_t bytes;
	int rc;

	RTE_SET_USED(dev);
	if (fc->age == NULL) {
		rc = age_init(fc);
		if (rc != 0)
			return rc;
	}
	if (flow->counter >= fc->age->nb_counters)
		return -EINVAL;
	o = rte_zmalloc("tally_age_obj", sizeof(*o), 0);
	if (o == NULL)
		return -ENOMEM;
	o->flow = flow;
	o->context = conf->context != NULL ? conf->context : (void *)flow;
	o->timeout_s = conf->timeout;
	o->queue = queue;
	o->last_change_ns = age_now_ns();
	tally_cnt_read(fc->cnt, flow->counter, &o->last_hits, &bytes);
	TAILQ_INSERT_TAIL(&fc->age->active, o, next);
	fc->age->by_counter[flow->counter] = o;
	flow->flags |= FLOW_F_AGE;
	return 0;
}

static struct tally_flow_age_obj *
age_of(struct tally_flow_ctx *fc, const struct rte_flow *flow)
{
	if (fc->age == NULL || !(flow->flags & FLOW_F_AGE) ||
	    flow->counter >= fc->age->nb_counters)
		return NULL;
	return fc->age->by_counter[flow->counter];
}

void
tally_flow_age_detach(struct tally_flow_ctx *fc, struct rte_flow *flow)
{
	struct tally_flow_age_obj *o = age_of(fc, flow);

	if (o == NULL)
		return;
	if (o->aged) {
		TAILQ_REMOVE(&fc->age->aged, o, next);
		fc->age->nb_aged--;
	} else {
		TAILQ_REMOVE(&fc->age->active, o, next);
	}
	fc->age->by_counter[flow->counter] = NULL;
	flow->flags &= ~FLOW_F_AGE;
	rte_free(o);
}

int
tally_flow_age_query(struct tally_flow_ctx *fc, const struct rte_flow *flow,
		     struct rte_flow_query_age *q)
{
	struct tally_flow_age_obj *o;
	uint64_t now, secs;

	tally_lock(&fc->lock);
	o = age_of(fc, flow);
	if (o == NULL) {
		tally_unlock(&fc->lock);
		return -EINVAL;
	}
	now = age_now_ns();
	age_check(fc, o, now);
	secs = (now - o->last_change_ns) / 1000000000ull;
	memset(q, 0, sizeof(*q));
	q->aged = o->aged;
	q->sec_since_last_hit_valid = 1;
	q->sec_since_last_hit = secs > 0xffffff ? 0xffffff : (uint32_t)secs;
	tally_unlock(&fc->lock);
	return 0;
}

int
tally_flow_age_get(struct tally_flow_ctx *fc, uint32_t queue, void **contexts,
		   uint32_t n)
{
	struct tally_flow_age_obj *o;
	uint32_t k = 0;

	tally_lock(&fc->lock);
	if (fc->age == NULL) {
		tally_unlock(&fc->lock);
		return 0;
	}
	fc->age->event_armed = true;
	TAILQ_FOREACH(o, &fc->age->aged, next) {
		if (queue != TALLY_FLOW_AGE_SYNC && o->queue != queue)
			continue;
		if (n != 0) {
			if (k == n)
				break;
			contexts[k] = o->context;
		}
		k++;
	}
	tally_unlock(&fc->lock);
	return (int)k;
}

void
tally_flow_age_fini(struct tally_flow_ctx *fc)
{
	struct tally_flow_age *ag = fc->age;
	struct tally_flow_age_obj *o;

	if (ag == NULL)
		return;
	if (ag->thread_started) {
		__atomic_store_n(&ag->stop, 1, __ATOMIC_RELEASE);
		pthread_join(ag->thread, NULL);
	}
	while ((o = TAILQ_FIRST(&ag->active)) != NULL) {
		TAILQ_REMOVE(&ag->active, o, next);
		rte_free(o);
	}
	while ((o = TAILQ_FIRST(&ag->aged)) != NULL) {
		TAILQ_REMOVE(&ag->aged, o, next);
		rte_free(o);
	}
	free(ag->by_counter);
	rte_free(ag);
	fc->age = NULL;
}
