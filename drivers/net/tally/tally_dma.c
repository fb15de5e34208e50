/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The device's view of host memory: its translation table (tally_regs.h,
 * "DMA translation"), kept equal to the memory EAL has.
 *
 * IOVA = the driver's virtual address. Rings, buffers and steering
 * structures all carry virtual addresses, as verbs providers use memory
 * keys over virtual addresses; the table translates each page of EAL memory
 * IOVA = VA -> the transport's bus address (enum tally_dma_bus):
 *  - in-process model: the process's own address space, bus = VA;
 *  - device process: bus = VA as well, each range first shared over the
 *    socket as (fd, offset) (tally_hostif.c);
 *  - PCI function: EAL's IOVA of the segment, what the IOMMU maps; for the
 *    software device behind ivshmem, which reads guest RAM outside the
 *    IOMMU, the guest-physical address (EAL's IOVA with IOVA as PA, the
 *    page's physical address with IOVA as VA).
 * The device therefore does the same work in IOVA-as-PA and IOVA-as-VA
 * mode, and a buffer that is contiguous for the driver is contiguous for
 * the device.
 *
 * Life cycle: tally_dma_init() (probe) maps the memory there is and
 * registers a memory event callback, so memory EAL allocates later is
 * mapped before the allocator hands it out, and memory EAL frees is
 * unmapped (the device no longer reaches it) before it goes. External
 * memory comes through rte_dev_dma_map() (tally_dma_map()).
 * tally_dma_fini() (close) unregisters and unmaps everything.
 *
 * Threads: the event callback runs on whichever thread made EAL allocate or
 * free, with EAL's memory lock held, so it uses only the _thread_unsafe
 * memseg calls and plain malloc; one mutex serialises it with probe, close
 * and dma_map. Primary process only.
 */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_eal_memconfig.h>
#include <rte_malloc.h>
#include <rte_memory.h>

#include "tally_dma.h"
#include "tally_pmd.h"
#include "tally_flow.h"
#include "tally_logs.h"

/* A run of pages contiguous in VA, in bus address and (shared ranges) in
 * their file. */
struct dma_run {
	uint64_t va, len, bus, off;
	int fd;
};

struct dma_runs {
	struct tally_dma *d;
	struct dma_run *r;
	unsigned int n, cap;
	int rc;
};

/* An rte_dev_dma_map() mapping, kept to undo at close. */
struct dma_ext {
	uint64_t va, len;
};

#define DMA_EXT_MAX	256

struct tally_dma {
	struct tally_adapter *ad;
	enum tally_dma_bus bus;
	const struct tally_dma_share_ops *share;
	void *share_ctx;
	pthread_mutex_t lock;
	char cb_name[96];
	bool cb_on;
	uint64_t win_va, win_len;	/* steering window mapped, or 0 */
	struct dma_ext ext[DMA_EXT_MAX];
	unsigned int nb_ext;
	struct tally_dma_stats st;
};

/* ---- runs ----------------------------------------------------------------- */

static int
dma_runs_push(struct dma_runs *w, const struct dma_run *r)
{
	struct dma_run *last = w->n ? &w->r[w->n - 1] : NULL;

	if (last != NULL && last->va + last->len == r->va &&
	    last->bus + last->len == r->bus && last->fd == r->fd &&
	    (r->fd < 0 || last->off + last->len == r->off)) {
		last->len += r->len;
		return 0;
	}
	if (w->n == w->cap) {
		unsigned int cap = w->cap ? w->cap * 2 : 64;
		struct dma_run *nr = realloc(w->r, sizeof(*nr) * cap);

		if (nr == NULL)
			return -ENOMEM;
		w->r = nr;
		w->cap = cap;
	}
	w->r[w->n++] = *r;
	return 0;
}

/* Bus address of [va, va + len) of segment ms, or RTE_BAD_IOVA. */
static uint64_t
dma_bus_of(const struct tally_dma *d, const struct rte_memseg *ms, uint64_t va)
{
	uint64_t off = va - (uint64_t)(uintptr_t)ms->addr;

	switch (d->bus) {
	case TALLY_DMA_BUS_VA:
	case TALLY_DMA_BUS_HOST:
		return va;
	case TALLY_DMA_BUS_IOVA:
		return ms->iova == RTE_BAD_IOVA ? RTE_BAD_IOVA : ms->iova + off;
	case TALLY_DMA_BUS_GPA:
		if (rte_eal_iova_mode() == RTE_IOVA_PA && ms->iova != RTE_BAD_IOVA)
			return ms->iova + off;
		return rte_mem_virt2phy((void *)(uintptr_t)va);
	}
	return RTE_BAD_IOVA;
}

/* Add the pages [va, va + len) of segment ms to the runs. */
static int
dma_runs_add_seg(struct dma_runs *w, const struct rte_memseg *ms)
{
	struct dma_run r = { .fd = -1 };
	size_t off;

	r.va = (uint64_t)(uintptr_t)ms->addr;
	r.len = ms->len;
	r.bus = dma_bus_of(w->d, ms, r.va);
	if (r.bus == RTE_BAD_IOVA) {
		TALLY_DRV_LOG(ERR, "EAL memory at %p has no bus address for the device",
			      ms->addr);
		return -EFAULT;
	}
	if (w->d->bus == TALLY_DMA_BUS_HOST) {
		r.fd = rte_memseg_get_fd_thread_unsafe(ms);
		if (r.fd < 0 || rte_memseg_get_fd_offset_thread_unsafe(ms, &off) != 0) {
			TALLY_DRV_LOG(ERR, "EAL memory at %p has no file descriptor: the device process cannot reach it",
				      ms->addr);
			return -ENOTSUP;
		}
		r.off = off;
	}
	return dma_runs_push(w, &r);
}

static int
dma_walk_cb(const struct rte_memseg_list *msl, const struct rte_memseg *ms,
	    void *arg)
{
	struct dma_runs *w = arg;

	if (msl->external)
		return 0;	/* the application maps it: rte_dev_dma_map() */
	w->rc = dma_runs_add_seg(w, ms);
	return w->rc != 0 ? -1 : 0;
}

/* ---- the device ----------------------------------------------------------- */

/* Share and translate the runs; on failure undo what was done. Lock held. */
static int
dma_map_runs(struct tally_dma *d, const struct dma_runs *w)
{
	struct tally_hal_dev *hal = &d->ad->hal;
	unsigned int i, shared = 0, mapped = 0;
	int rc = 0;

	if (d->share != NULL) {
		for (i = 0; i < w->n && rc == 0; i++, shared++)
			rc = d->share->add(d->share_ctx, w->r[i].fd, w->r[i].bus,
					   w->r[i].len, w->r[i].off);
		if (rc == 0)
			rc = d->share->sync(d->share_ctx);
	}
	for (i = 0; i < w->n && rc == 0; i++, mapped++)
		rc = tally_hal_xlt_map(hal, w->r[i].va, w->r[i].bus, w->r[i].len);
	if (rc == 0) {
		d->st.maps += w->n;
		for (i = 0; i < w->n; i++)
			d->st.mapped_bytes += w->r[i].len;
		return 0;
	}
	TALLY_DRV_LOG(ERR, "port %u: cannot give the device %" PRIu64 " bytes at 0x%" PRIx64 ": %s",
		      d->ad->eth_dev->data->port_id,
		      w->r[mapped < w->n ? mapped : w->n - 1].len,
		      w->r[mapped < w->n ? mapped : w->n - 1].va, strerror(-rc));
	d->st.map_errors++;
	for (i = 0; i < mapped; i++)
		(void)tally_hal_xlt_unmap(hal, w->r[i].va, w->r[i].len);
	if (d->share != NULL) {
		for (i = 0; i < shared && i < w->n; i++)
			(void)d->share->del(d->share_ctx, w->r[i].bus, w->r[i].len);
		(void)d->share->sync(d->share_ctx);
	}
	return rc;
}

/* The device stops reaching [va, va + len) (bus the same, shared ranges). */
static void
dma_unmap_range(struct tally_dma *d, uint64_t va, uint64_t len, uint64_t bus)
{
	int rc = tally_hal_xlt_unmap(&d->ad->hal, va, len);

	if (rc != 0 && rc != -ENOENT) {
		TALLY_DRV_LOG(ERR, "port %u: unmap of 0x%" PRIx64 " (+%" PRIu64 "): %s",
			      d->ad->eth_dev->data->port_id, va, len, strerror(-rc));
		d->st.map_errors++;
	}
	/* memory never mapped (its map failed) was never shared either */
	if (d->share != NULL && rc != -ENOENT) {
		(void)d->share->del(d->share_ctx, bus, len);
		(void)d->share->sync(d->share_ctx);
	}
	d->st.unmaps++;
	if (rc == 0)
		d->st.mapped_bytes -= RTE_MIN(d->st.mapped_bytes, len);
}

/* ---- memory events -------------------------------------------------------- */

static void
dma_mem_event(enum rte_mem_event type, const void *addr, size_t len, void *arg)
{
	struct tally_dma *d = arg;
	const struct rte_memseg_list *msl = rte_mem_virt2memseg_list(addr);
	struct dma_runs w = { .d = d };
	size_t pg, off;

	if (msl == NULL || msl->external || msl->page_sz == 0)
		return;
	/* a device that is gone reaches no memory: nothing to give or take */
	if (tally_hal_gone(&d->ad->hal))
		return;
	pg = msl->page_sz;
	pthread_mutex_lock(&d->lock);
	if (type == RTE_MEM_EVENT_FREE) {
		/* before EAL unmaps it: the device lets go first */
		dma_unmap_range(d, (uintptr_t)addr, len,
				d->bus == TALLY_DMA_BUS_HOST ? (uintptr_t)addr : 0);
		pthread_mutex_unlock(&d->lock);
		return;
	}
	for (off = 0; off < len && w.rc == 0; off += pg) {
		const struct rte_memseg *ms =
			rte_mem_virt2memseg(RTE_PTR_ADD(addr, off), msl);

		w.rc = ms != NULL ? dma_runs_add_seg(&w, ms) : -EFAULT;
	}
	if (w.rc == 0)
		w.rc = dma_map_runs(d, &w);
	if (w.rc != 0) {
		TALLY_DRV_LOG(ERR, "port %u: memory EAL allocated at %p (%zu bytes) is not reachable by the device: %s",
			      d->ad->eth_dev->data->port_id, addr, len, strerror(-w.rc));
		d->st.map_errors++;
	}
	pthread_mutex_unlock(&d->lock);
	free(w.r);
}

/* ---- external memory ------------------------------------------------------ */

/* The file behind [va, va + len) of this process (one mapping), for the
 * device process: its fd and offset, or -errno (anonymous memory). */
static int
dma_file_of(uint64_t va, uint64_t len, uint64_t *off)
{
	char line[512], path[128];
	unsigned long long lo, hi, foff;
	int fd = -ENOENT;
	FILE *f = fopen("/proc/self/maps", "r");

	if (f == NULL)
		return -errno;
	while (fgets(line, sizeof(line), f) != NULL) {
		char perms[8];
		int inode_end = 0;

		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s%n", &lo, &hi, perms,
			   &foff, &inode_end) < 4)
			continue;
		if (va < lo || va >= hi)
			continue;
		if (va + len > hi) {
			fd = -EINVAL;	/* more than one mapping */
			break;
		}
		if (strchr(perms, 's') == NULL) {
			fd = -ENOTSUP;	/* private memory cannot be shared */
			break;
		}
		snprintf(path, sizeof(path), "/proc/self/map_files/%llx-%llx", lo, hi);
		fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			fd = -errno;
		*off = foff + (va - lo);
		break;
	}
	fclose(f);
	return fd;
}

int
tally_dma_map(struct tally_adapter *ad, void *addr, uint64_t iova, size_t len)
{
	struct tally_dma *d = ad->dma;
	uint64_t va = (uintptr_t)addr, p;
	struct dma_runs w;
	int rc = 0;

	if (d == NULL)
		return -ENODEV;
	if (len == 0 || va % TALLY_XLT_PAGE != 0 || len % TALLY_XLT_PAGE != 0 ||
	    (iova != RTE_BAD_IOVA && iova % TALLY_XLT_PAGE != 0))
		return -EINVAL;
	memset(&w, 0, sizeof(w));
	w.d = d;
	pthread_mutex_lock(&d->lock);
	if (d->nb_ext == DMA_EXT_MAX) {
		rc = -ENOSPC;
		goto out;
	}
	for (p = 0; p < len && rc == 0; p += TALLY_XLT_PAGE) {
		struct dma_run r = { .va = va + p, .len = TALLY_XLT_PAGE, .fd = -1 };

		switch (d->bus) {
		case TALLY_DMA_BUS_VA:
		case TALLY_DMA_BUS_HOST:
			r.bus = r.va;
			break;
		case TALLY_DMA_BUS_IOVA:
			r.bus = iova == RTE_BAD_IOVA ? RTE_BAD_IOVA : iova + p;
			break;
		case TALLY_DMA_BUS_GPA:
			r.bus = rte_mem_virt2phy((void *)(uintptr_t)r.va);
			break;
		}
		rc = r.bus == RTE_BAD_IOVA ? -EFAULT : dma_runs_push(&w, &r);
	}
	if (rc == 0 && d->bus == TALLY_DMA_BUS_HOST) {
		int fd = dma_file_of(va, len, &p);

		if (fd < 0) {
			TALLY_DRV_LOG(ERR, "port %u: external memory at %p: the device process reaches only shared file-backed memory: %s",
				      ad->eth_dev->data->port_id, addr, strerror(-fd));
			rc = fd;
		} else {
			w.r[0].fd = fd;
			w.r[0].off = p;
			w.n = 1;	/* one mapping: one run */
			w.r[0].len = len;
		}
	}
	if (rc == 0)
		rc = dma_map_runs(d, &w);
	if (w.n != 0 && w.r[0].fd >= 0)
		close(w.r[0].fd);
	if (rc == 0) {
		d->ext[d->nb_ext].va = va;
		d->ext[d->nb_ext].len = len;
		d->nb_ext++;
	}
out:
	pthread_mutex_unlock(&d->lock);
	free(w.r);
	return rc;
}

int
tally_dma_unmap(struct tally_adapter *ad, void *addr, uint64_t iova, size_t len)
{
	struct tally_dma *d = ad->dma;
	uint64_t va = (uintptr_t)addr;
	unsigned int i;
	int rc = -ENOENT;

	RTE_SET_USED(iova);
	if (d == NULL)
		return -ENODEV;
	pthread_mutex_lock(&d->lock);
	for (i = 0; i < d->nb_ext; i++) {
		if (d->ext[i].va != va || d->ext[i].len != len)
			continue;
		dma_unmap_range(d, va, len, va);
		d->ext[i] = d->ext[--d->nb_ext];
		rc = 0;
		break;
	}
	pthread_mutex_unlock(&d->lock);
	return rc;
}

/* ---- life cycle ----------------------------------------------------------- */

int
tally_dma_init(struct tally_adapter *ad, enum tally_dma_bus bus,
	       const struct tally_dma_share_ops *share, void *share_ctx)
{
	struct tally_dma *d;
	struct dma_runs w;
	uint64_t wva = 0, wlen = 0;
	int rc;

	d = rte_zmalloc("tally_dma", sizeof(*d), 0);
	if (d == NULL)
		return -ENOMEM;
	d->ad = ad;
	d->bus = bus;
	d->share = bus == TALLY_DMA_BUS_HOST ? share : NULL;
	d->share_ctx = share_ctx;
	pthread_mutex_init(&d->lock, NULL);
	snprintf(d->cb_name, sizeof(d->cb_name), "tally_dma_%s_%p",
		 ad->eth_dev->data->name, (void *)d);
	memset(&w, 0, sizeof(w));
	w.d = d;
	/* the memory lock is held from the walk to the registration, so no
	 * event falls between them */
	rte_mcfg_mem_read_lock();
	if (rte_memseg_walk_thread_unsafe(dma_walk_cb, &w) != 0 && w.rc == 0)
		w.rc = -EIO;
	pthread_mutex_lock(&d->lock);
	rc = w.rc != 0 ? w.rc : dma_map_runs(d, &w);
	if (rc == 0 && rte_mem_event_callback_register(d->cb_name, dma_mem_event, d) == 0)
		d->cb_on = true;
	else if (rc == 0 && rte_errno != ENOTSUP)
		rc = -rte_errno;
	/* ENOTSUP: no dynamic memory (--legacy-mem, --no-huge): nothing comes */
	pthread_mutex_unlock(&d->lock);
	rte_mcfg_mem_read_unlock();
	free(w.r);
	if (rc == 0 && ad->flow != NULL &&
	    tally_flow_mem_window(ad->flow, &wva, &wlen) && bus == TALLY_DMA_BUS_VA) {
		/* the steering engine's host window (tally_flow_mem.c) */
		rc = tally_hal_xlt_map(&ad->hal, wva, wva, wlen);
		if (rc == 0) {
			d->win_va = wva;
			d->win_len = wlen;
		}
	}
	if (rc != 0) {
		TALLY_INIT_LOG(ERR, "%s: cannot give the device its memory: %s",
			       ad->eth_dev->data->name, strerror(-rc));
		if (d->cb_on)
			rte_mem_event_callback_unregister(d->cb_name, d);
		(void)tally_hal_xlt_clear(&ad->hal);
		pthread_mutex_destroy(&d->lock);
		rte_free(d);
		return rc;
	}
	ad->dma = d;
	TALLY_INIT_LOG(INFO, "%s: %" PRIu64 " MiB of memory in %u translations%s",
		       ad->eth_dev->data->name, d->st.mapped_bytes >> 20,
		       tally_hal_xlt_count(&ad->hal), d->cb_on ? ", following EAL" : "");
	return 0;
}

void
tally_dma_fini(struct tally_adapter *ad)
{
	struct tally_dma *d = ad->dma;

	if (d == NULL)
		return;
	if (d->cb_on)
		rte_mem_event_callback_unregister(d->cb_name, d);
	pthread_mutex_lock(&d->lock);
	if (!tally_hal_gone(&ad->hal))
		(void)tally_hal_xlt_clear(&ad->hal);
	pthread_mutex_unlock(&d->lock);
	pthread_mutex_destroy(&d->lock);
	ad->dma = NULL;
	rte_free(d);
}

#define DMA_PGSZ_MAX	4

/* The page sizes of the socket's memseg lists (EAL makes a list per page
 * size it can use: 2 MiB and 1 GiB where the CPU has both). */
struct dma_pgsz_walk {
	int socket;
	uint32_t n;
	uint64_t pgsz[DMA_PGSZ_MAX];
};

static int
dma_pgsz_cb(const struct rte_memseg_list *msl, void *arg)
{
	struct dma_pgsz_walk *w = arg;
	uint32_t i;

	if (msl->external || msl->socket_id != w->socket || msl->page_sz == 0)
		return 0;
	for (i = 0; i < w->n && w->pgsz[i] != msl->page_sz; i++)
		;
	if (i == w->n && w->n < DMA_PGSZ_MAX)
		w->pgsz[w->n++] = msl->page_sz;
	return 0;
}

/* Free huge pages of one size on the socket (the node's count, else the
 * system's), in bytes. */
static uint64_t
dma_free_pages(int socket, uint64_t pgsz)
{
	char path[160];
	unsigned long n = 0;
	FILE *f;

	snprintf(path, sizeof(path),
		 "/sys/devices/system/node/node%d/hugepages/hugepages-%" PRIu64 "kB/free_hugepages",
		 socket, pgsz >> 10);
	f = fopen(path, "r");
	if (f == NULL) {
		snprintf(path, sizeof(path),
			 "/sys/kernel/mm/hugepages/hugepages-%" PRIu64 "kB/free_hugepages",
			 pgsz >> 10);
		f = fopen(path, "r");
	}
	if (f == NULL)
		return 0;
	if (fscanf(f, "%lu", &n) != 1)
		n = 0;
	fclose(f);
	return (uint64_t)n * pgsz;
}

/* What EAL can still add to the socket's heap: the free huge pages of every
 * page size it has a memseg list for. Counting only the first list's size
 * said 0 where that list is of 1 GiB pages none of which are reserved. */
uint64_t
tally_dma_growable(int socket)
{
	struct dma_pgsz_walk w = { .socket = socket };
	uint64_t sum = 0;
	uint32_t i;

	if (!rte_eal_has_hugepages() || rte_memseg_list_walk(dma_pgsz_cb, &w) < 0)
		return 0;
	for (i = 0; i < w.n; i++)
		sum += dma_free_pages(socket, w.pgsz[i]);
	return sum;
}

void
tally_dma_stats(const struct tally_adapter *ad, struct tally_dma_stats *st)
{
	memset(st, 0, sizeof(*st));
	if (ad->dma == NULL)
		return;
	*st = ad->dma->st;
	st->translations = tally_hal_xlt_count(&ad->hal);
}
