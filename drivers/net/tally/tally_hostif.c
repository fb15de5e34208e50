/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vdev "net_tally,dev=<socket>": the device is the process `tally-nic`.
 *
 * Probe: connect to its socket (lib/hal/tally_hal_hostif.h), map the BAR it
 * sends, then drive it through the posted-write transport
 * (lib/hal/tally_hal_posted.h) like any BAR. The connection stays open for
 * the port's life: closing it detaches.
 *
 * Memory: tally_dma.c shares EAL memory with the device as (fd, offset,
 * bus address) through the ops below, at probe and whenever EAL allocates
 * or frees, before it maps or after it unmaps the device's translations.
 *
 * The BAR is another process's file (doc/security.md): it is mapped only
 * when the file holds the length the device declares, and the mapping is
 * guarded (lib/plat/tally_guard.h): should the file shrink later, the
 * access that finds it gone reads zeros instead of raising SIGBUS in the
 * application, and the device counts as lost (every later operation fails
 * as after the device process's exit).
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <ethdev_vdev.h>
#include <rte_malloc.h>
#include <rte_memory.h>

#include "tally_pmd.h"
#include "tally_hal_hostif.h"
#include "tally_guard.h"
#include "tally_hal_posted.h"
#include "tally_logs.h"
#include "tally_mp.h"

struct tally_hostif_priv {
	struct tally_hostif_conn conn;
	pthread_mutex_t lock;		/* one message exchange at a time */
	struct tally_posted posted;
	void *bar;
	size_t bar_len;
};

/* Memory shared with the device as EAL grows and shrinks (tally_dma.c):
 * the control thread and memory events both send, one at a time. */
static int
tally_hostif_share_add(void *ctx, int fd, uint64_t bus, uint64_t len, uint64_t off)
{
	struct tally_hostif_priv *priv = ctx;
	int rc;

	pthread_mutex_lock(&priv->lock);
	rc = tally_hostif_add_mem(&priv->conn, fd, bus, len, off);
	pthread_mutex_unlock(&priv->lock);
	return rc;
}

static int
tally_hostif_share_del(void *ctx, uint64_t bus, uint64_t len)
{
	struct tally_hostif_priv *priv = ctx;
	int rc;

	pthread_mutex_lock(&priv->lock);
	rc = tally_hostif_del_mem(&priv->conn, bus, len);
	pthread_mutex_unlock(&priv->lock);
	return rc;
}

static int
tally_hostif_share_sync(void *ctx)
{
	struct tally_hostif_priv *priv = ctx;
	char err[256] = "";
	int rc;

	pthread_mutex_lock(&priv->lock);
	rc = tally_hostif_sync(&priv->conn, err, sizeof(err));
	pthread_mutex_unlock(&priv->lock);
	if (rc != 0)
		TALLY_DRV_LOG(ERR, "device process: %s", err[0] ? err : strerror(-rc));
	return rc;
}

static const struct tally_dma_share_ops tally_hostif_share_ops = {
	.add = tally_hostif_share_add,
	.del = tally_hostif_share_del,
	.sync = tally_hostif_share_sync,
};

static void
tally_hostif_fini(struct tally_adapter *ad)
{
	struct tally_hostif_priv *priv = ad->transport_priv;

	if (priv == NULL)
		return;
	tally_posted_detach(&priv->posted);
	if (priv->bar != NULL) {
		tally_guard_del(priv->bar);
		munmap(priv->bar, priv->bar_len);
	}
	tally_hostif_close(&priv->conn);
	rte_free(priv);
	ad->transport_priv = NULL;
}

/* Map the BAR the device sent: the file must hold the length it
 * declares (a shorter one would fault at the first access past its end). */
static void *
tally_hostif_map_bar(const char *name, int fd, size_t len)
{
	struct stat st;
	void *bar;

	if (fstat(fd, &st) != 0) {
		TALLY_INIT_LOG(ERR, "%s: BAR: %s", name, strerror(errno));
		return NULL;
	}
	if (len == 0 || (uint64_t)st.st_size < len) {
		TALLY_INIT_LOG(ERR, "%s: BAR: the device declares %zu bytes, its file holds %lld",
			       name, len, (long long)st.st_size);
		errno = EIO;
		return NULL;
	}
	bar = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (bar == MAP_FAILED) {
		TALLY_INIT_LOG(ERR, "%s: cannot map the BAR: %s", name, strerror(errno));
		return NULL;
	}
	return bar;
}

static int
tally_hostif_attach(struct tally_hostif_priv *priv, const char *name,
		    const char *path, struct tally_io *io)
{
	char err[256] = "";
	void *bar;
	int rc;

	rc = tally_hostif_connect(path, &priv->conn, err, sizeof(err));
	if (rc != 0) {
		TALLY_INIT_LOG(ERR, "%s: %s", name, err[0] ? err : strerror(-rc));
		return rc;
	}
	bar = tally_hostif_map_bar(name, priv->conn.bar_fd, priv->conn.bar_len);
	if (bar == NULL)
		return -errno;
	priv->bar = bar;
	priv->bar_len = priv->conn.bar_len;
	close(priv->conn.bar_fd);	/* the mapping keeps it */
	priv->conn.bar_fd = -1;
	rc = tally_guard_add(bar, priv->bar_len, &priv->posted.lost);
	if (rc != 0) {
		TALLY_INIT_LOG(ERR, "%s: cannot guard the BAR: %s", name, strerror(-rc));
		return rc;
	}
	rc = tally_posted_attach(&priv->posted, bar, priv->bar_len, name, io);
	if (rc != 0)
		TALLY_INIT_LOG(ERR, "%s: device at %s: %s", name, path, strerror(-rc));
	else	/* a closed connection: the device process is gone */
		tally_posted_watch(&priv->posted, tally_hostif_gone, &priv->conn);
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
	pthread_mutex_init(&priv->lock, NULL);
	dev = rte_eth_vdev_allocate(vdev, sizeof(struct tally_adapter));
	if (dev == NULL || tally_mp_proc_new(dev) == NULL) {
		if (dev != NULL)
			rte_eth_dev_release_port(dev);
		rte_free(priv);
		return -ENOMEM;
	}
	ad = tally_adapter(dev);
	ad->eth_dev = dev;
	ad->transport_priv = priv;
	tally_proc(dev)->transport_fini = tally_hostif_fini;
	tally_proc(dev)->dma_share = &tally_hostif_share_ops;
	ad->dma_bus = TALLY_DMA_BUS_HOST;
	snprintf(ad->dev_path, sizeof(ad->dev_path), "%s", path);
	rc = tally_hostif_attach(priv, name, path, &io);
	if (rc == 0)
		rc = tally_ethdev_init(dev, &io, NULL);
	if (rc != 0) {
		tally_hostif_fini(ad);
		tally_mp_proc_free(dev);
		rte_eth_dev_release_port(dev);
		return rc;
	}
	rte_eth_dev_probing_finish(dev);
	TALLY_INIT_LOG(INFO, "%s: port %u on the device at %s", name,
		       dev->data->port_id, path);
	return 0;
}

/* A secondary process: the BAR from the device, posting into the
 * primary's session. */
int
tally_hostif_probe_secondary(struct rte_vdev_device *vdev, struct rte_eth_dev *dev,
			     const char *path)
{
	const char *name = rte_vdev_device_name(vdev);
	struct tally_hostif_conn conn;
	struct tally_posted *p;
	char err[256] = "";
	struct tally_io io;
	void *bar;
	size_t len;
	int rc;

	rc = tally_hostif_join(path, &conn, err, sizeof(err));
	if (rc != 0) {
		TALLY_INIT_LOG(ERR, "%s: %s", name, err[0] ? err : strerror(-rc));
		rte_eth_dev_release_port(dev);
		return rc;
	}
	len = conn.bar_len;
	bar = tally_hostif_map_bar(name, conn.bar_fd, len);
	rc = -errno;
	tally_hostif_close(&conn);
	if (bar == NULL) {
		rte_eth_dev_release_port(dev);
		return rc;
	}
	p = calloc(1, sizeof(*p));
	rc = p == NULL ? -ENOMEM : tally_guard_add(bar, len, &p->lost);
	if (rc == 0)
		rc = tally_posted_join(p, bar, len, name, &io);
	if (rc != 0) {
		if (p != NULL)
			tally_guard_del(bar);
		free(p);
		munmap(bar, len);
		TALLY_INIT_LOG(ERR, "%s: cannot join the primary's session: %s", name,
			       strerror(-rc));
		rte_eth_dev_release_port(dev);
		return rc;
	}
	return tally_mp_secondary_attach(dev, &vdev->device, &io, p, bar, len);
}
