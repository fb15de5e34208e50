/* SPDX-License-Identifier: BSD-3-Clause */
/* Configuration errors fail with a negative errno and name the setting. */
#include <string.h>

#include "tally_mt.h"
#include "tally_test.h"

static void
bad_mode(struct tally_model_config *c)
{
	c->mode = 2;
}

static void
bad_rxq0(struct tally_model_config *c)
{
	c->rx_queues = 0;
}

static void
bad_rxq17(struct tally_model_config *c)
{
	c->rx_queues = 17;
}

static void
bad_txq(struct tally_model_config *c)
{
	c->tx_queues = 0;
}

static void
bad_cnt0(struct tally_model_config *c)
{
	c->counters = 0;
}

static void
bad_cnt_big(struct tally_model_config *c)
{
	c->counters = TALLY_CNT_MAX + 1;
}

static void
bad_ccnt(struct tally_model_config *c)
{
	c->comp_counters = 0;
}

static void
bad_frame_lo(struct tally_model_config *c)
{
	c->max_frame = 63;
}

static void
bad_frame_hi(struct tally_model_config *c)
{
	c->max_frame = 16384;
}

static void
bad_mac(struct tally_model_config *c)
{
	c->mac[0] = 0x01;
}

static void
bad_wire(struct tally_model_config *c)
{
	c->wire = 9;
}

static void
bad_iface(struct tally_model_config *c)
{
	c->wire = TALLY_WIRE_IF;
}

static void
bad_iface_long(struct tally_model_config *c)
{
	c->wire = TALLY_WIRE_IF;
	c->iface = "a_very_long_interface_name";
}
static void
bad_gen_flows(struct tally_model_config *c)
{
	c->wire = TALLY_WIRE_GEN;
	c->gen_flows = 0;
}
static void
bad_gen_len(struct tally_model_config *c)
{
	c->wire = TALLY_WIRE_GEN;
	c->gen_len = 59;
}
static void
bad_gen_len_hi(struct tally_model_config *c)
{
	c->wire = TALLY_WIRE_GEN;
	c->max_frame = 1000;
	c->gen_len = 1001;
}
static void
bad_pcap_rx(struct tally_model_config *c)
{
	c->wire = TALLY_WIRE_PCAP;
	c->pcap_rx = "/nonexistent/tally_in.pcap";
}
static void
bad_pcap_fmt(struct tally_model_config *c)
{
	c->wire = TALLY_WIRE_PCAP;
	c->pcap_rx = "/proc/self/status";
}
static void
bad_pcap_tx(struct tally_model_config *c)
{
	c->wire = TALLY_WIRE_PCAP;
	c->pcap_tx = "/nonexistent/tally_out.pcap";
}
static void
bad_if_name(struct tally_model_config *c)
{
	c->wire = TALLY_WIRE_IF;
	c->iface = "tallynosuch0";
}

static const struct {
	const char *name;
	void (*mutate)(struct tally_model_config *c);
	const char *msg;	/* must appear in the error message */
} bad[] = {
	{ "mode", bad_mode, "mode=2 out of range 0..1" },
	{ "rx_queues=0", bad_rxq0, "rx_queues=0 out of range 1..16" },
	{ "rx_queues=17", bad_rxq17, "rx_queues=17 out of range 1..16" },
	{ "tx_queues", bad_txq, "tx_queues=0 out of range 1..16" },
	{ "counters=0", bad_cnt0, "counters=0 out of range" },
	{ "counters big", bad_cnt_big, "counters=" },
	{ "comp_counters", bad_ccnt, "comp_counters=0 out of range" },
	{ "max_frame lo", bad_frame_lo, "max_frame=63 out of range 64..16383" },
	{ "max_frame hi", bad_frame_hi, "max_frame=16384" },
	{ "mac", bad_mac, "mac=01:00:00:00:00:00" },
	{ "wire", bad_wire, "wire=9" },
	{ "iface unset", bad_iface, "iface" },
	{ "iface long", bad_iface_long, "iface=a_very_long_interface_name" },
	{ "gen_flows", bad_gen_flows, "gen_flows=0" },
	{ "gen_len", bad_gen_len, "gen_len=59 out of range 60..9216" },
	{ "gen_len > max_frame", bad_gen_len_hi, "gen_len=1001 out of range 60..1000" },
	{ "pcap_rx missing", bad_pcap_rx, "pcap_rx=/nonexistent/tally_in.pcap" },
	{ "pcap_rx format", bad_pcap_fmt, "pcap_rx=/proc/self/status" },
	{ "pcap_tx", bad_pcap_tx, "pcap_tx=/nonexistent/tally_out.pcap" },
	{ "iface missing", bad_if_name, "iface=tallynosuch0" },
};

static int
test_config_errors(void)
{
	struct tally_model_config cfg;
	struct tally_model *m;
	char err[256];
	size_t i;
	int rc;

	for (i = 0; i < TALLY_ARRAY_SIZE(bad); i++) {
		mt_config(&cfg);
		bad[i].mutate(&cfg);
		m = NULL;
		err[0] = '\0';
		rc = tally_model_create(&cfg, &m, err, sizeof(err));
		TEST_ASSERT(rc < 0, "%s accepted", bad[i].name);
		TEST_ASSERT(m == NULL, "%s", bad[i].name);
		TEST_ASSERT(strstr(err, bad[i].msg) != NULL, "%s: message \"%s\"",
			    bad[i].name, err);
		if (i < 16)
			TEST_ASSERT_EQ(rc, -EINVAL, "%s", bad[i].name);
	}
	/* no errbuf is fine; NULL arguments are refused */
	mt_config(&cfg);
	cfg.rx_queues = 0;
	TEST_ASSERT_EQ(tally_model_create(&cfg, &m, NULL, 0), -EINVAL, "");
	TEST_ASSERT_EQ(tally_model_create(NULL, &m, err, sizeof(err)), -EINVAL, "");
	return TEST_SUCCESS;
}

static int
test_config_defaults(void)
{
	struct tally_model_config cfg;
	struct tally_model *m;
	struct tally_io io;
	char err[256];
	int mode;

	tally_model_config_init(&cfg);
	TEST_ASSERT_EQ(cfg.rx_queues, 8, "");
	TEST_ASSERT_EQ(cfg.tx_queues, 8, "");
	TEST_ASSERT_EQ(cfg.counters, 1u << 22, "");
	TEST_ASSERT_EQ(cfg.comp_counters, 1u << 16, "");
	TEST_ASSERT_EQ(cfg.max_frame, 9216, "");
	TEST_ASSERT_EQ(cfg.wire, TALLY_WIRE_LOOP, "");
	TEST_ASSERT_EQ(cfg.mac[0], 0x02, "");
	for (mode = TALLY_MODEL_INLINE; mode <= TALLY_MODEL_THREAD; mode++) {
		cfg.mode = (enum tally_model_mode)mode;
		TEST_ASSERT_EQ(tally_model_create(&cfg, &m, err, sizeof(err)), 0, "%s", err);
		tally_model_io(m, &io);
		TEST_ASSERT_EQ(io.ops->read32(io.ctx, TALLY_REG_CNT_NUM), 1u << 22, "");
		TEST_ASSERT(io.bar_len >= TALLY_CNT_BANK_OFF + (16u << 20) + (16u << 16), "");
		tally_model_destroy(m);
	}
	cfg.wire = TALLY_WIRE_NONE;
	TEST_ASSERT_EQ(tally_model_create(&cfg, &m, err, sizeof(err)), 0, "%s", err);
	TEST_ASSERT_EQ(tally_model_wire_eof(m), 1, "none");
	tally_model_destroy(m);
	tally_model_destroy(NULL);
	return TEST_SUCCESS;
}

static const struct tally_test_case cases[] = {
	TEST_CASE(test_config_errors),
	TEST_CASE(test_config_defaults),
};

TEST_MAIN("model-config", cases)
