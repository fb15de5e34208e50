/* SPDX-License-Identifier: BSD-3-Clause */
/* Model test helpers: see tally_mt.h. */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include "tally_mt.h"

void
mt_config(struct tally_model_config *cfg)
{
	tally_model_config_init(cfg);
	cfg->counters = 4096;
	cfg->comp_counters = 64;
}

uint32_t
mt_rd(struct mt_dev *d, uint32_t off)
{
	return d->io.ops->read32(d->io.ctx, off);
}

void
mt_wr(struct mt_dev *d, uint32_t off, uint32_t val)
{
	d->io.ops->write32(d->io.ctx, off, val);
}

uint64_t
mt_rd64(struct mt_dev *d, uint32_t off)
{
	return *(volatile const uint64_t *)(const volatile void *)(d->io.bar + off);
}

uint64_t
mt_stat(struct mt_dev *d, enum tally_port_stat s)
{
	return mt_rd64(d, TALLY_REG_STAT(s));
}

void
mt_stats(struct mt_dev *d, uint64_t *st)
{
	unsigned int i;

	for (i = 0; i < TALLY_STAT_NUM; i++)
		st[i] = mt_stat(d, (enum tally_port_stat)i);
}

unsigned int
mt_stats_diff(const uint64_t *a, const uint64_t *b)
{
	unsigned int i;

	for (i = 0; i < TALLY_STAT_NUM && a[i] == b[i]; i++)
		;
	return i;
}

uint64_t
mt_fnv(uint64_t h, const void *p, size_t n)
{
	const uint8_t *b = p;

	while (n-- > 0)
		h = (h ^ *b++) * 0x100000001b3ull;
	return h;
}

unsigned int
mt_service(struct mt_dev *d)
{
	return d->io.ops->service(d->io.ctx);
}

void
mt_port(struct mt_dev *d, uint32_t ctrl)
{
	mt_wr(d, TALLY_REG_CTRL, TALLY_CTRL_ENABLE | ctrl);
}

int
mt_open(struct mt_dev *d, const struct tally_model_config *cfg)
{
	struct tally_model_config def;
	char err[256];
	uint64_t base;
	int rc;

	memset(d, 0, sizeof(*d));
	if (cfg == NULL) {
		mt_config(&def);
		cfg = &def;
	}
	rc = tally_model_create(cfg, &d->m, err, sizeof(err));
	if (rc < 0)
		return rc;
	tally_model_io(d->m, &d->io);
	d->arena = mmap(NULL, MT_ARENA_LEN, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (d->arena == MAP_FAILED) {
		tally_model_destroy(d->m);
		return -ENOMEM;
	}
	base = (uint64_t)(uintptr_t)d->arena;
	if (mt_map(d, base, base, MT_ARENA_LEN) != TALLY_XLT_OK) {
		mt_close(d);
		return -EIO;
	}
	return 0;
}

int
mt_open_ports(struct mt_dev *d, const struct tally_model_config *cfg, uint32_t n)
{
	struct tally_model *m[TALLY_MAX_PORTS];
	char err[256];
	uint64_t base;
	uint32_t i;
	int rc;

	memset(d, 0, sizeof(*d) * n);
	rc = tally_model_create_ports(cfg, n, m, err, sizeof(err));
	if (rc < 0)
		return rc;
	for (i = 0; i < n; i++) {
		d[i].m = m[i];
		tally_model_io(m[i], &d[i].io);
	}
	for (i = 0; i < n; i++) {
		d[i].arena = mmap(NULL, MT_ARENA_LEN, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (d[i].arena == MAP_FAILED) {
			d[i].arena = NULL;
			rc = -ENOMEM;
			break;
		}
		base = (uint64_t)(uintptr_t)d[i].arena;
		if (mt_map(&d[i], base, base, MT_ARENA_LEN) != TALLY_XLT_OK) {
			rc = -EIO;
			break;
		}
	}
	if (rc < 0)
		for (i = 0; i < n; i++)
			mt_close(&d[i]);
	return rc;
}

static void
mt_wr64(struct mt_dev *d, uint32_t lo, uint64_t v)
{
	mt_wr(d, lo, (uint32_t)v);
	mt_wr(d, lo + 4, (uint32_t)(v >> 32));
}

uint32_t
mt_xlt(struct mt_dev *d, uint32_t cmd, uint64_t iova, uint64_t bus, uint64_t len)
{
	mt_wr64(d, TALLY_REG_XLT_IOVA_LO, iova);
	mt_wr64(d, TALLY_REG_XLT_BUS_LO, bus);
	mt_wr64(d, TALLY_REG_XLT_LEN_LO, len);
	mt_wr(d, TALLY_REG_XLT_CMD, cmd);
	return mt_rd(d, TALLY_REG_XLT_STATUS);
}

uint32_t
mt_map(struct mt_dev *d, uint64_t iova, uint64_t bus, uint64_t len)
{
	return mt_xlt(d, TALLY_XLT_CMD_MAP, iova, bus, len);
}

uint32_t
mt_unmap(struct mt_dev *d, uint64_t iova, uint64_t len)
{
	return mt_xlt(d, TALLY_XLT_CMD_UNMAP, iova, 0, len);
}

void
mt_close(struct mt_dev *d)
{
	tally_model_destroy(d->m);
	if (d->arena != NULL)
		munmap(d->arena, MT_ARENA_LEN);
	memset(d, 0, sizeof(*d));
}

void *
mt_alloc(struct mt_dev *d, size_t len)
{
	void *p;

	len = (len + 63) & ~(size_t)63;
	if (d->used + len > MT_ARENA_LEN)
		return NULL;
	p = d->arena + d->used;
	d->used += len;
	return p;
}

static void
mt_q_program(struct mt_dev *d, uint32_t base, const void *ring, const void *cq,
	     uint32_t log2, uint32_t ctrl)
{
	uint64_t r = (uint64_t)(uintptr_t)ring, c = (uint64_t)(uintptr_t)cq;

	mt_wr(d, base + TALLY_Q_RING_LO, (uint32_t)r);
	mt_wr(d, base + TALLY_Q_RING_HI, (uint32_t)(r >> 32));
	mt_wr(d, base + TALLY_Q_CQ_LO, (uint32_t)c);
	mt_wr(d, base + TALLY_Q_CQ_HI, (uint32_t)(c >> 32));
	mt_wr(d, base + TALLY_Q_SIZE, log2);
	mt_wr(d, base + TALLY_Q_CTRL, ctrl | TALLY_Q_CTRL_EN);
}

int
mt_rxq_start(struct mt_dev *d, struct mt_rxq *q, uint32_t id, uint32_t log2,
	     uint16_t buf_len, bool scatter)
{
	uint32_t i;

	memset(q, 0, sizeof(*q));
	q->d = d;
	q->id = id;
	q->size = 1u << log2;
	q->buf_len = buf_len;
	q->ring = mt_alloc(d, q->size * sizeof(*q->ring));
	q->cq = mt_alloc(d, q->size * sizeof(*q->cq));
	q->bufs = mt_alloc(d, (size_t)q->size * buf_len);
	if (q->ring == NULL || q->cq == NULL || q->bufs == NULL)
		return -ENOMEM;
	mt_q_program(d, TALLY_RXQ_REG(id, 0), q->ring, q->cq, log2,
		     scatter ? TALLY_Q_CTRL_SCATTER : 0);
	if (!(mt_rd(d, TALLY_RXQ_REG(id, TALLY_Q_CTRL)) & TALLY_Q_CTRL_EN))
		return -EINVAL;
	for (i = 0; i < q->size; i++) {
		q->ring[i].addr = (uint64_t)(uintptr_t)(q->bufs + (size_t)i * buf_len);
		q->ring[i].buf_len = buf_len;
	}
	q->prod = q->size;
	__atomic_thread_fence(__ATOMIC_RELEASE);
	mt_wr(d, TALLY_RXQ_REG(id, TALLY_Q_DOORBELL), q->prod);
	return 0;
}

static const struct tally_rx_cqe *
mt_rx_cqe(const struct mt_rxq *q, uint32_t idx)
{
	const struct tally_rx_cqe *c = &q->cq[idx & (q->size - 1)];
	uint8_t want = ((idx / q->size) & 1) ^ 1;

	/* pairs with the device's release store of phase */
	if (__atomic_load_n(&c->phase, __ATOMIC_ACQUIRE) != want)
		return NULL;
	return c;
}

int
mt_rxq_recv(struct mt_rxq *q, uint8_t *out, uint32_t outlen, struct mt_rx_info *info)
{
	const struct tally_rx_cqe *c;
	uint32_t n = 0, len = 0, k, slot;
	bool err = false;

	memset(info, 0, sizeof(*info));
	do {
		c = mt_rx_cqe(q, q->cons + n);
		if (c == NULL)
			return 0;	/* (rest of) frame not there yet */
		n++;
	} while (c->flags & TALLY_RXC_F_MORE);
	for (k = 0; k < n; k++) {
		c = mt_rx_cqe(q, q->cons + k);
		slot = (q->cons + k) & (q->size - 1);
		info->flags |= c->flags;
		if (k == 0) {
			info->hash = c->rss_hash;
			info->mark = c->mark;
			info->ptype = c->ptype;
		}
		if (c->flags & TALLY_RXC_F_ERR) {
			err = true;
			info->err = c->err;
		} else if (len + c->len <= outlen) {
			memcpy(out + len, q->bufs + (size_t)slot * q->buf_len, c->len);
			len += c->len;
		}
		/* repost the same buffer */
		q->ring[slot].addr = (uint64_t)(uintptr_t)(q->bufs + (size_t)slot * q->buf_len);
		q->ring[slot].buf_len = q->buf_len;
	}
	info->ncqe = n;
	q->cons += n;
	q->prod += n;
	__atomic_thread_fence(__ATOMIC_RELEASE);
	mt_wr(q->d, TALLY_RXQ_REG(q->id, TALLY_Q_DOORBELL), q->prod);
	return err ? -1 : (int)len;
}

int
mt_txq_start(struct mt_dev *d, struct mt_txq *q, uint32_t id, uint32_t log2)
{
	memset(q, 0, sizeof(*q));
	q->d = d;
	q->id = id;
	q->size = 1u << log2;
	q->ring = mt_alloc(d, q->size * sizeof(*q->ring));
	q->cq = mt_alloc(d, q->size * sizeof(*q->cq));
	q->bufs = mt_alloc(d, (size_t)q->size * MT_TX_SLOT);
	if (q->ring == NULL || q->cq == NULL || q->bufs == NULL)
		return -ENOMEM;
	mt_q_program(d, TALLY_TXQ_REG(id, 0), q->ring, q->cq, log2, 0);
	if (!(mt_rd(d, TALLY_TXQ_REG(id, TALLY_Q_CTRL)) & TALLY_Q_CTRL_EN))
		return -EINVAL;
	return 0;
}

int
mt_tx_post(struct mt_txq *q, const struct tally_tx_desc *descs, uint32_t n)
{
	uint32_t i;

	if (q->prod - q->cons + n > q->size)
		return -ENOSPC;
	for (i = 0; i < n; i++)
		q->ring[(q->prod + i) & (q->size - 1)] = descs[i];
	q->prod += n;
	__atomic_thread_fence(__ATOMIC_RELEASE);
	mt_wr(q->d, TALLY_TXQ_REG(q->id, TALLY_Q_DOORBELL), q->prod);
	return 0;
}

int
mt_tx_send(struct mt_txq *q, const uint8_t *frame, uint32_t len, uint32_t nseg)
{
	struct tally_tx_desc descs[TALLY_TX_MAX_SEGS];
	uint32_t i, off = 0, seg, slot;

	if (nseg == 0)
		nseg = 1;
	while ((len + nseg - 1) / nseg > MT_TX_SLOT)
		nseg++;
	if (nseg > TALLY_TX_MAX_SEGS || len < nseg)
		return -EINVAL;
	if (q->prod - q->cons + nseg > q->size)
		return -ENOSPC;
	for (i = 0; i < nseg; i++) {
		seg = i + 1 == nseg ? len - off : len / nseg;
		slot = (q->prod + i) & (q->size - 1);
		memcpy(q->bufs + (size_t)slot * MT_TX_SLOT, frame + off, seg);
		memset(&descs[i], 0, sizeof(descs[i]));
		descs[i].addr = (uint64_t)(uintptr_t)(q->bufs + (size_t)slot * MT_TX_SLOT);
		descs[i].len = (uint16_t)seg;
		descs[i].flags = i + 1 == nseg ? TALLY_TXD_F_EOP : 0;
		off += seg;
	}
	return mt_tx_post(q, descs, nseg);
}

int
mt_tx_reap(struct mt_txq *q, struct tally_tx_cqe *c)
{
	const struct tally_tx_cqe *e = &q->cq[q->cons & (q->size - 1)];
	uint8_t want = ((q->cons / q->size) & 1) ^ 1;

	if (q->cons == q->prod ||
	    __atomic_load_n(&e->phase, __ATOMIC_ACQUIRE) != want)
		return 0;
	*c = *e;
	q->cons++;
	return 1;
}

uint32_t
mt_tx_reap_all(struct mt_txq *q, uint32_t *errors)
{
	struct tally_tx_cqe c;
	uint32_t n = 0;

	while (mt_tx_reap(q, &c)) {
		n++;
		if (errors != NULL && c.status != TALLY_TXC_OK)
			(*errors)++;
	}
	return n;
}

static void
mt_put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void
mt_put32(uint8_t *p, uint32_t v)
{
	mt_put16(p, (uint16_t)(v >> 16));
	mt_put16(p + 2, (uint16_t)v);
}

void
mt_udp_frame(uint8_t *buf, uint32_t len, const uint8_t dst[6], uint32_t sip,
	     uint32_t dip, uint16_t sport, uint16_t dport, uint32_t seed)
{
	static const uint8_t src[6] = { 0x02, 0x11, 0x22, 0x33, 0x44, 0x55 };
	uint32_t i;

	memset(buf, 0, len);
	memcpy(buf, dst, 6);
	memcpy(buf + 6, src, 6);
	mt_put16(buf + 12, 0x0800);
	buf[14] = 0x45;
	mt_put16(buf + 16, (uint16_t)(len - 14));
	buf[22] = 64;
	buf[23] = 17;
	mt_put32(buf + 26, sip);
	mt_put32(buf + 30, dip);
	mt_put16(buf + 34, sport);
	mt_put16(buf + 36, dport);
	mt_put16(buf + 38, (uint16_t)(len - 34));
	for (i = 42; i < len; i++)
		buf[i] = (uint8_t)(seed * 31 + i * 7);
}
