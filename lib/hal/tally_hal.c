/* SPDX-License-Identifier: BSD-3-Clause */
#include <string.h>

#include "tally_hal.h"
#include "tally_hal_io.h"

static void
hal_write64(struct tally_hal_dev *dev, uint32_t lo, uint32_t hi, uint64_t v)
{
	tally_hal_write32(dev, lo, (uint32_t)v);
	tally_hal_write32(dev, hi, (uint32_t)(v >> 32));
}

static void
hal_lock(bool *l)
{
	while (__atomic_test_and_set(l, __ATOMIC_ACQUIRE))
		while (__atomic_load_n(l, __ATOMIC_RELAXED))
			tally_cpu_relax();
}

static void
hal_unlock(bool *l)
{
	__atomic_clear(l, __ATOMIC_RELEASE);
}

int
tally_hal_reset(struct tally_hal_dev *dev)
{
	uint64_t deadline = tally_time_ns() + TALLY_HAL_RESET_TIMEOUT_NS;

	tally_hal_write32(dev, TALLY_REG_RESET, TALLY_RESET_MAGIC);
	for (;;) {
		uint32_t st = tally_hal_read32(dev, TALLY_REG_STATUS);

		if ((st & TALLY_STATUS_READY) &&
		    tally_hal_read32(dev, TALLY_REG_RESET) == 0)
			return 0;
		if (tally_time_ns() > deadline) {
			TALLY_LOG(ERR, "device did not become ready (status 0x%x)",
				  st);
			return -ETIMEDOUT;
		}
		tally_hal_service(dev);
	}
}

static int
hal_read_identity(struct tally_hal_dev *dev)
{
	uint32_t v, mac_lo, mac_hi;

	dev->caps = tally_hal_read32(dev, TALLY_REG_CAPS);
	dev->bar_size = tally_hal_read32(dev, TALLY_REG_BAR_SIZE);
	v = tally_hal_read32(dev, TALLY_REG_QUEUES);
	dev->nb_rxq = TALLY_MIN(TALLY_FIELD_GET(v, TALLY_QUEUES_RX_M),
				TALLY_MAX_QUEUES);
	dev->nb_txq = TALLY_MIN(TALLY_FIELD_GET(v, TALLY_QUEUES_TX_M),
				TALLY_MAX_QUEUES);
	v = tally_hal_read32(dev, TALLY_REG_RING_LIMITS);
	dev->ring_min_log2 = TALLY_FIELD_GET(v, TALLY_RING_MIN_LOG2_M);
	dev->ring_max_log2 = TALLY_FIELD_GET(v, TALLY_RING_MAX_LOG2_M);
	dev->cnt_num = tally_hal_read32(dev, TALLY_REG_CNT_NUM);
	dev->cnt_off = tally_hal_read32(dev, TALLY_REG_CNT_OFF);
	dev->ccnt_num = tally_hal_read32(dev, TALLY_REG_CCNT_NUM);
	dev->ccnt_off = tally_hal_read32(dev, TALLY_REG_CCNT_OFF);
	dev->max_frame = tally_hal_read32(dev, TALLY_REG_MAX_FRAME);
	dev->xlt_max = tally_hal_read32(dev, TALLY_REG_XLT_MAX);
	mac_lo = tally_hal_read32(dev, TALLY_REG_MAC_LO);
	mac_hi = tally_hal_read32(dev, TALLY_REG_MAC_HI);
	dev->mac[0] = mac_lo & 0xff;
	dev->mac[1] = (mac_lo >> 8) & 0xff;
	dev->mac[2] = (mac_lo >> 16) & 0xff;
	dev->mac[3] = (mac_lo >> 24) & 0xff;
	dev->mac[4] = mac_hi & 0xff;
	dev->mac[5] = (mac_hi >> 8) & 0xff;
	dev->nb_ports = 1;
	if (tally_hal_version_minor(dev) >= 3) {
		v = tally_hal_read32(dev, TALLY_REG_PORT);
		dev->port_index = TALLY_FIELD_GET(v, TALLY_PORT_INDEX_M);
		dev->nb_ports = TALLY_FIELD_GET(v, TALLY_PORT_COUNT_M);
		dev->port_stride = tally_hal_read32(dev, TALLY_REG_PORT_STRIDE);
		if (dev->nb_ports == 0 || dev->nb_ports > TALLY_MAX_PORTS ||
		    dev->port_index >= dev->nb_ports ||
		    (dev->nb_ports > 1 && dev->port_stride == 0)) {
			TALLY_LOG(ERR, "bad port identity: port %u of %u, stride 0x%x",
				  dev->port_index, dev->nb_ports, dev->port_stride);
			return -EIO;
		}
	}

	if (dev->nb_rxq == 0 || dev->nb_txq == 0 ||
	    dev->ring_min_log2 > dev->ring_max_log2 || dev->ring_max_log2 > 31) {
		TALLY_LOG(ERR, "bad queue identity: rxq %u txq %u rings 2^%u..2^%u",
			  dev->nb_rxq, dev->nb_txq, dev->ring_min_log2,
			  dev->ring_max_log2);
		return -EIO;
	}
	/* sizes frames, buffers and the MTU the driver reports (16 bits) */
	if (dev->max_frame < 64 || dev->max_frame > UINT16_MAX) {
		TALLY_LOG(ERR, "bad largest frame: %u bytes", dev->max_frame);
		return -EIO;
	}
	if ((dev->cnt_off & 15) || (dev->ccnt_off & 15)) {
		TALLY_LOG(ERR, "counter banks misaligned (0x%x, 0x%x)",
			  dev->cnt_off, dev->ccnt_off);
		return -EIO;
	}
	if (dev->io.bar_len != 0 &&
	    ((uint64_t)dev->cnt_off + (uint64_t)dev->cnt_num * 16 > dev->io.bar_len ||
	     (uint64_t)dev->ccnt_off + (uint64_t)dev->ccnt_num * 16 > dev->io.bar_len)) {
		TALLY_LOG(ERR, "counter banks exceed the BAR (%zu bytes)",
			  dev->io.bar_len);
		return -EIO;
	}
	return 0;
}

int
tally_hal_open(struct tally_hal_dev *dev, const struct tally_io *io)
{
	uint32_t sig;
	int rc;

	memset(dev, 0, sizeof(*dev));
	if (io == NULL || io->ops == NULL || io->ops->read32 == NULL ||
	    io->ops->write32 == NULL || io->bar == NULL)
		return -EINVAL;
	dev->io = *io;
	dev->remote = io->ops->service == NULL;
	sig = tally_hal_read32(dev, TALLY_REG_SIG);
	if (sig != TALLY_SIGNATURE) {
		TALLY_LOG(ERR, "bad signature 0x%08x", sig);
		return -ENODEV;
	}
	dev->version = tally_hal_read32(dev, TALLY_REG_VERSION);
	if (tally_hal_version_major(dev) != TALLY_SPEC_MAJOR) {
		TALLY_LOG(ERR, "unsupported spec version %u.%u (driver knows %u.x)",
			  tally_hal_version_major(dev),
			  tally_hal_version_minor(dev), TALLY_SPEC_MAJOR);
		return -ENOTSUP;
	}
	rc = tally_hal_reset(dev);
	if (rc != 0)
		return rc;
	rc = hal_read_identity(dev);
	if (rc != 0)
		return rc;
	TALLY_LOG(INFO, "%s: spec %u.%u caps 0x%x rxq %u txq %u counters %u/%u",
		  io->ops->name ? io->ops->name : "?",
		  tally_hal_version_major(dev), tally_hal_version_minor(dev),
		  dev->caps, dev->nb_rxq, dev->nb_txq, dev->cnt_num,
		  dev->ccnt_num);
	return 0;
}

void
tally_hal_close(struct tally_hal_dev *dev)
{
	if (dev->io.ops == NULL)
		return;
	/* a device that is gone neither needs nor acknowledges a reset */
	if (!tally_hal_gone(dev))
		(void)tally_hal_reset(dev);
	dev->io.ops = NULL;
}

/* ---- DMA translation ------------------------------------------------------ */

static int
hal_xlt_errno(uint32_t st)
{
	switch (st) {
	case TALLY_XLT_OK:
		return 0;
	case TALLY_XLT_EEXIST:
		return -EEXIST;
	case TALLY_XLT_ENOENT:
		return -ENOENT;
	case TALLY_XLT_ENOSPC:
		return -ENOSPC;
	case TALLY_XLT_EBUS:
		return -EFAULT;
	default:
		return -EINVAL;
	}
}

static int
hal_xlt_cmd(struct tally_hal_dev *dev, enum tally_xlt_cmd cmd, uint64_t iova,
	    uint64_t bus, uint64_t len)
{
	uint32_t st;

	hal_lock(&dev->xlt_lock);
	hal_write64(dev, TALLY_REG_XLT_IOVA_LO, TALLY_REG_XLT_IOVA_HI, iova);
	hal_write64(dev, TALLY_REG_XLT_BUS_LO, TALLY_REG_XLT_BUS_HI, bus);
	hal_write64(dev, TALLY_REG_XLT_LEN_LO, TALLY_REG_XLT_LEN_HI, len);
	tally_hal_write32(dev, TALLY_REG_XLT_CMD, cmd);
	/* a read flushes the posted command: its status is there on return */
	st = tally_hal_read32(dev, TALLY_REG_XLT_STATUS);
	hal_unlock(&dev->xlt_lock);
	if (tally_hal_gone(dev))
		return -ENODEV;
	return hal_xlt_errno(st);
}

static bool
hal_xlt_range_ok(uint64_t a, uint64_t len)
{
	return len != 0 && a % TALLY_XLT_PAGE == 0 && len % TALLY_XLT_PAGE == 0 &&
	       a + len - 1 >= a;
}

int
tally_hal_xlt_map(struct tally_hal_dev *dev, uint64_t iova, uint64_t bus,
		  uint64_t len)
{
	if (!hal_xlt_range_ok(iova, len) || !hal_xlt_range_ok(bus, len))
		return -EINVAL;
	return hal_xlt_cmd(dev, TALLY_XLT_CMD_MAP, iova, bus, len);
}

int
tally_hal_xlt_unmap(struct tally_hal_dev *dev, uint64_t iova, uint64_t len)
{
	if (!hal_xlt_range_ok(iova, len))
		return -EINVAL;
	return hal_xlt_cmd(dev, TALLY_XLT_CMD_UNMAP, iova, 0, len);
}

int
tally_hal_xlt_clear(struct tally_hal_dev *dev)
{
	return hal_xlt_cmd(dev, TALLY_XLT_CMD_CLEAR, 0, 0, 0);
}

uint32_t
tally_hal_xlt_count(const struct tally_hal_dev *dev)
{
	return tally_hal_read32((struct tally_hal_dev *)(uintptr_t)dev,
				TALLY_REG_XLT_COUNT);
}

/* ---- queues ------------------------------------------------------------- */

static int
hal_q_create(struct tally_hal_dev *dev, uint32_t base, unsigned int qid,
	     unsigned int nq, uint64_t ring_iova, uint64_t cq_iova,
	     unsigned int log2_size)
{
	if (qid >= nq)
		return -EINVAL;
	if (log2_size < dev->ring_min_log2 || log2_size > dev->ring_max_log2) {
		TALLY_LOG(ERR, "queue %u: 2^%u entries outside 2^%u..2^%u", qid,
			  log2_size, dev->ring_min_log2, dev->ring_max_log2);
		return -EINVAL;
	}
	if ((ring_iova & 15) || (cq_iova & 7))
		return -EINVAL;
	tally_hal_write32(dev, base + TALLY_Q_CTRL, 0);
	hal_write64(dev, base + TALLY_Q_RING_LO, base + TALLY_Q_RING_HI,
		    ring_iova);
	hal_write64(dev, base + TALLY_Q_CQ_LO, base + TALLY_Q_CQ_HI, cq_iova);
	tally_hal_write32(dev, base + TALLY_Q_SIZE, log2_size);
	return 0;
}

int
tally_hal_rxq_create(struct tally_hal_dev *dev, unsigned int qid,
		     uint64_t ring_iova, uint64_t cq_iova,
		     unsigned int log2_size)
{
	return hal_q_create(dev, TALLY_RXQ_REG(qid, 0), qid, dev->nb_rxq,
			    ring_iova, cq_iova, log2_size);
}

int
tally_hal_txq_create(struct tally_hal_dev *dev, unsigned int qid,
		     uint64_t ring_iova, uint64_t cq_iova,
		     unsigned int log2_size)
{
	return hal_q_create(dev, TALLY_TXQ_REG(qid, 0), qid, dev->nb_txq,
			    ring_iova, cq_iova, log2_size);
}

int
tally_hal_rxq_enable(struct tally_hal_dev *dev, unsigned int qid, bool scatter)
{
	if (qid >= dev->nb_rxq)
		return -EINVAL;
	/* descriptors and the zeroed CQ are visible before the enable */
	tally_wmb();
	tally_hal_write32(dev, TALLY_RXQ_REG(qid, TALLY_Q_CTRL),
			  TALLY_Q_CTRL_EN | (scatter ? TALLY_Q_CTRL_SCATTER : 0));
	return 0;
}

int
tally_hal_txq_enable(struct tally_hal_dev *dev, unsigned int qid)
{
	if (qid >= dev->nb_txq)
		return -EINVAL;
	tally_wmb();
	tally_hal_write32(dev, TALLY_TXQ_REG(qid, TALLY_Q_CTRL), TALLY_Q_CTRL_EN);
	return 0;
}

int
tally_hal_rxq_disable(struct tally_hal_dev *dev, unsigned int qid)
{
	if (qid >= dev->nb_rxq)
		return -EINVAL;
	tally_hal_write32(dev, TALLY_RXQ_REG(qid, TALLY_Q_CTRL), 0);
	return 0;
}

int
tally_hal_txq_disable(struct tally_hal_dev *dev, unsigned int qid)
{
	if (qid >= dev->nb_txq)
		return -EINVAL;
	tally_hal_write32(dev, TALLY_TXQ_REG(qid, TALLY_Q_CTRL), 0);
	return 0;
}

static int
hal_q_ccnt(struct tally_hal_dev *dev, uint32_t off, uint32_t idx, bool en)
{
	if (en && idx >= dev->ccnt_num)
		return -EINVAL;
	tally_hal_write32(dev, off, en ? (TALLY_FIELD_PREP(TALLY_Q_CCNT_IDX_M, idx) |
					  TALLY_Q_CCNT_EN) : 0);
	return 0;
}

int
tally_hal_rxq_ccnt_attach(struct tally_hal_dev *dev, unsigned int qid,
			  uint32_t ccnt_idx, bool en)
{
	if (qid >= dev->nb_rxq)
		return -EINVAL;
	return hal_q_ccnt(dev, TALLY_RXQ_REG(qid, TALLY_Q_CCNT), ccnt_idx, en);
}

int
tally_hal_txq_ccnt_attach(struct tally_hal_dev *dev, unsigned int qid,
			  uint32_t ccnt_idx, bool en)
{
	if (qid >= dev->nb_txq)
		return -EINVAL;
	return hal_q_ccnt(dev, TALLY_TXQ_REG(qid, TALLY_Q_CCNT), ccnt_idx, en);
}

/* ---- port control ------------------------------------------------------- */

uint32_t
tally_hal_ctrl_get(const struct tally_hal_dev *dev)
{
	return tally_hal_read32(dev, TALLY_REG_CTRL);
}

void
tally_hal_ctrl_update(struct tally_hal_dev *dev, uint32_t set, uint32_t clear)
{
	uint32_t v = tally_hal_read32(dev, TALLY_REG_CTRL);

	v = (v & ~clear) | set;
	tally_hal_write32(dev, TALLY_REG_CTRL, v);
}

void
tally_hal_set_mtu(struct tally_hal_dev *dev, uint32_t mtu)
{
	tally_hal_write32(dev, TALLY_REG_MTU, mtu);
}

unsigned int
tally_hal_mac_filters(const struct tally_hal_dev *dev)
{
	return tally_hal_version_minor(dev) >= 1 ? TALLY_MAC_FILTERS : 1;
}

static int
hal_mac_idx_ok(const struct tally_hal_dev *dev, unsigned int idx)
{
	if (tally_hal_mac_filters(dev) == 1)
		return -ENOTSUP;
	return idx < TALLY_MAC_FILTERS ? 0 : -EINVAL;
}

/* An entry of a filter table whose LO register is at lo (HI follows):
 * invalid first, then LO, then HI with VALID: it takes effect at the HI
 * write (spec 2.1). */
static void
hal_filter_write(struct tally_hal_dev *dev, uint32_t lo, const uint8_t mac[6])
{
	tally_hal_write32(dev, lo + 4, 0);
	tally_hal_write32(dev, lo,
			  (uint32_t)mac[0] | (uint32_t)mac[1] << 8 |
			  (uint32_t)mac[2] << 16 | (uint32_t)mac[3] << 24);
	tally_hal_write32(dev, lo + 4,
			  TALLY_FIELD_PREP(TALLY_MAC_FILTER_BYTES_M,
					   (uint32_t)mac[4] | (uint32_t)mac[5] << 8) |
			  TALLY_MAC_FILTER_VALID);
}

int
tally_hal_mac_set(struct tally_hal_dev *dev, unsigned int idx, const uint8_t mac[6])
{
	int rc = hal_mac_idx_ok(dev, idx);

	if (rc != 0)
		return rc;
	hal_filter_write(dev, TALLY_REG_MAC_FILTER_LO(idx), mac);
	return 0;
}

int
tally_hal_mac_clear(struct tally_hal_dev *dev, unsigned int idx)
{
	int rc = hal_mac_idx_ok(dev, idx);

	if (rc != 0)
		return rc;
	tally_hal_write32(dev, TALLY_REG_MAC_FILTER_HI(idx), 0);
	return 0;
}

unsigned int
tally_hal_mc_filters(const struct tally_hal_dev *dev)
{
	return tally_hal_version_minor(dev) >= 2 ? TALLY_MC_FILTERS : 0;
}

int
tally_hal_mc_set(struct tally_hal_dev *dev, unsigned int idx, const uint8_t mac[6])
{
	if (tally_hal_mc_filters(dev) == 0)
		return -ENOTSUP;
	if (idx >= TALLY_MC_FILTERS)
		return -EINVAL;
	hal_filter_write(dev, TALLY_REG_MC_FILTER_LO(idx), mac);
	return 0;
}

int
tally_hal_mc_clear(struct tally_hal_dev *dev, unsigned int idx)
{
	if (tally_hal_mc_filters(dev) == 0)
		return -ENOTSUP;
	if (idx >= TALLY_MC_FILTERS)
		return -EINVAL;
	tally_hal_write32(dev, TALLY_REG_MC_FILTER_HI(idx), 0);
	return 0;
}

int
tally_hal_link_set(struct tally_hal_dev *dev, bool up)
{
	if (tally_hal_version_minor(dev) < 2)
		return -ENOTSUP;
	if (tally_hal_gone(dev))
		return -ENODEV;
	tally_hal_ctrl_update(dev, up ? 0 : TALLY_CTRL_LINK_DOWN,
			      up ? TALLY_CTRL_LINK_DOWN : 0);
	return 0;
}

bool
tally_hal_link_up(const struct tally_hal_dev *dev)
{
	uint32_t st;

	if (tally_hal_gone(dev))
		return false;
	st = tally_hal_read32(dev, TALLY_REG_STATUS);
	/* all ones: the function is gone (a removed PCIe device reads so) */
	return st != UINT32_MAX && (st & TALLY_STATUS_LINK_UP) != 0;
}

bool
tally_hal_gone(const struct tally_hal_dev *dev)
{
	return dev->io.ops == NULL ||
	       (dev->io.ops->state != NULL && dev->io.ops->state(dev->io.ctx) != 0);
}

void
tally_hal_rss_set_key(struct tally_hal_dev *dev, const uint8_t *key)
{
	unsigned int i;

	for (i = 0; i < TALLY_RSS_KEY_LEN / 4; i++) {
		const uint8_t *k = key + 4 * i;

		tally_hal_write32(dev, TALLY_REG_RSS_KEY(i),
				  (uint32_t)k[0] | (uint32_t)k[1] << 8 |
				  (uint32_t)k[2] << 16 | (uint32_t)k[3] << 24);
	}
}

int
tally_hal_rss_set_reta(struct tally_hal_dev *dev, const uint8_t *reta)
{
	unsigned int i;

	for (i = 0; i < TALLY_RSS_RETA_SIZE; i++)
		if (reta[i] >= dev->nb_rxq)
			return -EINVAL;
	for (i = 0; i < TALLY_RSS_RETA_SIZE / 4; i++) {
		const uint8_t *r = reta + 4 * i;

		tally_hal_write32(dev, TALLY_REG_RSS_RETA(i),
				  (uint32_t)r[0] | (uint32_t)r[1] << 8 |
				  (uint32_t)r[2] << 16 | (uint32_t)r[3] << 24);
	}
	return 0;
}

void
tally_hal_rss_set_hf(struct tally_hal_dev *dev, uint32_t hf)
{
	tally_hal_write32(dev, TALLY_REG_RSS_HF, hf);
}

/* ---- statistics and faults ---------------------------------------------- */

uint64_t
tally_hal_port_stat(const struct tally_hal_dev *dev, enum tally_port_stat s)
{
	if ((unsigned int)s >= TALLY_STAT_NUM)
		return 0;
	return tally_hal_read64(dev, TALLY_REG_STAT(s));
}

void
tally_hal_port_stats(const struct tally_hal_dev *dev,
		     uint64_t st[TALLY_STAT_NUM])
{
	unsigned int i;

	for (i = 0; i < TALLY_STAT_NUM; i++)
		st[i] = tally_hal_read64(dev, TALLY_REG_STAT(i));
}

static void
hal_q_stats(const struct tally_hal_dev *dev, uint32_t base,
	    struct tally_hal_qstats *st)
{
	st->packets = tally_hal_read64(dev, base + TALLY_Q_STAT_PKTS);
	st->bytes = tally_hal_read64(dev, base + TALLY_Q_STAT_BYTES);
	st->drops = tally_hal_read64(dev, base + TALLY_Q_STAT_DROPS);
	st->errors = tally_hal_read64(dev, base + TALLY_Q_STAT_ERRORS);
}

int
tally_hal_rxq_stats(const struct tally_hal_dev *dev, unsigned int qid,
		    struct tally_hal_qstats *st)
{
	if (qid >= dev->nb_rxq)
		return -EINVAL;
	hal_q_stats(dev, TALLY_RXQ_REG(qid, 0), st);
	return 0;
}

int
tally_hal_txq_stats(const struct tally_hal_dev *dev, unsigned int qid,
		    struct tally_hal_qstats *st)
{
	if (qid >= dev->nb_txq)
		return -EINVAL;
	hal_q_stats(dev, TALLY_TXQ_REG(qid, 0), st);
	return 0;
}

void
tally_hal_fault_read(struct tally_hal_dev *dev, struct tally_hal_fault *f,
		     bool clear)
{
	f->count = tally_hal_read32(dev, TALLY_REG_FAULT_CNT);
	if (f->count == UINT32_MAX && tally_hal_gone(dev)) {
		/* every register reads all ones now */
		memset(f, 0, sizeof(*f));
		f->count = __atomic_load_n(&dev->fault_count, __ATOMIC_RELAXED);
		return;
	}
	__atomic_store_n(&dev->fault_count, f->count, __ATOMIC_RELAXED);
	f->cause = tally_hal_read32(dev, TALLY_REG_FAULT_CAUSE);
	f->addr = (uint64_t)tally_hal_read32(dev, TALLY_REG_FAULT_ADDR_HI) << 32 |
		  tally_hal_read32(dev, TALLY_REG_FAULT_ADDR_LO);
	f->pending = (tally_hal_read32(dev, TALLY_REG_STATUS) &
		      TALLY_STATUS_FAULT) != 0;
	if (clear && f->cause != 0)
		tally_hal_write32(dev, TALLY_REG_FAULT_CAUSE, f->cause);
}

const char *
tally_hal_fault_str(uint32_t cause)
{
	switch (cause) {
	case TALLY_FAULT_NONE: return "none";
	case TALLY_FAULT_DMA: return "dma";
	case TALLY_FAULT_BAD_REG: return "bad-register";
	case TALLY_FAULT_BAD_DESC: return "bad-descriptor";
	case TALLY_FAULT_BAD_QUEUE: return "bad-queue";
	case TALLY_FAULT_BAD_STEER: return "bad-steering-entry";
	default: return "unknown";
	}
}

/* ---- completion counters ------------------------------------------------ */

int
tally_hal_ccnt_cmd(struct tally_hal_dev *dev, uint32_t idx,
		   enum tally_ccnt_cmd cmd, uint64_t val)
{
	if (idx >= dev->ccnt_num)
		return -EINVAL;
	if (cmd < TALLY_CCNT_CMD_SET_COMP || cmd > TALLY_CCNT_CMD_ADD_ERR)
		return -EINVAL;
	hal_lock(&dev->ccnt_lock);
	tally_hal_write32(dev, TALLY_REG_CCNT_IDX, idx);
	hal_write64(dev, TALLY_REG_CCNT_VAL_LO, TALLY_REG_CCNT_VAL_HI, val);
	tally_hal_write32(dev, TALLY_REG_CCNT_CMD, cmd);
	/* a read flushes the posted command: the bank shows it on return */
	(void)tally_hal_read32(dev, TALLY_REG_CCNT_IDX);
	hal_unlock(&dev->ccnt_lock);
	return tally_hal_gone(dev) ? -ENODEV : 0;
}
