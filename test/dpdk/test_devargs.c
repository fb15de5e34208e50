/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Bad devargs: the probe fails, the port count is unchanged, the error log
 * names the argument, and no rte_malloc memory is left behind. Good devargs
 * are accepted.
 */
#include "tally_dpdk_test.h"

struct bad_case {
	const char *devargs;
	const char *must_log;	/* the argument named in the log */
};

static const struct bad_case bad_cases[] = {
	{ "foo=1", "foo" },
	{ "rxq=abc", "rxq" },
	{ "rxq=0", "rxq" },
	{ "rxq=99", "rxq" },
	{ "txq=-1", "txq" },
	{ "counters=12x", "counters" },
	{ "comp_counters=", "comp_counters" },
	{ "wire=bogus", "wire" },
	{ "mode=fast", "mode" },
	{ "mac=02:00:00:00:00", "mac" },
	{ "wire=pcap,rx_pcap=/nonexistent/tally/in.pcap", "rx_pcap" },
	{ "wire=if", "iface" },
	{ "gen_len=10", "gen_len" },
	{ "steer_stage=0", "steer_stage" },
	{ "steer_stage=29", "steer_stage" },
	{ "steer_stage=on", "steer_stage" },
};

static int
probe_expect_fail(const struct bad_case *c)
{
	char *log = NULL, name[32];
	size_t log_len = 0;
	uint16_t before = rte_eth_dev_count_avail();
	size_t heap = tdt_heap_used();
	FILE *f = open_memstream(&log, &log_len);
	int port, found;

	TEST_ASSERT(f != NULL, "");
	rte_openlog_stream(f);
	port = tdt_port_create(c->devargs, name, sizeof(name));
	rte_openlog_stream(NULL);
	fclose(f);
	found = log != NULL && strstr(log, c->must_log) != NULL;
	if (port >= 0 || !found)
		fprintf(stderr, "  devargs '%s': port %d, log:\n%s\n", c->devargs,
			port, log ? log : "");
	free(log);
	TEST_ASSERT(port < 0, "'%s' accepted", c->devargs);
	TEST_ASSERT(found, "'%s': log does not name %s", c->devargs, c->must_log);
	TEST_ASSERT_EQ(rte_eth_dev_count_avail(), before, "'%s'", c->devargs);
	TEST_ASSERT_EQ(tdt_port_by_name(name), -1, "");
	TEST_ASSERT_U64_EQ(tdt_heap_used(), heap, "'%s' leaked", c->devargs);
	rte_eal_hotplug_remove("vdev", name);
	return TEST_SUCCESS;
}

static int
test_bad_devargs(void)
{
	unsigned int i;

	for (i = 0; i < RTE_DIM(bad_cases); i++)
		if (probe_expect_fail(&bad_cases[i]) != TEST_SUCCESS)
			return TEST_FAILED;
	return TEST_SUCCESS;
}

static int
test_good_devargs(void)
{
	static const char *const good[] = {
		"",
		"wire=loop",
		"wire=none,rxq=1,txq=1",
		"mode=inline,counters=1024,comp_counters=16",
		"rxq=8,txq=8,mac=02:aa:bb:cc:dd:ee",
		"wire=gen,gen_flows=4,gen_len=128,gen_count=10",
	};
	size_t heap = tdt_heap_used();
	unsigned int i;

	for (i = 0; i < RTE_DIM(good); i++) {
		char name[32];
		int port = tdt_port_create(good[i], name, sizeof(name));

		TEST_ASSERT(port >= 0, "'%s' rejected: %d", good[i], port);
		tdt_port_destroy(port, name);
	}
	TEST_ASSERT_U64_EQ(tdt_heap_used(), heap, "leak");
	return TEST_SUCCESS;
}

static const struct tally_test_case cases[] = {
	TEST_CASE(test_bad_devargs),
	TEST_CASE(test_good_devargs),
};

int
main(void)
{
	int rc;

	tdt_eal_init("tally-devargs");
	rc = tally_test_run("dpdk-devargs", cases, RTE_DIM(cases));
	rte_eal_cleanup();
	return rc;
}
