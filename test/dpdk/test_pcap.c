/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pcap wire input: a capture mixing good frames with zero-length, truncated
 * and oversized records. The bad records are counted in xstats
 * (rx_err_runt, rx_err_trunc, rx_err_oversize); the good frames are
 * delivered byte for byte. Also checks the pcap Tx output.
 */
#include <pcap/pcap.h>
#include <sys/stat.h>

#include "tally_dpdk_test.h"

static char tmpdir[64];

struct rec {
	uint32_t caplen;
	uint32_t len;
	int good;		/* frame index delivered, or -1 */
};

static const struct rec recs[] = {
	{ 64, 64, 0 },
	{ 0, 0, -1 },		/* zero length: runt */
	{ 200, 200, 1 },
	{ 40, 100, -1 },	/* truncated capture */
	{ 2000, 2000, -1 },	/* oversized for MTU 1500 */
	{ 10, 10, -1 },		/* runt */
	{ 1514, 1514, 2 },
	{ 60, 60, 3 },
};

static int
write_pcap(const char *path)
{
	static uint8_t buf[4096];
	pcap_t *p = pcap_open_dead(DLT_EN10MB, 65535);
	pcap_dumper_t *d;
	unsigned int i;

	if (p == NULL)
		return -1;
	d = pcap_dump_open(p, path);
	if (d == NULL) {
		pcap_close(p);
		return -1;
	}
	for (i = 0; i < RTE_DIM(recs); i++) {
		struct pcap_pkthdr h = { .caplen = recs[i].caplen,
					 .len = recs[i].len };

		memset(buf, 0, sizeof(buf));
		if (recs[i].len >= 42)
			tdt_frame_fill(buf, recs[i].len,
				       recs[i].good >= 0 ? (uint32_t)recs[i].good : 99);
		h.ts.tv_sec = 1;
		h.ts.tv_usec = i;
		pcap_dump((u_char *)d, &h, buf);
	}
	pcap_dump_close(d);
	pcap_close(p);
	return 0;
}

static uint32_t
good_len(unsigned int idx)
{
	unsigned int i;

	for (i = 0; i < RTE_DIM(recs); i++)
		if (recs[i].good == (int)idx)
			return recs[i].len;
	return 0;
}

static int
test_pcap_input(void)
{
	struct tdt_port_conf pc = { .nb_rxq = 1, .nb_txq = 1 };
	char in[128], args[320], name[32];
	struct rte_mbuf *rx[16];
	struct rte_eth_stats st;
	unsigned int n, i;
	int port;

	snprintf(in, sizeof(in), "%s/in.pcap", tmpdir);
	TEST_ASSERT_EQ(write_pcap(in), 0, "");
	snprintf(args, sizeof(args), "wire=pcap,rx_pcap=%s", in);
	port = tdt_port_create(args, name, sizeof(name));
	TEST_ASSERT(port >= 0, "create %d", port);
	TEST_ASSERT_EQ(tdt_port_setup(port, &pc), 0, "");
	n = tdt_rx_all(port, 1, rx, NULL, RTE_DIM(rx), 4);
	TEST_ASSERT_EQ(n, 4, "good frames delivered");
	for (i = 0; i < n; i++)
		TEST_ASSERT_EQ(tdt_mbuf_check(rx[i], good_len(i), i), 0, "frame %u", i);
	tdt_free_all(rx, n);
	TEST_ASSERT_U64_EQ(tdt_xstat(port, "rx_err_runt"), 2, "");
	TEST_ASSERT_U64_EQ(tdt_xstat(port, "rx_err_trunc"), 1, "");
	TEST_ASSERT_U64_EQ(tdt_xstat(port, "rx_err_oversize"), 1, "");
	TEST_ASSERT_U64_EQ(tdt_xstat(port, "rx_packets"), 4, "");
	TEST_ASSERT_U64_EQ(tdt_xstat(port, "rx_bytes"), 64 + 200 + 1514 + 60, "");
	TEST_ASSERT_EQ(rte_eth_stats_get(port, &st), 0, "");
	TEST_ASSERT_U64_EQ(st.ierrors, 4, "");
	TEST_ASSERT_U64_EQ(st.ipackets, 4, "");
	tdt_port_destroy(port, name);
	unlink(in);
	return TEST_SUCCESS;
}

static int
test_pcap_output(void)
{
	struct tdt_port_conf pc = { .nb_rxq = 1, .nb_txq = 1 };
	char out[128], args[320], name[32], errbuf[PCAP_ERRBUF_SIZE];
	struct rte_mbuf *tx[8];
	struct pcap_pkthdr *h;
	const u_char *data;
	pcap_t *p;
	unsigned int i;
	int port;

	snprintf(out, sizeof(out), "%s/out.pcap", tmpdir);
	snprintf(args, sizeof(args), "wire=pcap,tx_pcap=%s", out);
	port = tdt_port_create(args, name, sizeof(name));
	TEST_ASSERT(port >= 0, "create %d", port);
	TEST_ASSERT_EQ(tdt_port_setup(port, &pc), 0, "");
	for (i = 0; i < 8; i++)
		tx[i] = tdt_mbuf_build(100 + i, i, 1 + i % 3);
	TEST_ASSERT_EQ(tdt_tx_all(port, 0, tx, 8), 8, "");
	rte_pmd_tally_model_step(port);
	TEST_ASSERT_U64_EQ(tdt_xstat(port, "tx_packets"), 8, "");
	tdt_port_destroy(port, name);	/* closes the pcap file */
	p = pcap_open_offline(out, errbuf);
	TEST_ASSERT(p != NULL, "%s", errbuf);
	for (i = 0; i < 8; i++) {
		uint8_t want[128];

		TEST_ASSERT_EQ(pcap_next_ex(p, &h, &data), 1, "record %u", i);
		TEST_ASSERT_EQ(h->len, 100 + i, "");
		tdt_frame_fill(want, 100 + i, i);
		TEST_ASSERT(memcmp(want, data, 100 + i) == 0, "bytes %u", i);
	}
	pcap_close(p);
	unlink(out);
	return TEST_SUCCESS;
}

static const struct tally_test_case cases[] = {
	TEST_CASE(test_pcap_input),
	TEST_CASE(test_pcap_output),
};

int
main(void)
{
	int rc;

	snprintf(tmpdir, sizeof(tmpdir), "/tmp/tally-pcap-XXXXXX");
	if (mkdtemp(tmpdir) == NULL)
		return 1;
	tdt_eal_init("tally-pcap");
	rc = tally_test_run("dpdk-pcap", cases, RTE_DIM(cases));
	rte_eal_cleanup();
	rmdir(tmpdir);
	return rc;
}
