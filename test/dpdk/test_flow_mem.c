/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Where the steering engine keeps its large arrays (tally_flow_mem.c, devarg
 * steer_mem): with the in-process device, a pre-sized hash array lives in
 * the port's host window (2 MiB hugetlbfs pages when EAL has huge pages,
 * transparent huge pages without), which the device reads through a
 * translation of its own; steer_mem=eal keeps it in DPDK memory. Either
 * way rules classify real frames with exact counters, rules
 * of a flushed round never match again, a freed array's memory goes back to
 * the kernel (so it reads zero when reused: the engine relies on zeroed
 * arrays, EMPTY entries and a clear filter), and a bad steer_mem value fails
 * the probe. Against the device process
 * (nic suite) there is no window: the device cannot see host-private
 * memory (the tests of the window skip). In every
 * mode the port's first matcher is pre-sized for its counter bank.
 */
#include <stdio.h>
#include <sys/mman.h>

#include "flow_test_util.h"

/* counters=2^20: the first matcher is pre-sized for 2^20 rules, tens of MB,
 * far above the window's 2 MiB threshold and within a quarter of the
 * tests' 512 MB heap */
#define MEM_COUNTERS	"counters=1048576"

/* From the port's dump: the window's address, its "in use" bytes and the
 * bytes populated at probe; *used = -1 without a window, -2 when the dump
 * cannot be read. */
/* The port's rte_pmd_tally_dump() text (free() it), or NULL. */
static char *
pmd_dump(uint16_t port)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (f == NULL)
		return NULL;
	if (rte_pmd_tally_dump(port, f) != 0) {
		fclose(f);
		free(buf);
		return NULL;
	}
	fclose(f);
	return buf;
}

static void
window_get_all(uint16_t port, uintptr_t *base, long long *used, long long *populated)
{
	char *buf = pmd_dump(port), *p;

	*base = 0;
	*used = -2;
	*populated = -2;
	if (buf == NULL)
		return;
	p = strstr(buf, "steering memory: ");
	if (p != NULL && strncmp(p + 17, "DPDK", 4) == 0) {
		*used = -1;
	} else if (p != NULL && strncmp(p + 17, "host window 0x", 14) == 0) {
		*base = (uintptr_t)strtoull(p + 29, NULL, 16);
		if ((p = strstr(p, ", ")) != NULL)
			*used = strtoll(p + 2, &p, 10);
		if (p != NULL && (p = strstr(p, "in use, ")) != NULL)
			*populated = strtoll(p + 8, NULL, 10);
	}
	free(buf);
}

static void
window_get(uint16_t port, uintptr_t *base, long long *used)
{
	long long populated;

	window_get_all(port, base, used, &populated);
}

static long long
window_used(uint16_t port)
{
	uintptr_t base;
	long long used;

	window_get(port, &base, &used);
	return used;
}

/* eth / ipv4 src 10.0.0.<src>/<plen> -> count, queue 1 */
static struct rte_flow *
src_rule_plen(const struct fport *fp, uint32_t src, uint32_t plen, struct rte_flow_error *e)
{
	static const struct rte_flow_attr attr = { .ingress = 1 };
	struct rte_flow_item_ipv4 spec = { 0 }, mask = { 0 };
	struct rte_flow_action_queue q = { .index = 1 };
	struct rte_flow_action_count c = { 0 };
	struct rte_flow_item it[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_ETH },
		{ .type = RTE_FLOW_ITEM_TYPE_IPV4, .spec = &spec, .mask = &mask },
		{ .type = RTE_FLOW_ITEM_TYPE_END },
	};
	struct rte_flow_action act[] = {
		{ .type = RTE_FLOW_ACTION_TYPE_COUNT, .conf = &c },
		{ .type = RTE_FLOW_ACTION_TYPE_QUEUE, .conf = &q },
		{ .type = RTE_FLOW_ACTION_TYPE_END },
	};

	spec.hdr.src_addr = rte_cpu_to_be_32(0x0a000000 | src);
	mask.hdr.src_addr = rte_cpu_to_be_32(~0u << (32 - plen));
	spec.hdr.src_addr &= mask.hdr.src_addr;
	return rte_flow_create((uint16_t)fp->port, &attr, it, act, e);
}

/* eth / ipv4 src 10.0.0.<src> -> count, queue 1 */
static struct rte_flow *
src_rule(const struct fport *fp, uint32_t src, struct rte_flow_error *e)
{
	return src_rule_plen(fp, src, 32, e);
}

/* Matchers in use and idle ones, from the port's rte_flow_dev_dump. */
static int
matchers(const struct fport *fp, uint64_t *in_use, uint64_t *idle)
{
	if (dump_count((uint16_t)fp->port, "matchers ", in_use) != 0)
		return -1;
	return dump_count((uint16_t)fp->port, "idle matchers ", idle);
}

/* Whether the port has a pre-sized matcher (the dump's count, 0 or 1). */
static bool
presized(const struct fport *fp)
{
	uint64_t n = 0;

	return dump_count((uint16_t)fp->port, "pre-sized matchers ", &n) == 0 && n == 1;
}

static int
hits(const struct fport *fp, struct rte_flow *f, uint64_t *n)
{
	const struct rte_flow_action_count c = { 0 };
	const struct rte_flow_action act[] = {
		{ .type = RTE_FLOW_ACTION_TYPE_COUNT, .conf = &c },
		{ .type = RTE_FLOW_ACTION_TYPE_END },
	};
	struct rte_flow_query_count q = { 0 };
	struct rte_flow_error e;
	int rc = rte_flow_query((uint16_t)fp->port, f, act, &q, &e);

	*n = q.hits;
	return rc;
}

#define NB_RULES	64

/* What round_trip() expects of the window once its rules are in. */
enum win_expect {
	WIN_NONE,	/* the port has none */
	WIN_PRESIZED,	/* the pre-sized array is in it */
	WIN_ANY,	/* one, whether or not the array is pre-sized */
};

/*
 * NB_RULES rules (sources base..base+NB_RULES-1) on a pre-sized matcher,
 * frames from sources base-NB_RULES..base+NB_RULES-1 (3 of each): the ruled
 * half lands on queue 1 and counts exactly 3 per rule, the other half
 * misses (queue 0). Then the rules are flushed (flush) or stay.
 */
static int
round_trip(struct fport *fp, uint32_t base, enum win_expect window, bool flush)
{
	static struct rte_flow *f[NB_RULES];
	struct rte_flow_error e;
	struct rx_set rs;
	uint64_t n;
	long long used;
	uint32_t i;

	for (i = 0; i < NB_RULES; i++) {
		f[i] = src_rule(fp, base + i, &e);
		TEST_ASSERT(f[i] != NULL, "rule %u: %s", i, e.message ? e.message : "");
	}
	used = window_used((uint16_t)fp->port);
	if (window == WIN_PRESIZED)
		/* the pre-sized array: 2^21 slots of >= 20 bytes */
		TEST_ASSERT(used >= (40ll << 20), "window in use %lld bytes", used);
	else if (window == WIN_ANY)
		TEST_ASSERT(used >= 0, "window expected, got %lld", used);
	else
		TEST_ASSERT_EQ(used, -1, "no window expected");
	rs_init(&rs);
	for (i = base - NB_RULES; i < base + NB_RULES; i++)
		TEST_ASSERT_EQ(xfer(fp, i, 64, 3, &rs), 3, "frames of source %u", i);
	TEST_ASSERT_EQ(rs.per_q[1], 3u * NB_RULES, "frames steered to queue 1");
	TEST_ASSERT_EQ(rs.per_q[0], 3u * NB_RULES, "frames missing every rule");
	rs_free(&rs);
	for (i = 0; i < NB_RULES; i++) {
		TEST_ASSERT_EQ(hits(fp, f[i], &n), 0, "query %u", i);
		TEST_ASSERT_EQ(n, 3, "rule %u hits", i);
	}
	if (flush)
		TEST_ASSERT_EQ(rte_flow_flush((uint16_t)fp->port, &e), 0, "flush");
	return TEST_SUCCESS;
}

static bool
nic_mode(void)
{
	return tdt_nic_path() != NULL;
}

/* Does the port have a host window? Only with the in-process device. */
static bool
windowed(void)
{
	return !nic_mode();
}

/* Does the port's dump say the window is of these pages? */
static bool
window_pages(uint16_t port, const char *kind)
{
	char *buf = pmd_dump(port), want[64];
	bool found;

	if (buf == NULL)
		return false;
	snprintf(want, sizeof(want), "populated at probe, %s pages\n", kind);
	found = strstr(buf, want) != NULL;
	free(buf);
	return found;
}

/* What a port expects of its first array: pre-sized in the window, or no
 * window at all. */
static enum win_expect
first_round(void)
{
	return windowed() ? WIN_PRESIZED : WIN_NONE;
}

/* Default: the window, reused after a flush (the second round's rules must
 * not see the first round's entries), and empty again at the end. After a
 * flush the next first matcher is pre-sized only if DPDK's heap has room as
 * it is (tally_flow_presize_fits()): without huge pages the tests' -m heap
 * has; with them the heap grows on demand, so whether it does depends on
 * what the process allocated before. */
static int
test_window_default(void)
{
	enum win_expect later = !windowed() ? WIN_NONE :
				rte_eal_has_hugepages() ? WIN_ANY : WIN_PRESIZED;
	struct fport fp;
	long long used;

	TEST_ASSERT_EQ(fp_open(&fp, MEM_COUNTERS, 2), 0, "port");
	TEST_ASSERT_EQ(round_trip(&fp, 1000, first_round(), true), TEST_SUCCESS, "round 1");
	/* every round's missing half is the previous round's rules */
	TEST_ASSERT_EQ(round_trip(&fp, 1000 + NB_RULES, later, true), TEST_SUCCESS,
		       "round 2");
	TEST_ASSERT_EQ(round_trip(&fp, 1000 + 2 * NB_RULES, later, true), TEST_SUCCESS,
		       "round 3");
	used = window_used((uint16_t)fp.port);
	if (windowed())
		TEST_ASSERT(used >= 0, "window expected, got %lld", used);
	fp_close(&fp);
	return TEST_SUCCESS;
}

/* A freed block goes back to the kernel: once the flushed matcher's array is
 * released (after the device's fence), none of its pages is resident any
 * more, so the next array taking the block reads zero, the state the engine
 * starts an array from. */
static int
test_window_freed_released(void)
{
	static unsigned char vec[(40u << 20) / 4096];
	struct fport fp;
	long long used;
	uintptr_t base;
	unsigned int k, resident = 0;
	size_t i;

	if (!windowed())
		return TEST_SKIPPED;
	TEST_ASSERT_EQ(fp_open(&fp, MEM_COUNTERS, 2), 0, "port");
	TEST_ASSERT_EQ(round_trip(&fp, 5000, WIN_PRESIZED, false), TEST_SUCCESS, "round");
	window_get((uint16_t)fp.port, &base, &used);
	TEST_ASSERT(base != 0, "window address");
	/* first fit: the pre-sized array was the window's first block, and
	 * the rules were written into it */
	TEST_ASSERT_EQ(mincore((void *)base, sizeof(vec) * 4096, vec), 0, "mincore");
	for (i = 0; i < sizeof(vec); i++)
		resident += vec[i] & 1;
	TEST_ASSERT(resident > 0, "the array's pages were resident");
	/* the array goes once the device has fenced */
	TEST_ASSERT_EQ(rte_flow_flush((uint16_t)fp.port, NULL), 0, "flush");
	for (k = 0; k < 100 && window_used((uint16_t)fp.port) != 0; k++) {
		rte_pmd_tally_model_step((uint16_t)fp.port);
		rte_delay_us_sleep(1000);
	}
	used = window_used((uint16_t)fp.port);
	TEST_ASSERT_EQ(used, 0, "window still in use");
	TEST_ASSERT_EQ(mincore((void *)base, sizeof(vec) * 4096, vec), 0, "mincore");
	for (i = 0, resident = 0; i < sizeof(vec); i++)
		resident += vec[i] & 1;
	TEST_ASSERT_EQ(resident, 0, "pages of the freed block still resident");
	fp_close(&fp);
	return TEST_SUCCESS;
}

/* The part of the window the first, pre-sized array takes is resident
 * from probe on, so the first create does not fault it in; the array then
 * takes it (first fit). A bank whose array is small populates nothing. */
static int
test_window_populated_at_probe(void)
{
	static unsigned char vec[(64u << 20) / 4096];
	struct fport fp;
	long long used, populated;
	uintptr_t base;
	size_t i, n, resident = 0;

	if (!windowed())
		return TEST_SKIPPED;
	TEST_ASSERT_EQ(fp_open(&fp, MEM_COUNTERS, 2), 0, "port");
	window_get_all((uint16_t)fp.port, &base, &used, &populated);
	TEST_ASSERT(base != 0, "window address");
	TEST_ASSERT_EQ(used, 0, "no block taken yet");
	/* with huge pages, the same pages as EAL's (DPDK's heap cannot hold
	 * them from probe on) */
	TEST_ASSERT(window_pages((uint16_t)fp.port, rte_eal_has_hugepages() ?
				 "hugetlbfs" : "transparent huge"), "the window's pages");
	/* 2^21 entries of 28 bytes (a two-word key and the driver's word)
	 * and their filter, in 2 MiB units: 58 MiB */
	TEST_ASSERT(populated >= (58ll << 20) && populated % (2 << 20) == 0 &&
		    populated <= (long long)sizeof(vec) * 4096, "populated %lld", populated);
	n = (size_t)populated / 4096;
	TEST_ASSERT_EQ(mincore((void *)base, (size_t)populated, vec), 0, "mincore");
	for (i = 0; i < n; i++)
		resident += vec[i] & 1;
	TEST_ASSERT_EQ(resident, n, "resident before any rule");
	TEST_ASSERT_EQ(round_trip(&fp, 7000, WIN_PRESIZED, false), TEST_SUCCESS, "round");
	TEST_ASSERT(window_used((uint16_t)fp.port) >= populated - (2 << 20), "the array took it");
	fp_close(&fp);
	TEST_ASSERT_EQ(fp_open(&fp, "counters=1024", 2), 0, "port");
	window_get_all((uint16_t)fp.port, &base, &used, &populated);
	TEST_ASSERT_EQ(populated, 0, "a small bank populates nothing");
	fp_close(&fp);
	return TEST_SUCCESS;
}

/* The flow objects of as many rules as the counter bank counts (32 bytes
 * each with their rule handles) are mapped at probe, before any rule, so
 * creates take no page faults for them. */
static int
test_flow_objects_at_probe(void)
{
	struct fport fp;
	uint64_t host;

	TEST_ASSERT_EQ(fp_open(&fp, MEM_COUNTERS, 2), 0, "port");
	TEST_ASSERT_EQ(dump_count((uint16_t)fp.port, "waiting for a fence), ", &host), 0,
		       "host bytes in the dump");
	TEST_ASSERT(host >= 1048576ull * 32, "host bytes %" PRIu64, host);
	fp_close(&fp);
	return TEST_SUCCESS;
}

static int
test_window_eal(void)
{
	struct fport fp;

	if (nic_mode())
		return TEST_SKIPPED;	/* steer_mem belongs to the PMD, not tally-nic */
	TEST_ASSERT_EQ(fp_open(&fp, MEM_COUNTERS ",steer_mem=eal", 2), 0, "port");
	TEST_ASSERT_EQ(round_trip(&fp, 3000, WIN_NONE, true), TEST_SUCCESS, "round");
	fp_close(&fp);
	TEST_ASSERT_EQ(fp_open(&fp, MEM_COUNTERS ",steer_mem=auto", 2), 0, "port");
	TEST_ASSERT_EQ(round_trip(&fp, 3000, first_round(), true), TEST_SUCCESS, "round");
	fp_close(&fp);
	return TEST_SUCCESS;
}

static int
test_window_bad_devarg(void)
{
	char name[32];
	int port;

	if (nic_mode())
		return TEST_SKIPPED;
	port = tdt_port_create("steer_mem=huge", name, sizeof(name));
	TEST_ASSERT(port < 0, "steer_mem=huge accepted");
	TEST_ASSERT_EQ(tdt_port_by_name(name), -1, "no port left behind");
	return TEST_SUCCESS;
}

/* Frames of source src, 3 of them: how many came back on queue q. */
static int
on_queue(struct fport *fp, uint32_t src, uint32_t q)
{
	struct rx_set rs;
	int n;

	rs_init(&rs);
	n = xfer(fp, src, 64, 3, &rs) == 3 ? (int)rs.per_q[q] : -1;
	rs_free(&rs);
	return n;
}

/*
 * The pre-sized matcher is parked when its last rule goes: out of the
 * device's list (frames of the destroyed rule miss), its array kept (the
 * window's bytes stay in use) and taken back by the next rule of its shape;
 * a rule of a new shape releases it and gets the pre-sized array itself;
 * flush releases the parked one. Any other matcher goes with its last rule.
 */
static int
test_presized_parked(void)
{
	struct rte_flow *f, *g, *h;
	struct rte_flow_error e;
	uint64_t in_use, idle, n;
	long long used;
	struct fport fp;
	bool first, again;

	TEST_ASSERT_EQ(fp_open(&fp, MEM_COUNTERS, 2), 0, "port");
	f = src_rule(&fp, 100, &e);
	TEST_ASSERT(f != NULL, "rule: %s", e.message ? e.message : "");
	TEST_ASSERT_EQ(matchers(&fp, &in_use, &idle), 0, "dump");
	TEST_ASSERT(in_use == 1 && idle == 0, "matchers %" PRIu64 " idle %" PRIu64, in_use, idle);
	TEST_ASSERT_EQ(on_queue(&fp, 100, 1), 3, "frames of the rule");
	/* in process, the heap can grow to hold it: with huge pages, by the
	 * free pages of every size EAL has a list for (a list of 1 GiB
	 * pages, none reserved, once hid the 2 MiB ones) */
	first = presized(&fp);
	TEST_ASSERT(first || nic_mode(), "the first matcher is not pre-sized");
	if (!first) {
		/* the heap too small for a pre-sized array (tally-nic's
		 * memory): the matcher goes with its last rule */
		TEST_ASSERT_EQ(rte_flow_destroy((uint16_t)fp.port, f, &e), 0, "destroy");
		TEST_ASSERT_EQ(matchers(&fp, &in_use, &idle), 0, "dump");
		TEST_ASSERT(in_use == 0 && idle == 0, "matchers %" PRIu64 " idle %" PRIu64,
			    in_use, idle);
		fp_close(&fp);
		return TEST_SUCCESS;
	}
	TEST_ASSERT_EQ(rte_flow_destroy((uint16_t)fp.port, f, &e), 0, "destroy");
	TEST_ASSERT_EQ(matchers(&fp, &in_use, &idle), 0, "dump");
	TEST_ASSERT(in_use == 0 && idle == 1, "parked: matchers %" PRIu64 " idle %" PRIu64,
		    in_use, idle);
	used = window_used((uint16_t)fp.port);
	if (used >= 0)	/* with a window: the array stays */
		TEST_ASSERT(used >= (40ll << 20), "window in use %lld bytes", used);
	TEST_ASSERT_EQ(on_queue(&fp, 100, 0), 3, "the parked matcher is not walked");

	/* the same shape: back in the list, the old rule still gone */
	f = src_rule(&fp, 101, &e);
	TEST_ASSERT(f != NULL, "rule: %s", e.message ? e.message : "");
	TEST_ASSERT_EQ(matchers(&fp, &in_use, &idle), 0, "dump");
	TEST_ASSERT(in_use == 1 && idle == 0, "unparked: matchers %" PRIu64 " idle %" PRIu64,
		    in_use, idle);
	TEST_ASSERT_EQ(on_queue(&fp, 101, 1), 3, "frames of the new rule");
	TEST_ASSERT_EQ(on_queue(&fp, 100, 0), 3, "frames of the destroyed rule");
	TEST_ASSERT_EQ(hits(&fp, f, &n), 0, "query");
	TEST_ASSERT_EQ(n, 3, "hits");
	/* a second shape while the first is in use: not pre-sized, so it
	 * goes with its rule */
	g = src_rule_plen(&fp, 0, 24, &e);
	TEST_ASSERT(g != NULL, "rule: %s", e.message ? e.message : "");
	TEST_ASSERT_EQ(on_queue(&fp, 100, 1), 3, "frames of the /24 rule");
	TEST_ASSERT_EQ(rte_flow_destroy((uint16_t)fp.port, g, &e), 0, "destroy");
	TEST_ASSERT_EQ(matchers(&fp, &in_use, &idle), 0, "dump");
	TEST_ASSERT(in_use == 1 && idle == 0, "matchers %" PRIu64 " idle %" PRIu64, in_use, idle);
	TEST_ASSERT_EQ(rte_flow_destroy((uint16_t)fp.port, f, &e), 0, "destroy");

	/* a new shape with the first parked: it goes, and the new one is
	 * the pre-sized one (where the heap has room for a second array:
	 * with huge pages EAL may have given the first one's pages back) and
	 * is parked in turn */
	h = src_rule_plen(&fp, 0, 24, &e);
	TEST_ASSERT(h != NULL, "rule: %s", e.message ? e.message : "");
	TEST_ASSERT_EQ(matchers(&fp, &in_use, &idle), 0, "dump");
	TEST_ASSERT(in_use == 1 && idle == 0, "new shape: matchers %" PRIu64 " idle %" PRIu64,
		    in_use, idle);
	/* with huge pages, EAL may have given the first array's pages back,
	 * and a second pre-size takes the heap as it is */
	TEST_ASSERT(presized(&fp) || nic_mode() || rte_eal_has_hugepages(),
		    "the new shape is not pre-sized");
	TEST_ASSERT_EQ(on_queue(&fp, 101, 1), 3, "frames of the /24 rule");
	again = presized(&fp);
	TEST_ASSERT_EQ(rte_flow_destroy((uint16_t)fp.port, h, &e), 0, "destroy");
	TEST_ASSERT_EQ(matchers(&fp, &in_use, &idle), 0, "dump");
	TEST_ASSERT(in_use == 0 && idle == (again ? 1 : 0),
		    "after the last rule: matchers %" PRIu64 " idle %" PRIu64, in_use, idle);
	TEST_ASSERT_EQ(on_queue(&fp, 101, 0), 3, "no rule left");
	TEST_ASSERT_EQ(rte_flow_flush((uint16_t)fp.port, &e), 0, "flush");
	TEST_ASSERT_EQ(matchers(&fp, &in_use, &idle), 0, "dump");
	TEST_ASSERT(in_use == 0 && idle == 0, "flushed: matchers %" PRIu64 " idle %" PRIu64,
		    in_use, idle);
	fp_close(&fp);
	return TEST_SUCCESS;
}

static const struct tally_test_case cases[] = {
	TEST_CASE(test_presized_parked),
	TEST_CASE(test_window_default),
	TEST_CASE(test_window_freed_released),
	TEST_CASE(test_window_populated_at_probe),
	TEST_CASE(test_flow_objects_at_probe),
	TEST_CASE(test_window_eal),
	TEST_CASE(test_window_bad_devarg),
};

int
main(void)
{
	int rc;

	tdt_eal_init("tally-flow-mem");
	rc = tally_test_run("dpdk-flow-mem", cases, RTE_DIM(cases));
	rte_eal_cleanup();
	return rc;
}
