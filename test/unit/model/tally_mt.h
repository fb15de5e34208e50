/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Model test helpers: a tiny driver-like poster. It reaches the model only
 * the way a driver does: tally_io read32/write32, plain loads from the BAR,
 * and descriptor/completion rings in host memory one translation maps.
 */
#ifndef TALLY_MT_H
#define TALLY_MT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <tally/tally_desc.h>
#include <tally/tally_io.h>
#include <tally/tally_regs.h>

#include "tally_model.h"
#include "tally_plat.h"

#define MT_ARENA_LEN	(64u << 20)	/* mapped IOVA = VA at open */
#define MT_TX_SLOT	2048		/* bytes per Tx descriptor buffer */
#define MT_FRAME_MAX	16384

struct mt_dev {
	struct tally_model *m;
	struct tally_io io;
	uint8_t *arena;
	size_t used;
};

struct mt_rxq {
	struct mt_dev *d;
	uint32_t id, size;
	uint16_t buf_len;
	struct tally_rx_desc *ring;
	struct tally_rx_cqe *cq;
	uint8_t *bufs;
	uint32_t prod, cons;
};

struct mt_txq {
	struct mt_dev *d;
	uint32_t id, size;
	struct tally_tx_desc *ring;
	struct tally_tx_cqe *cq;
	uint8_t *bufs;
	uint32_t prod, cons;
};

struct mt_rx_info {
	uint32_t hash, mark;
	uint16_t flags;		/* OR of the frame's completion flags */
	uint8_t ptype, err;
	uint32_t ncqe;
};

/* Small-bank defaults (4096 counters, 64 completion counters, loop wire). */
void mt_config(struct tally_model_config *cfg);
/* Create the model (cfg NULL: mt_config), map the arena (IOVA = bus = VA). */
int mt_open(struct mt_dev *d, const struct tally_model_config *cfg);
/* A device of n ports (cfg[0..n)): d[i] is port i, each with its own
 * arena mapped in its own window. mt_close() every d[i]. */
int mt_open_ports(struct mt_dev *d, const struct tally_model_config *cfg, uint32_t n);
/* A translation command (enum tally_xlt_cmd); returns XLT_STATUS. */
uint32_t mt_xlt(struct mt_dev *d, uint32_t cmd, uint64_t iova, uint64_t bus, uint64_t len);
uint32_t mt_map(struct mt_dev *d, uint64_t iova, uint64_t bus, uint64_t len);
uint32_t mt_unmap(struct mt_dev *d, uint64_t iova, uint64_t len);
void mt_close(struct mt_dev *d);
uint32_t mt_rd(struct mt_dev *d, uint32_t off);
void mt_wr(struct mt_dev *d, uint32_t off, uint32_t val);
uint64_t mt_rd64(struct mt_dev *d, uint32_t off);	/* plain BAR load */
uint64_t mt_stat(struct mt_dev *d, enum tally_port_stat s);
/* Every port statistic into st[TALLY_STAT_NUM]. */
void mt_stats(struct mt_dev *d, uint64_t *st);
/* The first port statistic where b differs from a, or TALLY_STAT_NUM. */
unsigned int mt_stats_diff(const uint64_t *a, const uint64_t *b);
/* FNV-1a over n bytes, continuing from h (outcome fingerprints of tests
 * that run one input two ways). */
uint64_t mt_fnv(uint64_t h, const void *p, size_t n);
void *mt_alloc(struct mt_dev *d, size_t len);		/* 64-byte aligned */
unsigned int mt_service(struct mt_dev *d);
void mt_port(struct mt_dev *d, uint32_t ctrl);		/* CTRL = ENABLE | ctrl */

int mt_rxq_start(struct mt_dev *d, struct mt_rxq *q, uint32_t id, uint32_t log2,
		 uint16_t buf_len, bool scatter);
/* Next frame: its length (0 none, -1 error completion; info filled). */
int mt_rxq_recv(struct mt_rxq *q, uint8_t *out, uint32_t outlen,
		struct mt_rx_info *info);

int mt_txq_start(struct mt_dev *d, struct mt_txq *q, uint32_t id, uint32_t log2);
/* Post one frame over nseg segments (more if a slot is too small). */
int mt_tx_send(struct mt_txq *q, const uint8_t *frame, uint32_t len,
	       uint32_t nseg);
/* Post raw descriptors and ring the doorbell. */
int mt_tx_post(struct mt_txq *q, const struct tally_tx_desc *descs, uint32_t n);
/* Next Tx completion: 1 (copied to c) or 0. */
int mt_tx_reap(struct mt_txq *q, struct tally_tx_cqe *c);
/* Reap everything; returns completions seen, counts errors in *errors. */
uint32_t mt_tx_reap_all(struct mt_txq *q, uint32_t *errors);

/* Ethernet/IPv4/UDP frame of len bytes, payload from seed. */
void mt_udp_frame(uint8_t *buf, uint32_t len, const uint8_t dst[6],
		  uint32_t sip, uint32_t dip, uint16_t sport, uint16_t dport,
		  uint32_t seed);

#endif /* TALLY_MT_H */
