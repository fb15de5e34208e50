/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The device's bus: the memory a translation may name, and how this process
 * reaches it (tally_nic.h). Two kinds:
 *  - host transport: the ranges the driver shares over its socket, each
 *    mapped once when it arrives (MEM) and unmapped when it goes (MEM_DEL,
 *    detach), at its bus address when that is free here (the driver uses
 *    its own virtual addresses as bus and IOVA, so translations join);
 *  - PCI transport: QEMU guest RAM, bus = guest-physical address. Each
 *    translation maps its pages again at its IOVA when that is free here
 *    (so pages that are consecutive for the guest driver are consecutive
 *    for the device too), else points into the whole-RAM mapping.
 * Runs on the device thread only.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tally_nic.h"
#include "tally_plat.h"

/* q35 places RAM up to this size below 4 GiB; larger RAM keeps 2 GiB low
 * and the rest from 4 GiB on. */
#define NIC_Q35_LOWMEM_MAX	0xb0000000ull
#define NIC_Q35_LOWMEM_SPLIT	0x80000000ull
#define NIC_4G			0x100000000ull

/* len bytes of fd from off, at address `at` if this process has it free. */
static void *
nic_mmap_at(int fd, uint64_t off, uint64_t len, uint64_t at)
{
	void *p = MAP_FAILED;

	if (at != 0 && at + len > at)
		p = mmap((void *)(uintptr_t)at, len, PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_FIXED_NOREPLACE, fd, (off_t)off);
	if (p != MAP_FAILED && p != (void *)(uintptr_t)at) {
		/* a kernel that takes the address as a hint only */
		munmap(p, len);
		p = MAP_FAILED;
	}
	if (p == MAP_FAILED)
		p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)off);
	return p == MAP_FAILED ? NULL : p;
}

/* ---- guest RAM ------------------------------------------------------------ */

/* Offset in the RAM file of [gpa, gpa + len), or UINT64_MAX. */
static uint64_t
nic_guest_off(const struct nic *n, uint64_t gpa, uint64_t len)
{
	uint64_t off;

	if (gpa < n->guest_low)
		off = gpa;
	else if (gpa >= NIC_4G && gpa - NIC_4G < n->guest_len - n->guest_low)
		off = gpa - NIC_4G + n->guest_low;
	else
		return UINT64_MAX;
	if (len > n->guest_len - off)
		return UINT64_MAX;
	/* a range that crosses the end of low memory is not contiguous */
	if (off < n->guest_low && len > n->guest_low - off)
		return UINT64_MAX;
	return off;
}

static void *
nic_guest_bus_map(struct nic *n, uint64_t iova, uint64_t gpa, uint64_t len)
{
	uint64_t off = nic_guest_off(n, gpa, len);
	void *p;

	if (off == UINT64_MAX)
		return NULL;
	p = mmap((void *)(uintptr_t)iova, len, PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_FIXED_NOREPLACE, n->guest_fd, (off_t)off);
	if (p == (void *)(uintptr_t)iova) {
		n->mirrored += len;
		return p;
	}
	if (p != MAP_FAILED)
		munmap(p, len);
	return n->guest_ram + off;
}

static void
nic_guest_bus_unmap(struct nic *n, uint8_t *host, uint64_t len)
{
	uint8_t *lo = n->guest_ram, *hi = n->guest_ram + n->guest_len;
	uint8_t *end = host + len;

	/* munmap only what lies outside the whole-RAM mapping (mirrors) */
	if (host < lo) {
		uint8_t *cut = end < lo ? end : lo;

		munmap(host, (size_t)(cut - host));
		n->mirrored -= (uint64_t)(cut - host);
	}
	if (end > hi) {
		uint8_t *from = host > hi ? host : hi;

		munmap(from, (size_t)(end - from));
		n->mirrored -= (uint64_t)(end - from);
	}
}

int
nic_guest_map(struct nic *n, const char *path)
{
	struct stat st;
	void *p;
	int fd, rc;

	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		rc = -errno;
		fprintf(stderr, "tally-nic: --guest-ram %s: %s\n", path, strerror(errno));
		return rc;
	}
	/* the whole file is mapped and reached by DMA: a regular file of
	 * whole pages (QEMU's memory-backend-file) */
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= 0 ||
	    (uint64_t)st.st_size % (uint64_t)sysconf(_SC_PAGESIZE) != 0 ||
	    (uint64_t)st.st_size > SIZE_MAX) {
		fprintf(stderr, "tally-nic: --guest-ram %s: not a regular file of whole pages\n",
			path);
		close(fd);
		return -EINVAL;
	}
	p = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		rc = -errno;
		fprintf(stderr, "tally-nic: --guest-ram %s: mmap: %s\n", path, strerror(errno));
		close(fd);
		return rc;
	}
	n->guest_ram = p;
	n->guest_fd = fd;
	n->guest_len = (uint64_t)st.st_size;
	n->guest_low = n->guest_len <= NIC_Q35_LOWMEM_MAX ? n->guest_len :
		       NIC_Q35_LOWMEM_SPLIT;
	return 0;
}

void
nic_guest_unmap(struct nic *n)
{
	if (n->guest_ram == NULL)
		return;
	munmap(n->guest_ram, n->guest_len);
	close(n->guest_fd);
	n->guest_ram = NULL;
	n->guest_fd = -1;
}

/* ---- ranges shared over the socket ---------------------------------------- */

/* Index of the first range that ends after bus (nb_ranges when none). */
static unsigned int
nic_range_find(const struct nic *n, uint64_t bus)
{
	unsigned int lo = 0, hi = n->nb_ranges;

	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;
		const struct nic_range *r = &n->ranges[mid];

		if (r->bus + r->len <= bus)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Room for one more range (a split, an insert). */
static int
nic_range_room(struct nic *n)
{
	unsigned int cap = n->cap_ranges ? n->cap_ranges * 2 : 64;
	struct nic_range *nr;

	if (n->nb_ranges < n->cap_ranges)
		return 0;
	if (n->nb_ranges >= TALLY_HOSTIF_MAX_MEM)
		return -ENOSPC;
	nr = tally_zmalloc(sizeof(*nr) * cap);
	if (nr == NULL)
		return -ENOMEM;
	if (n->nb_ranges != 0)
		memcpy(nr, n->ranges, sizeof(*nr) * n->nb_ranges);
	tally_free(n->ranges);
	n->ranges = nr;
	n->cap_ranges = cap;
	return 0;
}

int
nic_range_add(struct nic *n, int fd, uint64_t bus, uint64_t len, uint64_t offset)
{
	uint64_t pg = (uint64_t)sysconf(_SC_PAGESIZE);
	struct stat st;
	unsigned int i;
	void *host;
	int rc, guard;

	if (len == 0 || bus + len - 1 < bus || offset + len < offset ||
	    bus % pg != 0 || len % pg != 0 || offset % pg != 0)
		return -EINVAL;
	/* the file must hold the range: a mapping past its end would SIGBUS */
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
	    offset + len > (uint64_t)st.st_size)
		return -EINVAL;
	i = nic_range_find(n, bus);
	if (i < n->nb_ranges && n->ranges[i].bus < bus + len)
		return -EEXIST;
	rc = nic_range_room(n);
	if (rc != 0)
		return rc;
	host = nic_mmap_at(fd, offset, len, bus);
	if (host == NULL)
		return -errno;
	/* the file may still shrink under the mapping: guarded */
	guard = nic_guard_add(host, len);
	if (guard < 0) {
		munmap(host, len);
		return guard;
	}
	memmove(&n->ranges[i + 1], &n->ranges[i], sizeof(n->ranges[0]) * (n->nb_ranges - i));
	n->ranges[i].bus = bus;
	n->ranges[i].len = len;
	n->ranges[i].host = host;
	n->ranges[i].guard = guard;
	n->nb_ranges++;
	n->shared_bytes += len;
	return 0;
}

/* Stop sharing [bus, bus + len): every page of it that was shared goes
 * (ranges only partly inside are cut); -ENOENT when none was. */
int
nic_range_del(struct nic *n, uint64_t bus, uint64_t len)
{
	uint64_t pg = (uint64_t)sysconf(_SC_PAGESIZE), end = bus + len;
	unsigned int i, gone = 0, kept = 0;
	uint32_t p;

	if (len == 0 || end < bus || bus % pg != 0 || len % pg != 0)
		return -EINVAL;
	i = nic_range_find(n, bus);
	while (i < n->nb_ranges && n->ranges[i].bus < end) {
		struct nic_range *r = &n->ranges[i];
		uint64_t lo = TALLY_MAX(r->bus, bus), hi = TALLY_MIN(r->bus + r->len, end);
		uint8_t *h = r->host + (lo - r->bus);

		if (lo > r->bus && hi < r->bus + r->len && nic_range_room(n) != 0) {
			i++;	/* cannot split: stays shared, and the driver hears */
			kept++;
			continue;
		}
		r = &n->ranges[i];	/* the array may have moved */
		/* translations into it go first: the device never touches
		 * memory it no longer shares */
		for (p = 0; p < n->nb_ports; p++)
			tally_model_xlt_forget_host(n->ports[p], h, hi - lo);
		munmap(h, hi - lo);
		n->shared_bytes -= hi - lo;
		gone++;
		if (lo == r->bus && hi == r->bus + r->len) {
			nic_guard_del(r->guard);
			memmove(r, r + 1, sizeof(*r) * (n->nb_ranges - i - 1));
			n->nb_ranges--;
		} else if (lo == r->bus) {
			r->host += hi - r->bus;
			r->len -= hi - r->bus;
			r->bus = hi;
			nic_guard_set(r->guard, r->host, r->len);
			i++;
		} else if (hi == r->bus + r->len) {
			r->len = lo - r->bus;
			nic_guard_set(r->guard, r->host, r->len);
			i++;
		} else {
			struct nic_range tail = {
				.bus = hi, .len = r->bus + r->len - hi,
				.host = r->host + (hi - r->bus),
			};

			/* a slot for the tail: there is one for every range
			 * there is room for */
			tail.guard = nic_guard_add(tail.host, tail.len);
			r->len = lo - r->bus;
			nic_guard_set(r->guard, r->host, r->len);
			memmove(r + 2, r + 1, sizeof(*r) * (n->nb_ranges - i - 1));
			r[1] = tail;
			n->nb_ranges++;
			i += 2;
		}
	}
	if (kept != 0)
		return -ENOSPC;
	return gone != 0 ? 0 : -ENOENT;
}

void
nic_ranges_clear(struct nic *n)
{
	unsigned int i;

	for (i = 0; i < n->nb_ranges; i++) {
		nic_guard_del(n->ranges[i].guard);
		munmap(n->ranges[i].host, n->ranges[i].len);
	}
	n->nb_ranges = 0;
	n->shared_bytes = 0;
}

/* ---- the bus -------------------------------------------------------------- */

void *
nic_bus_map(void *arg, uint64_t iova, uint64_t bus, uint64_t len)
{
	struct nic *n = arg;
	const struct nic_range *r;
	unsigned int i;

	if (n->guest_ram != NULL)
		return nic_guest_bus_map(n, iova, bus, len);
	i = nic_range_find(n, bus);
	if (i == n->nb_ranges)
		return NULL;
	r = &n->ranges[i];
	if (bus < r->bus || len > r->len - (bus - r->bus))
		return NULL;
	return r->host + (bus - r->bus);
}

void
nic_bus_unmap(void *arg, void *host, uint64_t len)
{
	struct nic *n = arg;

	if (n->guest_ram != NULL)
		nic_guest_bus_unmap(n, host, len);
	/* shared ranges stay mapped until MEM_DEL or detach */
}
