/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vdev "net_tally,dev=<socket>": the device is the process `tally-nic`.
 *
 * Probe: connect to its socket (lib/hal/tally_hal_hostif.h), hand it every
 * EAL memory segment as (fd, offset, IOVA) so it can reach rings, buffers
 * and steering memory by DMA, map the BAR it sends, then drive it through
 * the posted-write transport (lib/hal/tally_hal_posted.h) like any BAR.
 * The connection stays open for the port's life: closing it detaches.
 *
 * Memory: only the segments present at probe are handed over (with
 * --no-huge all EAL memory is one file and exists from the start).
 */
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <ethdev_vdev.h>
#include <rte_malloc.h>
#include <rte_memory.h>

#include "tally_ethdev.h"
#include "tally_hal_hostif.h"
#include "tally_hal_posted.h"
#include "tally_logs.h"

struct tally_hostif_priv {
	struct tally_hostif_conn conn;
	struct tally_posted posted;
	void *bar;
	size_t bar_len;
};

struct tally_hostif_walk {
	struct tally_hostif_conn *conn;
	int fd;				/* range being built */
	uint64_t iova, len, off;
	unsigned int sent;
	int rc;
};

static int
tally_hostif_flush_range(struct tally_hostif_walk *w)
{
	int rc;

	if (w->len == 0)
		return 0;
	if (w->sent == TALLY_HOSTIF_MAX_MEM)
		return -ENOSPC;
	rc = tally_hostif_add_mem(w->conn, w->fd, w->iova, w->len, w->off);
	if (rc == 0)
		w->sent++;
	w->len = 0;
	return rc;
}

/* Coalesce segments that are contiguous in IOVA and in the same file. */
static int
tally_hostif_seg_cb(const struct rte_memseg_list *msl,
		    const struct rte_memseg *ms, void *arg)
{
	struct tally_hostif_walk *w = arg;
	uint64_t iova = ms->iova;
	size_t off;
	int fd;

	if (msl->external)
		return 0;
	if (iova == RTE_BAD_IOVA)
		iova = (uint64_t)(uintptr_t)ms->addr;
	fd = rte_memseg_get_fd_thread_unsafe(ms);
	if (fd < 0 || rte_memseg_get_fd_offset_thread_unsafe(ms, &off) != 0) {
		TALLY_INIT_LOG(ERR, "EAL memory at %p has no file descriptor: the device process cannot reach it",
			       ms->addr);
		w->rc = -ENOTSUP;
		return -1;
	}
	if (w->len != 0 && fd == w->fd && w->iova + w->len == iova &&
	    w->off + w->len == off) {
		w->len += ms->len;
		return 0;
	}
	w->rc = tally_hostif_flush_range(w);
	if (w->rc != 0)
		return -1;
	w->fd = fd;
	w->iova = iova;
	w->len = ms->len;
	w->off = off;
	return 0;
}

static int
tally_hostif_send_memory(struct tally_hostif_conn *conn)
{
	struct tally_hostif_walk w = { .conn = conn, .fd = -1 };

	if (rte_memseg_walk(tally_hostif_seg_cb, &w) != 0 || w.rc != 0)
		return w.rc != 0 ? w.rc : -EIO;
	return tally_hostif_flush_range(&w);
}

static void
tally_hostif_fini(struct tally_adapter *ad)
{
	struct tally_hostif_priv *priv = ad->transport_priv;

	if (priv == NULL)
		return;
	tally_posted_detach(&priv->posted);
	if (priv->bar != NULL)
		munmap(priv->bar, priv->bar_len);
	tally_hostif_close(&priv->conn);
	rte_free(priv);
	ad->transport_priv = NULL;
}

static int
tally_hostif_attach(struct tally_hostif_priv *priv, const char *name,
		    const char *path, struct tally_io *io)
{
	char err[256] = "";
	void *bar;
	int rc;

	rc = tally_hostif_connect(path, &priv->conn, err, sizeof(err));
	if (rc == 0)
		rc = tally_hostif_send_memory(&priv->conn);
	if (rc == 0)
		rc = tally_hostif_mem_done(&priv->conn, err, sizeof(err));
	if (rc != 0) {
		TALLY_INIT_LOG(ERR, "%s: %s", name, err[0] ? err : strerror(-rc));
		return rc;
	}
	bar = mmap(NULL, priv->conn.bar_len, PROT_READ | PROT_WRITE, MAP_SHARED,
		   priv->conn.bar_fd, 0);
	if (bar == MAP_FAILED) {
		rc = -errno;
		TALLY_INIT_LOG(ERR, "%s: cannot map the BAR: %s", name, strerror(errno));
		return rc;
	}
	priv->bar = bar;
	priv->bar_len = priv->conn.bar_len;
	close(priv->conn.bar_fd);	/* the mapping keeps it */
	priv->conn.bar_fd = -1;
	rc = tally_posted_attach(&priv->posted, bar, priv->bar_len, name, io);
	if (rc != 0)
		TALLY_INIT_LOG(ERR, "%s: device at %s: %s", name, path, strerror(-rc));
	return rc;
}

int
tally_hostif_probe(struct rte_vdev_device *vdev, const char *path)
{
	const char *name = rte_vdev_device_name(vdev);
	struct tally_hostif_priv *priv;
	struct tally_adapter *ad;
	struct rte_eth_dev *dev;
	struct tally_io io;
	int rc;

	priv = rte_zmalloc("tally_hostif", sizeof(*priv), 0);
	if (priv == NULL)
		return -ENOMEM;
	priv->conn.sock = -1;
	priv->conn.bar_fd = -1;
	dev = rte_eth_vdev_allocate(vdev, sizeof(struct tally_adapter));
	if (dev == NULL) {
		rte_free(priv);
		return -ENOMEM;
	}
	ad = tally_adapter(dev);
	ad->transport_priv = priv;
	ad->transport_fini = tally_hostif_fini;
	rc = tally_hostif_attach(priv, name, path, &io);
	if (rc == 0)
		rc = tally_ethdev_init(dev, &io, NULL);
	if (rc != 0) {
		tally_hostif_fini(ad);
		ad->transport_fini = NULL;
		rte_eth_dev_release_port(dev);
		return rc;
	}
	rte_eth_dev_probing_finish(dev);
	TALLY_INIT_LOG(INFO, "%s: port %u on the device at %s", name,
		       dev->data->port_id, path);
	return 0;
}
