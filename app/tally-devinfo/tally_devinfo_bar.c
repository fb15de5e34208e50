/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Reading the identity block of a Tally BAR through a file: a BAR file of
 * the device process, or a PCI function's sysfs resourceN file. One page is
 * mapped read-only and the registers are read with 32-bit little-endian
 * loads, as the driver reads them.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tally_devinfo.h"

static uint32_t
bar_rd32(const volatile uint8_t *bar, uint32_t off)
{
	return le32toh(*(const volatile uint32_t *)(bar + off));
}

static void
bar_read_id(const volatile uint8_t *bar, struct tally_devinfo_id *id)
{
	id->sig = bar_rd32(bar, TALLY_REG_SIG);
	id->version = bar_rd32(bar, TALLY_REG_VERSION);
	id->caps = bar_rd32(bar, TALLY_REG_CAPS);
	id->bar_size = bar_rd32(bar, TALLY_REG_BAR_SIZE);
	id->queues = bar_rd32(bar, TALLY_REG_QUEUES);
	id->ring_limits = bar_rd32(bar, TALLY_REG_RING_LIMITS);
	id->cnt_num = bar_rd32(bar, TALLY_REG_CNT_NUM);
	id->cnt_off = bar_rd32(bar, TALLY_REG_CNT_OFF);
	id->ccnt_num = bar_rd32(bar, TALLY_REG_CCNT_NUM);
	id->ccnt_off = bar_rd32(bar, TALLY_REG_CCNT_OFF);
	id->max_frame = bar_rd32(bar, TALLY_REG_MAX_FRAME);
	id->xlt_max = bar_rd32(bar, TALLY_REG_XLT_MAX);
	id->mac_lo = bar_rd32(bar, TALLY_REG_MAC_LO);
	id->mac_hi = bar_rd32(bar, TALLY_REG_MAC_HI);
	id->status = bar_rd32(bar, TALLY_REG_STATUS);
}

int
tally_devinfo_bar_read(const char *path, struct tally_devinfo_id *id,
		       uint64_t *len, char *err, size_t errlen)
{
	struct stat st;
	size_t maplen;
	void *bar;
	int fd, rc;

	memset(id, 0, sizeof(*id));
	*len = 0;
	/* O_NONBLOCK: a FIFO given by mistake must not block the open */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		rc = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(-rc));
		return rc;
	}
	if (fstat(fd, &st) != 0) {
		rc = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(-rc));
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		rc = -EINVAL;
		snprintf(err, errlen, "%s: not a regular file", path);
		goto out;
	}
	*len = (uint64_t)st.st_size;
	if (st.st_size < TALLY_DEVINFO_ID_LEN) {
		rc = -EINVAL;
		snprintf(err, errlen, "%s: %lld bytes, shorter than the %u-byte identity block",
			 path, (long long)st.st_size, TALLY_DEVINFO_ID_LEN);
		goto out;
	}
	maplen = st.st_size < 4096 ? (size_t)st.st_size : 4096;
	bar = mmap(NULL, maplen, PROT_READ, MAP_SHARED, fd, 0);
	if (bar == MAP_FAILED) {
		rc = -errno;
		snprintf(err, errlen, "%s: mmap: %s", path, strerror(-rc));
		goto out;
	}
	bar_read_id(bar, id);
	munmap(bar, maplen);
	rc = 0;
	if (id->sig != TALLY_SIGNATURE) {
		rc = -ENODEV;
		snprintf(err, errlen, "%s: no Tally signature (0x%08x at offset 0, expected 0x%08x)",
			 path, id->sig, TALLY_SIGNATURE);
	}
out:
	close(fd);
	return rc;
}

static void
problem(struct tally_devinfo_problems *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void
problem(struct tally_devinfo_problems *p, const char *fmt, ...)
{
	va_list ap;

	if (p->n >= TALLY_DEVINFO_MAX_PROBLEMS)
		return;
	va_start(ap, fmt);
	vsnprintf(p->msg[p->n++], sizeof(p->msg[0]), fmt, ap);
	va_end(ap);
}

unsigned int
tally_devinfo_id_check(const struct tally_devinfo_id *id, uint64_t len,
		       struct tally_devinfo_problems *p)
{
	uint32_t rxq = TALLY_FIELD_GET(id->queues, TALLY_QUEUES_RX_M);
	uint32_t txq = TALLY_FIELD_GET(id->queues, TALLY_QUEUES_TX_M);
	uint32_t rmin = TALLY_FIELD_GET(id->ring_limits, TALLY_RING_MIN_LOG2_M);
	uint32_t rmax = TALLY_FIELD_GET(id->ring_limits, TALLY_RING_MAX_LOG2_M);
	uint32_t major = TALLY_FIELD_GET(id->version, TALLY_VERSION_MAJOR_M);

	memset(p, 0, sizeof(*p));
	if (major != TALLY_SPEC_MAJOR)
		problem(p, "spec version %u.%u, this tool and the driver know %u.x",
			major, TALLY_FIELD_GET(id->version, TALLY_VERSION_MINOR_M),
			TALLY_SPEC_MAJOR);
	if (id->bar_size > len)
		problem(p, "BAR_SIZE %u exceeds the BAR (%llu bytes)",
			id->bar_size, (unsigned long long)len);
	if (rxq == 0 || txq == 0)
		problem(p, "no queues (rx %u, tx %u)", rxq, txq);
	if (rmin > rmax || rmax > 31)
		problem(p, "bad ring limits 2^%u..2^%u", rmin, rmax);
	if (id->max_frame < TALLY_DEVINFO_MIN_FRAME)
		problem(p, "max frame %u below %u", id->max_frame,
			TALLY_DEVINFO_MIN_FRAME);
	if ((id->cnt_off & 15) || (id->ccnt_off & 15))
		problem(p, "counter banks misaligned (0x%x, 0x%x)",
			id->cnt_off, id->ccnt_off);
	if ((uint64_t)id->cnt_off + (uint64_t)id->cnt_num * 16 > len)
		problem(p, "counter bank (%u at 0x%x) exceeds the BAR (%llu bytes)",
			id->cnt_num, id->cnt_off, (unsigned long long)len);
	if ((uint64_t)id->ccnt_off + (uint64_t)id->ccnt_num * 16 > len)
		problem(p, "completion counter bank (%u at 0x%x) exceeds the BAR (%llu bytes)",
			id->ccnt_num, id->ccnt_off, (unsigned long long)len);
	return p->n;
}
