/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The interface wire (wire=if) receiving what Linux sends: frames written to
 * a raw socket on the loopback interface of a network namespace of our own
 * arrive on the port exactly as written. Linux takes the outer VLAN tag out
 * of every frame it receives; the wire must put it back (its TPID and TCI),
 * and leave an untagged frame and the inner tag of a double-tagged one as
 * they are. Skipped when the namespace cannot be made (not root).
 */
#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tally_dpdk_test.h"

static bool own_netns;

struct wire_case {
	const char *name;
	uint16_t tags[2][2];	/* {TPID, TCI} outer first; TPID 0 = none */
};

static const struct wire_case wire_cases[] = {
	{ "untagged", { { 0, 0 } } },
	{ "c-tag", { { RTE_ETHER_TYPE_VLAN, 100 } } },
	{ "c-tag pcp 5 vid 0", { { RTE_ETHER_TYPE_VLAN, 5 << 13 } } },
	{ "s-tag", { { RTE_ETHER_TYPE_QINQ, 200 } } },
	{ "s-tag c-tag", { { RTE_ETHER_TYPE_QINQ, 300 }, { RTE_ETHER_TYPE_VLAN, 7 } } },
};

static int
lo_up(void)
{
	struct ifreq ifr;
	int fd = socket(AF_INET, SOCK_DGRAM, 0), rc = -1;

	if (fd < 0)
		return -1;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "lo");
	if (ioctl(fd, SIOCGIFFLAGS, &ifr) == 0) {
		ifr.ifr_flags |= IFF_UP;
		rc = ioctl(fd, SIOCSIFFLAGS, &ifr);
	}
	close(fd);
	return rc;
}

/* The frame of a case: to the port's MAC, its tags, IPv4, a payload. */
static uint32_t
wire_frame(const struct wire_case *c, const struct rte_ether_addr *dst,
	   uint8_t *f)
{
	uint32_t off = 0, i;
	uint16_t be;

	memcpy(f, dst->addr_bytes, RTE_ETHER_ADDR_LEN);
	memcpy(f + 6, "\x02\x00\x00\x00\x00\x09", RTE_ETHER_ADDR_LEN);
	off = 2 * RTE_ETHER_ADDR_LEN;
	for (i = 0; i < 2 && c->tags[i][0] != 0; i++) {
		be = htons(c->tags[i][0]);
		memcpy(f + off, &be, 2);
		be = htons(c->tags[i][1]);
		memcpy(f + off + 2, &be, 2);
		off += 4;
	}
	be = htons(RTE_ETHER_TYPE_IPV4);
	memcpy(f + off, &be, 2);
	off += 2;
	for (i = 0; i < 60; i++)
		f[off + i] = (uint8_t)(i * 7 + 1);
	return off + 60;
}

static int
test_vlan_back(void)
{
	struct tdt_port_conf pc = { .nb_rxq = 1, .nb_txq = 1 };
	struct sockaddr_ll sll;
	struct rte_ether_addr mac;
	struct rte_mbuf *m[4];
	uint8_t f[128];
	char name[32];
	unsigned int i, n;
	uint32_t len;
	int port, fd, rc = TEST_FAILED;

	if (!own_netns)
		return TEST_SKIPPED;
	TEST_ASSERT_EQ(lo_up(), 0, "lo up: %s", strerror(errno));
	port = tdt_port_create("wire=if,iface=lo", name, sizeof(name));
	TEST_ASSERT(port >= 0, "probe: %d", port);
	fd = socket(AF_PACKET, SOCK_RAW, 0);
	if (fd < 0 || tdt_port_setup(port, &pc) != 0 ||
	    rte_eth_macaddr_get(port, &mac) != 0) {
		printf("set-up: socket %d: %s\n", fd, strerror(errno));
		goto out;
	}
	memset(&sll, 0, sizeof(sll));
	sll.sll_family = AF_PACKET;
	sll.sll_ifindex = (int)if_nametoindex("lo");
	sll.sll_halen = RTE_ETHER_ADDR_LEN;
	for (i = 0; i < RTE_DIM(wire_cases); i++) {
		const struct wire_case *c = &wire_cases[i];

		len = wire_frame(c, &mac, f);
		if (sendto(fd, f, len, 0, (struct sockaddr *)&sll, sizeof(sll)) !=
		    (ssize_t)len) {
			printf("%s: send: %s\n", c->name, strerror(errno));
			goto out;
		}
		n = tdt_rx_all(port, 1, m, NULL, RTE_DIM(m), 1);
		if (n != 1) {
			printf("%s: %u frames received, 1 expected\n", c->name, n);
			tdt_free_all(m, RTE_MIN(n, (unsigned int)RTE_DIM(m)));
			goto out;
		}
		if (rte_pktmbuf_pkt_len(m[0]) != len || m[0]->nb_segs != 1 ||
		    memcmp(rte_pktmbuf_mtod(m[0], uint8_t *), f, len) != 0) {
			printf("%s: received %u bytes, not the %u sent\n", c->name,
			       rte_pktmbuf_pkt_len(m[0]), len);
			rte_pktmbuf_dump(stdout, m[0], 32);
			rte_pktmbuf_free(m[0]);
			goto out;
		}
		rte_pktmbuf_free(m[0]);
	}
	rc = TEST_SUCCESS;
out:
	if (fd >= 0)
		close(fd);
	tdt_port_destroy(port, name);
	return rc;
}

static const struct tally_test_case cases[] = {
	TEST_CASE(test_vlan_back),
};

int
main(void)
{
	int rc;

	/* a namespace of our own: nothing else sends on its lo */
	own_netns = unshare(CLONE_NEWNET) == 0;
	tdt_eal_init("tally-wireif");
	rc = tally_test_run("dpdk-wire-if", cases, RTE_DIM(cases));
	rte_eal_cleanup();
	return rc;
}
