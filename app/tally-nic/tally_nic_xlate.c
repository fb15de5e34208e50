/* SPDX-License-Identifier: BSD-3-Clause */
/* Device-side address translation: driver memory ranges and guest RAM. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tally_nic.h"

/* q35 places RAM up to this size below 4 GiB; larger RAM keeps 2 GiB low
 * and the rest from 4 GiB on. */
#define NIC_Q35_LOWMEM_MAX	0xb0000000ull
#define NIC_Q35_LOWMEM_SPLIT	0x80000000ull
#define NIC_4G			0x100000000ull

static void *
nic_xlate_guest(const struct nic *n, uint64_t gpa, size_t len)
{
	uint64_t off;

	if (gpa < n->guest_low)
		off = gpa;
	else if (gpa >= NIC_4G && gpa - NIC_4G < n->guest_len - n->guest_low)
		off = gpa - NIC_4G + n->guest_low;
	else
		return NULL;
	if (len > n->guest_len - off)
		return NULL;
	/* a range that crosses the end of low memory is not contiguous */
	if (off < n->guest_low && len > n->guest_low - off)
		return NULL;
	return n->guest_ram + off;
}

void *
nic_xlate(void *arg, uint64_t iova, size_t len)
{
	struct nic *n = arg;
	const struct nic_range *r;
	unsigned int i, k;

	if (n->guest_ram != NULL)
		return nic_xlate_guest(n, iova, len);
	for (k = 0; k < n->nb_ranges; k++) {
		i = (n->last_hit + k) % n->nb_ranges;
		r = &n->ranges[i];
		if (iova < r->iova || iova - r->iova >= r->len ||
		    len > r->len - (iova - r->iova))
			continue;
		n->last_hit = i;
		return r->host + (iova - r->iova);
	}
	return NULL;
}

void
nic_ranges_clear(struct nic *n)
{
	unsigned int i;

	for (i = 0; i < n->nb_ranges; i++)
		munmap(n->ranges[i].map_base, n->ranges[i].map_len);
	n->nb_ranges = 0;
	n->last_hit = 0;
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
	if (fstat(fd, &st) != 0 || st.st_size <= 0) {
		fprintf(stderr, "tally-nic: --guest-ram %s: empty or unreadable\n", path);
		close(fd);
		return -EINVAL;
	}
	p = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (p == MAP_FAILED) {
		rc = -errno;
		fprintf(stderr, "tally-nic: --guest-ram %s: mmap: %s\n", path, strerror(errno));
		return rc;
	}
	n->guest_ram = p;
	n->guest_len = (uint64_t)st.st_size;
	n->guest_low = n->guest_len <= NIC_Q35_LOWMEM_MAX ? n->guest_len :
		       NIC_Q35_LOWMEM_SPLIT;
	return 0;
}
