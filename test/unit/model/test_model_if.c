/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The if wire over a veth pair inside a network namespace this test creates
 * (and always removes). Skipped when not root or without `ip`.
 */
#include <arpa/inet.h>
#include <fcntl.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tally_mt.h"
#include "tally_test.h"

static const uint8_t own_mac[6] = { 0x02, 0, 0, 0, 0, 0x33 };

struct ifenv {
	char ns[32], a[IFNAMSIZ], b[IFNAMSIZ];
	int self_ns;
};

static int
sh(const char *fmt, const char *x, const char *y, const char *z)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), fmt, x, y, z);
	return system(cmd);
}

static void
env_down(struct ifenv *e)
{
	sh("ip netns del %s >/dev/null 2>&1%s%s", e->ns, "", "");
}

static int
env_up(struct ifenv *e)
{
	int pid = (int)getpid() % 100000;

	snprintf(e->ns, sizeof(e->ns), "tallymt%d", pid);
	snprintf(e->a, sizeof(e->a), "tmta%d", pid);
	snprintf(e->b, sizeof(e->b), "tmtb%d", pid);
	env_down(e);
	if (sh("ip netns add %s%s%s", e->ns, "", "") != 0)
		return -1;
	if (sh("ip -n %s link add %s type veth peer name %s", e->ns, e->a, e->b) != 0 ||
	    sh("ip netns exec %s sysctl -qw net.ipv6.conf.all.disable_ipv6=1 >/dev/null 2>&1 || true%s%s",
	       e->ns, "", "") != 0 ||
	    sh("ip -n %s link set %s up && ip -n %s link set dev lo up", e->ns, e->a, e->ns) != 0 ||
	    sh("ip -n %s link set %s up%s", e->ns, e->b, "") != 0) {
		env_down(e);
		return -1;
	}
	return 0;
}

/* Run the next socket/model creation inside the namespace (this thread). */
static int
env_enter(struct ifenv *e)
{
	char path[64];
	int fd, rc;

	e->self_ns = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	snprintf(path, sizeof(path), "/run/netns/%s", e->ns);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (e->self_ns < 0 || fd < 0)
		return -1;
	rc = setns(fd, CLONE_NEWNET);
	close(fd);
	return rc;
}

static void
env_leave(struct ifenv *e)
{
	if (e->self_ns >= 0 && setns(e->self_ns, CLONE_NEWNET) != 0)
		perror("setns back");
	close(e->self_ns);
	e->self_ns = -1;
}

static int
peer_socket(const char *name)
{
	struct sockaddr_ll sll;
	int fd = socket(AF_PACKET, SOCK_RAW | SOCK_NONBLOCK, htons(ETH_P_ALL));

	memset(&sll, 0, sizeof(sll));
	sll.sll_family = AF_PACKET;
	sll.sll_protocol = htons(ETH_P_ALL);
	sll.sll_ifindex = (int)if_nametoindex(name);
	if (fd < 0 || sll.sll_ifindex == 0 ||
	    bind(fd, (struct sockaddr *)&sll, sizeof(sll)) != 0) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

static int
run(struct mt_dev *d, int peer)
{
	static uint8_t f[2048], r[2048];
	struct mt_rx_info info;
	struct mt_rxq rq;
	struct mt_txq tq;
	uint64_t deadline;
	uint32_t i, got = 0, seen = 0;
	ssize_t n;

	TEST_ASSERT_EQ(mt_rxq_start(d, &rq, 0, 7, 2048, false), 0, "rxq");
	TEST_ASSERT_EQ(mt_txq_start(d, &tq, 0, 7), 0, "txq");
	mt_port(d, 0);
	/* Linux -> model */
	for (i = 0; i < 50; i++) {
		mt_udp_frame(f, 100 + i, own_mac, i, 2, 3, 4, i);
		TEST_ASSERT_EQ(send(peer, f, 100 + i, 0), 100 + i, "peer send");
	}
	deadline = tally_time_ns() + 5000000000ull;
	while (got < 50 && tally_time_ns() < deadline) {
		mt_service(d);
		while ((n = mt_rxq_recv(&rq, r, sizeof(r), &info)) > 0) {
			mt_udp_frame(f, 100 + got, own_mac, got, 2, 3, 4, got);
			TEST_ASSERT(n == 100 + got && memcmp(f, r, (size_t)n) == 0,
				    "frame %u", got);
			got++;
		}
	}
	TEST_ASSERT_EQ(got, 50, "received from the interface");
	TEST_ASSERT_U64_EQ(mt_stat(d, TALLY_STAT_RX_PKTS), 50, "");
	/* model -> Linux; our own Tx must not come back */
	for (i = 0; i < 30; i++) {
		mt_udp_frame(f, 200, (const uint8_t[6]){ 0x02, 1, 1, 1, 1, 1 }, i, 2, 3, 4,
			     1000 + i);
		TEST_ASSERT_EQ(mt_tx_send(&tq, f, 200, 1 + i % 2), 0, "");
	}
	TEST_ASSERT_U64_EQ(mt_stat(d, TALLY_STAT_TX_PKTS), 30, "");
	deadline = tally_time_ns() + 5000000000ull;
	while (seen < 30 && tally_time_ns() < deadline) {
		n = recv(peer, r, sizeof(r), 0);
		if (n == 200 && r[6] == 0x02 && r[7] == 0x11) {
			mt_udp_frame(f, 200, (const uint8_t[6]){ 0x02, 1, 1, 1, 1, 1 }, seen,
				     2, 3, 4, 1000 + seen);
			TEST_ASSERT(memcmp(f, r, 200) == 0, "tx frame %u", seen);
			seen++;
		}
		mt_service(d);
	}
	TEST_ASSERT_EQ(seen, 30, "sent to the interface");
	for (i = 0; i < 20; i++)
		mt_service(d);
	TEST_ASSERT_U64_EQ(mt_stat(d, TALLY_STAT_RX_PKTS), 50, "own Tx not looped back");
	return TEST_SUCCESS;
}

static int
test_if_veth(void)
{
	struct tally_model_config cfg;
	struct ifenv e = { .self_ns = -1 };
	struct mt_dev d;
	int peer = -1, rc;

	memset(&d, 0, sizeof(d));
	if (geteuid() != 0 || system("ip -V >/dev/null 2>&1") != 0) {
		fprintf(stderr, "  skip: needs root and ip\n");
		return TEST_SKIPPED;
	}
	if (env_up(&e) != 0) {
		fprintf(stderr, "  skip: cannot create a netns with a veth pair\n");
		return TEST_SKIPPED;
	}
	mt_config(&cfg);
	cfg.wire = TALLY_WIRE_IF;
	cfg.iface = e.a;
	memcpy(cfg.mac, own_mac, 6);
	rc = env_enter(&e);
	if (rc == 0) {
		rc = mt_open(&d, &cfg);
		peer = rc == 0 ? peer_socket(e.b) : -1;
	}
	env_leave(&e);
	if (rc == 0 && peer >= 0)
		rc = run(&d, peer);
	else
		rc = TEST_FAILED;
	if (peer >= 0)
		close(peer);
	if (d.m != NULL)
		mt_close(&d);
	env_down(&e);
	return rc;
}

static const struct tally_test_case cases[] = {
	TEST_CASE(test_if_veth),
};

TEST_MAIN("model-if", cases)
