/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Helpers of the verbs tests: programs built against rdma-core's installed
 * headers and linked with libtally_verbs only. The library starts EAL with
 * its defaults (one net_tally0 port whose wire is a loopback).
 */
#ifndef TV_TEST_H
#define TV_TEST_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <arpa/inet.h>

#include <infiniband/verbs.h>
#include <infiniband/mlx5dv.h>
#include <tally_verbs.h>

#include "tally_test.h"

#define TV_BUF		2048
#define TV_NBUF		256

/* expr, a call that makes an object, fails: NULL, and errno err (msg a
 * string literal). */
#define TV_ASSERT_NULL_ERRNO(expr, err, msg) do {				\
	errno = 0;								\
	TEST_ASSERT((expr) == NULL, msg);					\
	TEST_ASSERT_EQ(errno, err, msg);					\
} while (0)

struct tv_qp {
	struct ibv_cq *cq;	/* receive completions */
	struct ibv_cq *scq;	/* send completions */
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	uint8_t *buf;		/* TV_NBUF receive slots + one send slot */
};

static struct ibv_context *tv_ctx;
static struct ibv_pd *tv_pd;

static inline int
tv_open(void)
{
	struct ibv_device **list;
	int n = 0;

	if (tv_ctx != NULL)
		return 0;
	list = ibv_get_device_list(&n);
	if (list == NULL || n < 1)
		return -1;
	tv_ctx = ibv_open_device(list[0]);
	ibv_free_device_list(list);
	if (tv_ctx == NULL)
		return -1;
	tv_pd = ibv_alloc_pd(tv_ctx);
	return tv_pd != NULL ? 0 : -1;
}

static inline uint64_t
tv_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* A flow attr of size bytes and nspecs specs at attr, and at eth its first
 * spec: ETH on destination MAC 02:00:00:00:00:last_mac (port 1, NORMAL).
 * Both may be members of a packed struct. */
static inline void
tv_eth_attr(void *attr, uint16_t size, uint8_t nspecs, void *eth, uint8_t last_mac)
{
	struct ibv_flow_attr fa;
	struct ibv_flow_spec_eth es;

	memset(&fa, 0, sizeof(fa));
	fa.type = IBV_FLOW_ATTR_NORMAL;
	fa.size = size;
	fa.num_of_specs = nspecs;
	fa.port = 1;
	memset(&es, 0, sizeof(es));
	es.type = IBV_FLOW_SPEC_ETH;
	es.size = sizeof(es);
	memset(es.mask.dst_mac, 0xff, 6);
	es.val.dst_mac[0] = 0x02;
	es.val.dst_mac[5] = last_mac;
	memcpy(attr, &fa, sizeof(fa));
	memcpy(eth, &es, sizeof(es));
}

/* A COUNT spec on counters c at s (which may be a packed member). */
static inline void
tv_count_spec(void *s, struct ibv_counters *c)
{
	struct ibv_flow_spec_counter_action cs;

	memset(&cs, 0, sizeof(cs));
	cs.type = IBV_FLOW_SPEC_ACTION_COUNT;
	cs.size = sizeof(cs);
	cs.counters = c;
	memcpy(s, &cs, sizeof(cs));
}

/* RAW_PACKET QP in INIT (rts = false) or RTS, with its own CQ and buffers. */
static inline int
tv_qp_create(struct tv_qp *t, bool rts)
{
	struct ibv_qp_init_attr ia;
	struct ibv_qp_attr qa;

	memset(t, 0, sizeof(*t));
	t->cq = ibv_create_cq(tv_ctx, 2 * TV_NBUF, NULL, NULL, 0);
	t->scq = ibv_create_cq(tv_ctx, 2 * TV_NBUF, NULL, NULL, 0);
	if (t->cq == NULL || t->scq == NULL)
		return -1;
	memset(&ia, 0, sizeof(ia));
	ia.send_cq = t->scq;
	ia.recv_cq = t->cq;
	ia.cap.max_send_wr = TV_NBUF;
	ia.cap.max_recv_wr = TV_NBUF;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	ia.qp_type = IBV_QPT_RAW_PACKET;
	t->qp = ibv_create_qp(tv_pd, &ia);
	if (t->qp == NULL)
		return -1;
	t->buf = calloc(TV_NBUF + 1, TV_BUF);
	t->mr = ibv_reg_mr(tv_pd, t->buf, (TV_NBUF + 1) * TV_BUF, IBV_ACCESS_LOCAL_WRITE);
	if (t->mr == NULL)
		return -1;
	memset(&qa, 0, sizeof(qa));
	qa.qp_state = IBV_QPS_INIT;
	qa.port_num = 1;
	if (ibv_modify_qp(t->qp, &qa, IBV_QP_STATE | IBV_QP_PORT))
		return -1;
	if (!rts)
		return 0;
	qa.qp_state = IBV_QPS_RTR;
	if (ibv_modify_qp(t->qp, &qa, IBV_QP_STATE))
		return -1;
	qa.qp_state = IBV_QPS_RTS;
	return ibv_modify_qp(t->qp, &qa, IBV_QP_STATE) ? -1 : 0;
}

static inline int
tv_qp_rts(struct tv_qp *t)
{
	struct ibv_qp_attr qa = { .qp_state = IBV_QPS_RTR };

	if (ibv_modify_qp(t->qp, &qa, IBV_QP_STATE))
		return -1;
	qa.qp_state = IBV_QPS_RTS;
	return ibv_modify_qp(t->qp, &qa, IBV_QP_STATE) ? -1 : 0;
}

static inline void
tv_qp_destroy(struct tv_qp *t)
{
	if (t->qp != NULL)
		ibv_destroy_qp(t->qp);
	if (t->mr != NULL)
		ibv_dereg_mr(t->mr);
	if (t->cq != NULL)
		ibv_destroy_cq(t->cq);
	if (t->scq != NULL)
		ibv_destroy_cq(t->scq);
	free(t->buf);
	memset(t, 0, sizeof(*t));
}

/* Open the device (once) and create t in RTS if it has no QP yet. */
static inline int
tv_setup(struct tv_qp *t)
{
	if (tv_open())
		return -1;
	if (t->qp == NULL && tv_qp_create(t, true))
		return -1;
	return 0;
}

/* Post n receive buffers (slot i: wr_id i). */
static inline int
tv_post_recv(struct tv_qp *t, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		struct ibv_sge sge = {
			.addr = (uintptr_t)(t->buf + (size_t)(i % TV_NBUF) * TV_BUF),
			.length = TV_BUF, .lkey = t->mr->lkey,
		};
		struct ibv_recv_wr wr = { .wr_id = i, .sg_list = &sge, .num_sge = 1 }, *bad;

		if (ibv_post_recv(t->qp, &wr, &bad))
			return -1;
	}
	return 0;
}

/* Send frame n times, signalled; wait for the n send completions. */
static inline int
tv_send(struct tv_qp *t, const uint8_t *frame, uint32_t len, unsigned int n)
{
	uint8_t *slot = t->buf + (size_t)TV_NBUF * TV_BUF;
	unsigned int i, done = 0;
	uint64_t t0 = tv_now_ms();

	memcpy(slot, frame, len);
	for (i = 0; i < n; i++) {
		struct ibv_sge sge = { .addr = (uintptr_t)slot, .length = len,
				       .lkey = t->mr->lkey };
		struct ibv_send_wr wr = { .wr_id = 1000 + i, .sg_list = &sge,
					  .num_sge = 1, .opcode = IBV_WR_SEND,
					  .send_flags = IBV_SEND_SIGNALED }, *bad;

		if (ibv_post_send(t->qp, &wr, &bad))
			return -1;
	}
	while (done < n && tv_now_ms() - t0 < 2000) {
		struct ibv_wc wc[16];
		int k, got = ibv_poll_cq(t->scq, 16, wc);

		for (k = 0; k < got; k++) {
			if (wc[k].status != IBV_WC_SUCCESS || wc[k].opcode != IBV_WC_SEND)
				return -1;
			done++;
		}
	}
	return done == n ? 0 : -1;
}

/* Poll receive completions until want arrived or 300 ms pass without any;
 * returns how many arrived (checking len when non-zero). */
static inline unsigned int
tv_recv(struct tv_qp *t, unsigned int want, uint32_t len)
{
	unsigned int got = 0;
	uint64_t last = tv_now_ms();

	while (tv_now_ms() - last < (got >= want ? 50u : 300u)) {
		struct ibv_wc wc[16];
		int k, n = ibv_poll_cq(t->cq, 16, wc);

		if (n > 0)
			last = tv_now_ms();
		for (k = 0; k < n; k++)
			if (wc[k].opcode == IBV_WC_RECV && wc[k].status == IBV_WC_SUCCESS &&
			    (len == 0 || wc[k].byte_len == len))
				got++;
	}
	return got;
}

/* Ethernet + IPv4 + UDP frame of len bytes. */
static inline void
tv_frame(uint8_t *f, uint32_t len, const uint8_t dst[6], const uint8_t src[6],
	 uint32_t sip, uint32_t dip, uint16_t sport, uint16_t dport)
{
	uint32_t i;
	uint16_t v;

	memset(f, 0, len);
	memcpy(f, dst, 6);
	memcpy(f + 6, src, 6);
	f[12] = 0x08;
	f[13] = 0x00;
	f[14] = 0x45;
	v = htons((uint16_t)(len - 14));
	memcpy(f + 16, &v, 2);
	f[22] = 64;
	f[23] = 17;
	sip = htonl(sip);
	dip = htonl(dip);
	memcpy(f + 26, &sip, 4);
	memcpy(f + 30, &dip, 4);
	v = htons(sport);
	memcpy(f + 34, &v, 2);
	v = htons(dport);
	memcpy(f + 36, &v, 2);
	v = htons((uint16_t)(len - 34));
	memcpy(f + 38, &v, 2);
	for (i = 42; i < len; i++)
		f[i] = (uint8_t)i;
}

#endif /* TV_TEST_H */
