/* SPDX-License-Identifier: BSD-3-Clause */
/* Wire back ends: loop (inline and thread mode), gen, pcap round trip, bad
 * pcap records, damaged pcap files (cut records, impossible lengths). */
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "tally_mt.h"
#include "tally_test.h"

static const uint8_t own_mac[6] = { 0x02, 0, 0, 0, 0, 0 };

static int
test_loop_counts(void)
{
	static uint8_t f[2048], r[2048];
	struct mt_rx_info info;
	struct mt_dev d;
	struct mt_rxq rq;
	struct mt_txq tq;
	uint64_t bytes = 0;
	uint32_t i, got = 0;

	TEST_ASSERT_EQ(mt_open(&d, NULL), 0, "create");
	TEST_ASSERT_EQ(mt_rxq_start(&d, &rq, 0, 10, 2048, false), 0, "rxq");
	TEST_ASSERT_EQ(mt_txq_start(&d, &tq, 0, 10), 0, "txq");
	mt_port(&d, 0);
	for (i = 0; i < 1000; i++) {
		mt_udp_frame(f, 64 + i, own_mac, i, 2, 3, 4, i);
		TEST_ASSERT_EQ(mt_tx_send(&tq, f, 64 + i, 1), 0, "");
		bytes += 64 + i;
		if (i % 100 == 99)
			mt_tx_reap_all(&tq, NULL);
	}
	TEST_ASSERT_U64_EQ(mt_stat(&d, TALLY_STAT_RX_PKTS), 0, "not before a step");
	while (mt_service(&d) > 0)
		while (mt_rxq_recv(&rq, r, sizeof(r), &info) > 0)
			got++;
	TEST_ASSERT_EQ(got, 1000, "");
	TEST_ASSERT_U64_EQ(mt_stat(&d, TALLY_STAT_TX_PKTS), 1000, "");
	TEST_ASSERT_U64_EQ(mt_stat(&d, TALLY_STAT_TX_BYTES), bytes, "");
	TEST_ASSERT_U64_EQ(mt_stat(&d, TALLY_STAT_RX_PKTS), 1000, "");
	TEST_ASSERT_U64_EQ(mt_stat(&d, TALLY_STAT_RX_BYTES), bytes, "");
	TEST_ASSERT_EQ(tally_model_wire_eof(d.m), 0, "loop never ends");
	mt_close(&d);
	return TEST_SUCCESS;
}

static int
test_loop_thread_mode(void)
{
	static uint8_t f[2048], r[2048];
	struct tally_model_config cfg;
	struct mt_rx_info info;
	struct mt_dev d;
	struct mt_rxq rq;
	struct mt_txq tq;
	uint64_t deadline;
	uint32_t sent = 0, got = 0;
	int n;

	mt_config(&cfg);
	cfg.mode = TALLY_MODEL_THREAD;
	TEST_ASSERT_EQ(mt_open(&d, &cfg), 0, "create");
	TEST_ASSERT_EQ(mt_rxq_start(&d, &rq, 0, 8, 2048, false), 0, "rxq");
	TEST_ASSERT_EQ(mt_txq_start(&d, &tq, 0, 6), 0, "txq");
	mt_port(&d, 0);
	TEST_ASSERT_EQ(mt_service(&d), 0, "a step with nothing pending");
	deadline = tally_time_ns() + 20000000000ull;
	while (got < 5000 && tally_time_ns() < deadline) {
		mt_tx_reap_all(&tq, NULL);
		if (sent < 5000 && sent - got < 200) {
			mt_udp_frame(f, 100, own_mac, sent, 2, 3, 4, sent);
			if (mt_tx_send(&tq, f, 100, 1 + sent % 3) == 0)
				sent++;
		}
		n = mt_rxq_recv(&rq, r, sizeof(r), &info);
		if (n > 0) {
			mt_udp_frame(f, 100, own_mac, got, 2, 3, 4, got);
			TEST_ASSERT(n == 100 && memcmp(f, r, 100) == 0, "frame %u in order", got);
			got++;
		}
	}
	TEST_ASSERT_EQ(got, 5000, "");
	TEST_ASSERT_U64_EQ(mt_stat(&d, TALLY_STAT_RX_PKTS), 5000, "");
	TEST_ASSERT_U64_EQ(mt_stat(&d, TALLY_STAT_TX_BYTES), 500000, "");
	mt_close(&d);
	return TEST_SUCCESS;
}

static int
test_gen_counts(void)
{
	static uint8_t r[2048];
	struct tally_model_config cfg;
	struct mt_rx_info info;
	struct mt_dev d;
	struct mt_rxq rq;
	uint32_t got = 0, sum, i, seen[16] = { 0 };
	int n;

	mt_config(&cfg);
	cfg.wire = TALLY_WIRE_GEN;
	cfg.gen_flows = 10;
	cfg.gen_len = 128;
	cfg.gen_count = 1000;
	TEST_ASSERT_EQ(mt_open(&d, &cfg), 0, "create");
	TEST_ASSERT_EQ(mt_rxq_start(&d, &rq, 0, 7, 2048, false), 0, "rxq");
	TEST_ASSERT_EQ(mt_service(&d), 0, "port off: the generator waits");
	mt_port(&d, 0);
	while (mt_service(&d) > 0) {
		while ((n = mt_rxq_recv(&rq, r, sizeof(r), &info)) > 0) {
			TEST_ASSERT_EQ(n, 128, "");
			TEST_ASSERT(memcmp(r, own_mac, 6) == 0, "dst = model MAC");
			TEST_ASSERT(r[12] == 0x08 && r[13] == 0 && r[23] == 17, "IPv4/UDP");
			for (sum = 0, i = 14; i < 34; i += 2)
				sum += (uint32_t)r[i] << 8 | r[i + 1];
			while (sum >> 16)
				sum = (sum & 0xffff) + (sum >> 16);
			TEST_ASSERT_EQ(sum, 0xffff, "IPv4 checksum");
			TEST_ASSERT(r[29] < 10, "flow");
			seen[r[29]]++;
			got++;
		}
	}
	TEST_ASSERT_EQ(got, 1000, "");
	for (i = 0; i < 10; i++)
		TEST_ASSERT_EQ(seen[i], 100, "flow %u", i);
	TEST_ASSERT_U64_EQ(mt_stat(&d, TALLY_STAT_RX_BYTES), 128000, "");
	TEST_ASSERT_EQ(tally_model_wire_eof(d.m), 1, "");
	mt_close(&d);
	return TEST_SUCCESS;
}

struct rec {
	uint32_t caplen, len;
};

static int
write_pcap(const char *path, const struct rec *recs, uint32_t n, uint32_t seed)
{
	static uint8_t f[MT_FRAME_MAX];
	struct pcap_pkthdr h;
	pcap_dumper_t *dp;
	pcap_t *p;
	uint32_t i;

	p = pcap_open_dead(DLT_EN10MB, 65535);
	dp = p != NULL ? pcap_dump_open(p, path) : NULL;
	if (dp == NULL)
		return -1;
	for (i = 0; i < n; i++) {
		memset(&h, 0, sizeof(h));
		h.ts.tv_sec = 1000 + i;
		h.caplen = recs[i].caplen;
		h.len = recs[i].len;
		if (recs[i].caplen >= 42)
			mt_udp_frame(f, recs[i].caplen, own_mac, i, 2, 3, 4, seed + i);
		else
			memset(f, 0xab, sizeof(f));
		pcap_dump((u_char *)dp, &h, f);
	}
	pcap_dump_close(dp);
	pcap_close(p);
	return 0;
}

static uint8_t *
slurp(const char *path, long *len)
{
	FILE *fp = fopen(path, "rb");
	uint8_t *b;

	if (fp == NULL)
		return NULL;
	fseek(fp, 0, SEEK_END);
	*len = ftell(fp);
	fseek(fp, 0, SEEK_SET);
	b = malloc((size_t)*len + 1);
	if (b != NULL && fread(b, 1, (size_t)*len, fp) != (size_t)*len) {
		free(b);
		b = NULL;
	}
	fclose(fp);
	return b;
}

/* Same file header, same records (caplen, len, bytes); timestamps differ. */
static int
pcap_same_frames(const char *a, const char *b)
{
	long la, lb, off;
	uint8_t *x = slurp(a, &la), *y = slurp(b, &lb);
	int rc = la == lb && x != NULL && y != NULL && memcmp(x, y, 24) == 0 ? 0 : -1;
	uint32_t cap;

	for (off = 24; rc == 0 && off + 16 <= la; off += 16 + cap) {
		memcpy(&cap, x + off + 8, 4);
		if (memcmp(x + off + 8, y + off + 8, 8) != 0 ||
		    off + 16 + (long)cap > la ||
		    memcmp(x + off + 16, y + off + 16, cap) != 0)
			rc = -1;
	}
	free(x);
	free(y);
	return rc;
}

static int
test_pcap_round_trip(void)
{
	static uint8_t r[MT_FRAME_MAX];
	struct rec recs[300];
	char in[64], out[64];
	struct tally_model_config cfg;
	struct mt_rx_info info;
	struct mt_dev d;
	struct mt_rxq rq;
	struct mt_txq tq;
	uint32_t i, fwd = 0, idle = 0;
	int n, rc;

	snprintf(in, sizeof(in), "/tmp/tally_mt_rt_in_%d.pcap", (int)getpid());
	snprintf(out, sizeof(out), "/tmp/tally_mt_rt_out_%d.pcap", (int)getpid());
	for (i = 0; i < 300; i++)
		recs[i].caplen = recs[i].len = 60 + (i * 53) % 1455;
	TEST_ASSERT_EQ(write_pcap(in, recs, 300, 7), 0, "write input");
	mt_config(&cfg);
	cfg.wire = TALLY_WIRE_PCAP;
	cfg.pcap_rx = in;
	cfg.pcap_tx = out;
	TEST_ASSERT_EQ(mt_open(&d, &cfg), 0, "create");
	TEST_ASSERT_EQ(mt_rxq_start(&d, &rq, 0, 7, 2048, false), 0, "rxq");
	TEST_ASSERT_EQ(mt_txq_start(&d, &tq, 0, 4), 0, "txq");
	mt_port(&d, 0);
	/* driver-like forwarding loop, Rx -> Tx, up to a burst per step */
	while (idle < 3) {
		mt_tx_reap_all(&tq, NULL);
		idle = mt_service(&d) == 0 && tally_model_wire_eof(d.m) ? idle + 1 : 0;
		while ((n = mt_rxq_recv(&rq, r, sizeof(r), &info)) > 0) {
			mt_tx_reap_all(&tq, NULL);
			TEST_ASSERT_EQ(mt_tx_send(&tq, r, (uint32_t)n, 1 + fwd % 2), 0, "");
			fwd++;
		}
	}
	TEST_ASSERT_EQ(fwd, 300, "forwarded");
	TEST_ASSERT_U64_EQ(mt_stat(&d, TALLY_STAT_TX_PKTS), 300, "");
	TEST_ASSERT_U64_EQ(mt_stat(&d, TALLY_STAT_RX_MISSED), 0, "");
	mt_close(&d);
	rc = pcap_same_frames(in, out);
	unlink(in);
	unlink(out);
	TEST_ASSERT_EQ(rc, 0, "output frames equal the input byte for byte");
	return TEST_SUCCESS;
}

static int
test_pcap_bad_records(void)
{
	static const struct rec recs[] = {
		{ 100, 100 }, { 0, 0 }, { 60, 100 }, { 2000, 2000 }, { 10, 10 },
		{ 200, 200 }, { 1518, 1518 }, { 13, 100 }, { 64, 64 },
	};
	static uint8_t r[MT_FRAME_MAX];
	char in[64];
	struct tally_model_config cfg;
	struct mt_rx_info info;
	struct mt_dev d;
	struct mt_rxq rq;
	uint32_t got = 0, loops = 3;

	snprintf(in, sizeof(in), "/tmp/tally_mt_bad_%d.pcap", (int)getpid());
	TEST_ASSERT_EQ(write_pcap(in, recs, TALLY_ARRAY_SIZE(recs), 1), 0, "");
	mt_config(&cfg);
	cfg.wire = TALLY_WIRE_PCAP;
	cfg.pcap_rx = in;
	cfg.pcap_loops = loops;
	TEST_ASSERT_EQ(mt_open(&d, &cfg), 0, "create");
	TEST_ASSERT_EQ(mt_rxq_start(&d, &rq, 0, 6, 2048, false), 0, "rxq");
	mt_port(&d, 0);
	while (mt_service(&d) > 0)
		while (mt_rxq_recv(&rq, r, sizeof(r), &info) > 0)
			got++;
	unlink(in);
	TEST_ASSERT_EQ(tally_model_wire_eof(d.m), 1, "");
	TEST_ASSERT_EQ(got, 4 * loops, "good frames still delivered");
	TEST_ASSERT_U64_EQ(mt_stat(&d, TALLY_STAT_RX_ERR_RUNT), 2 * loops, "");
	TEST_ASSERT_U64_EQ(mt_stat(&d, TALLY_STAT_RX_ERR_TRUNC), 2 * loops, "");
	TEST_ASSERT_U64_EQ(mt_stat(&d, TALLY_STAT_RX_ERR_OVERSIZE), 1 * loops, "");
	TEST_ASSERT_U64_EQ(mt_stat(&d, TALLY_STAT_RX_PKTS), 4 * loops, "");
	TEST_ASSERT_U64_EQ(mt_stat(&d, TALLY_STAT_RX_BYTES), (100 + 200 + 1518 + 64) * loops, "");
	mt_close(&d);
	return TEST_SUCCESS;
}

/* ---- damaged pcap files, written byte by byte ------------------------------ */

struct dmg_rec {
	uint32_t caplen, len;	/* as written in the record header */
	uint32_t data;		/* data bytes written (a good frame when >= 42) */
	uint32_t hdr;		/* header bytes written: 0 = all 16 */
};

static int
write_raw_pcap(const char *path, const struct dmg_rec *recs, uint32_t n)
{
	static uint8_t f[MT_FRAME_MAX];
	const uint32_t fh[6] = { 0xa1b2c3d4, 2 | 4u << 16, 0, 0, 65535, 1 };
	uint32_t i, rh[4];
	FILE *fp = fopen(path, "wb");
	int rc = 0;

	if (fp == NULL)
		return -1;
	if (fwrite(fh, sizeof(fh), 1, fp) != 1)
		rc = -1;
	for (i = 0; rc == 0 && i < n; i++) {
		rh[0] = 1000 + i;
		rh[1] = 0;
		rh[2] = recs[i].caplen;
		rh[3] = recs[i].len;
		mt_udp_frame(f, recs[i].data >= 42 ? recs[i].data : 60, own_mac, i, 2, 3, 4, i);
		if (fwrite(rh, recs[i].hdr ? recs[i].hdr : sizeof(rh), 1, fp) != 1 ||
		    (recs[i].data && fwrite(f, recs[i].data, 1, fp) != 1))
			rc = -1;
	}
	if (fclose(fp) != 0)
		rc = -1;
	return rc;
}

struct dmg_want {
	uint32_t frames;	/* delivered */
	uint64_t bytes;
	uint64_t damaged;	/* RX_ERR_DAMAGED */
};

static int
run_damaged(const struct dmg_rec *recs, uint32_t n, uint32_t loops,
	    const struct dmg_want *w)
{
	static uint8_t r[MT_FRAME_MAX];
	struct tally_model_config cfg;
	struct mt_rx_info info;
	struct mt_dev d;
	struct mt_rxq rq;
	uint32_t got = 0, polls = 0;
	uint64_t bytes = 0;
	char in[64];
	int len;

	snprintf(in, sizeof(in), "/tmp/tally_mt_dmg_%d.pcap", (int)getpid());
	TEST_ASSERT_EQ(write_raw_pcap(in, recs, n), 0, "");
	mt_config(&cfg);
	cfg.wire = TALLY_WIRE_PCAP;
	cfg.pcap_rx = in;
	cfg.pcap_loops = loops;
	TEST_ASSERT_EQ(mt_open(&d, &cfg), 0, "create");
	TEST_ASSERT_EQ(mt_rxq_start(&d, &rq, 0, 6, 2048, false), 0, "rxq");
	mt_port(&d, 0);
	do {
		mt_service(&d);
		while ((len = mt_rxq_recv(&rq, r, sizeof(r), &info)) > 0) {
			got++;
			bytes += (uint32_t)len;
		}
	} while (!tally_model_wire_eof(d.m) && ++polls < 1000);
	unlink(in);
	TEST_ASSERT_EQ(tally_model_wire_eof(d.m), 1, "input ends");
	TEST_ASSERT_EQ(got, w->frames, "frames delivered");
	TEST_ASSERT_U64_EQ(bytes, w->bytes, "");
	TEST_ASSERT_U64_EQ(mt_stat(&d, TALLY_STAT_RX_PKTS), w->frames, "");
	TEST_ASSERT_U64_EQ(mt_stat(&d, TALLY_STAT_RX_ERR_DAMAGED), w->damaged, "");
	TEST_ASSERT_U64_EQ(mt_stat(&d, TALLY_STAT_RX_ERR_TRUNC), 0, "");
	TEST_ASSERT_U64_EQ(mt_stat(&d, TALLY_STAT_RX_ERR_RUNT), 0, "");
	TEST_ASSERT_U64_EQ(mt_stat(&d, TALLY_STAT_RX_ERR_OVERSIZE), 0, "");
	mt_close(&d);
	return TEST_SUCCESS;
}

/* Data cut by the end of the file: the good records before it, then EOF;
 * every replay meets it again. */
static int
test_pcap_cut_data(void)
{
	static const struct dmg_rec recs[] = {
		{ 60, 60, 60, 0 }, { 100, 100, 100, 0 }, { 200, 200, 30, 0 },
	};
	static const struct dmg_want once = { 2, 160, 1 }, twice = { 4, 320, 2 };

	if (run_damaged(recs, TALLY_ARRAY_SIZE(recs), 1, &once) != TEST_SUCCESS)
		return TEST_FAILED;
	return run_damaged(recs, TALLY_ARRAY_SIZE(recs), 2, &twice);
}

/* Header cut by the end of the file. */
static int
test_pcap_cut_header(void)
{
	static const struct dmg_rec recs[] = {
		{ 60, 60, 60, 0 }, { 100, 100, 100, 0 }, { 64, 64, 0, 8 },
	};
	static const struct dmg_want w = { 2, 160, 1 };

	return run_damaged(recs, TALLY_ARRAY_SIZE(recs), 1, &w);
}

/* caplen > len: skipped, the records after it are delivered. */
static int
test_pcap_caplen_over_len(void)
{
	static const struct dmg_rec recs[] = {
		{ 60, 60, 60, 0 }, { 100, 20, 100, 0 }, { 70, 70, 70, 0 },
		{ 64, 63, 64, 0 }, { 80, 80, 80, 0 },
	};
	static const struct dmg_want once = { 3, 210, 2 }, thrice = { 9, 630, 6 };

	if (run_damaged(recs, TALLY_ARRAY_SIZE(recs), 1, &once) != TEST_SUCCESS)
		return TEST_FAILED;
	return run_damaged(recs, TALLY_ARRAY_SIZE(recs), 3, &thrice);
}

/* An absurd caplen: counted, and nothing after it is read (its header
 * cannot locate the next record); the replay starts over. */
static int
test_pcap_absurd_caplen(void)
{
	static const struct dmg_rec recs[] = {
		{ 60, 60, 60, 0 }, { 0x7fffffffu, 100, 100, 0 }, { 70, 70, 70, 0 },
		{ 80, 80, 80, 0 },
	};
	static const struct dmg_rec huge[] = {
		{ 60, 60, 60, 0 }, { 300000, 300000, 0, 0 }, { 70, 70, 70, 0 },
	};
	static const struct dmg_want once = { 1, 60, 1 }, thrice = { 3, 180, 3 };

	if (run_damaged(recs, TALLY_ARRAY_SIZE(recs), 1, &once) != TEST_SUCCESS ||
	    run_damaged(huge, TALLY_ARRAY_SIZE(huge), 1, &once) != TEST_SUCCESS)
		return TEST_FAILED;
	return run_damaged(recs, TALLY_ARRAY_SIZE(recs), 3, &thrice);
}

/* Nothing deliverable: one damaged record ends every replay, so a huge
 * pcap_loops costs one pass, not millions of reopenings. */
static int
test_pcap_damaged_only(void)
{
	static const struct dmg_rec recs[] = { { 0x7fffffffu, 100, 0, 0 } };
	static const struct dmg_rec cut[] = { { 100, 100, 10, 0 } };
	static const struct dmg_want w = { 0, 0, 1 };

	if (run_damaged(recs, TALLY_ARRAY_SIZE(recs), 100000000, &w) != TEST_SUCCESS)
		return TEST_FAILED;
	return run_damaged(cut, TALLY_ARRAY_SIZE(cut), 100000000, &w);
}

static const struct tally_test_case cases[] = {
	TEST_CASE(test_loop_counts),
	TEST_CASE(test_loop_thread_mode),
	TEST_CASE(test_gen_counts),
	TEST_CASE(test_pcap_round_trip),
	TEST_CASE(test_pcap_bad_records),
	TEST_CASE(test_pcap_cut_data),
	TEST_CASE(test_pcap_cut_header),
	TEST_CASE(test_pcap_caplen_over_len),
	TEST_CASE(test_pcap_absurd_caplen),
	TEST_CASE(test_pcap_damaged_only),
};

TEST_MAIN("model-wire", cases)
