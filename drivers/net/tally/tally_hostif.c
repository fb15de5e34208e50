/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vdev "net_tally,dev=<socket>": the device is the process `tally-nic`.
 *
 * Probe: connect to its socket (lib/hal/tally_hal_hostif.h), map the BAR it
 * sends, then drive it through the posted-write transport
 * (lib/hal/tally_hal_posted.h) like any BAR. A device of several ports
 * (spec 2.3) gets one ethdev per port window, each with its own session on
 * its own mailbox, over the one connection and mapping. The connection
 * stays open until the last of them closes: closing it detaches.
 *
 * Memory: tally_dma.c shares EAL memory with the device as (fd, offset,
 * bus address) through the ops below, at probe and whenever EAL allocates
 * or frees, before it maps or after it unmaps the device's translations.
 * Every port shares the same memory (each maps it in its own translation
 * table): a range goes to the device once, and away with its last port.
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

#include <tally/tally_mbox.h>

#include "tally_pmd.h"
#include "tally_hal_hostif.h"
#include "tally_guard.h"
#include "tally_hal_posted.h"
#include "tally_logs.h"
#include "tally_mp.h"

struct tally_hostif_share {
	uint64_t bus;
	uint64_t len;
	uint32_t refs;			/* ports that shared it */
};

/* The device's connection and BAR, shared by its ports (refs), freed with
 * the last. */
struct tally_hostif_priv {
	struct tally_hostif_conn conn;
	pthread_mutex_t lock;		/* one message exchange at a time; shares */
	struct tally_posted posted[TALLY_MAX_PORTS];	/* port i's session */
	uint32_t refs;
	void *bar;
	size_t bar_len;
	size_t win;			/* a port window's bytes */
	struct tally_hostif_share *shares;
	uint32_t nshares;
	uint32_t share_cap;
};

/* Memory shared with the device as EAL grows and shrinks (tally_dma.c):
 * the control thread and memory events both send, one at a time. */
/* The share of exactly [bus, bus + len), or NULL (lock held). */
static struct tally_hostif_share *
tally_hostif_share_find(struct tally_hostif_priv *priv, uint64_t bus, uint64_t len)
{
	uint32_t i;

	for (i = 0; i < priv->nshares; i++)
		if (priv->shares[i].bus == bus && priv->shares[i].len == len)
			return &priv->shares[i];
	return NULL;
}

static int
tally_hostif_share_add(void *ctx, int fd, uint64_t bus, uint64_t len, uint64_t off)
{
	struct tally_hostif_priv *priv = ctx;
	struct tally_hostif_share *sh;
	int rc = 0;

	pthread_mutex_lock(&priv->lock);
	sh = tally_hostif_share_find(priv, bus, len);
	if (sh != NULL) {
		sh->refs++;	/* another port of the device: shared already */
		goto out;
	}
	if (priv->nshares == priv->share_cap) {
		uint32_t cap = priv->share_cap ? priv->share_cap * 2 : 16;
		void *n = realloc(priv->shares, cap * sizeof(*priv->shares));

		if (n == NULL) {
			rc = -ENOMEM;
			goto out;
		}
		priv->shares = n;
		priv->share_cap = cap;
	}
	rc = tally_hostif_add_mem(&priv->conn, fd, bus, len, off);
	if (rc == 0)
		priv->shares[priv->nshares++] = (struct tally_hostif_share){ bus, len, 1 };
out:
	pthread_mutex_unlock(&priv->lock);
	return rc;
}

static int
tally_hostif_share_del(void *ctx, uint64_t bus, uint64_t len)
{
	struct tally_hostif_priv *priv = ctx;
	struct tally_hostif_share *sh;
	int rc = 0;

	pthread_mutex_lock(&priv->lock);
	sh = tally_hostif_share_find(priv, bus, len);
	if (sh == NULL || --sh->refs == 0) {
		rc = tally_hostif_del_mem(&priv->conn, bus, len);
		if (sh != NULL)
			*sh = priv->shares[--priv->nshares];
	}
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
tally_hostif_release(struct tally_hostif_priv *priv)
{
	unsigned int i;

	if (priv->bar != NULL) {
		for (i = 0; i * priv->win < priv->bar_len && i < TALLY_MAX_PORTS; i++)
			tally_guard_del((uint8_t *)priv->bar + i * priv->win);
		munmap(priv->bar, priv->bar_len);
	}
	tally_hostif_close(&priv->conn);
	free(priv->shares);
	rte_free(priv);
}

static void
tally_hostif_fini(struct tally_adapter *ad)
{
	struct tally_hostif_priv *priv = ad->transport_priv;
	bool last;

	if (priv == NULL)
		return;
	ad->transport_priv = NULL;
	tally_posted_detach(&priv->posted[ad->sw_port]);
	pthread_mutex_lock(&priv->lock);
	last = --priv->refs == 0;
	pthread_mutex_unlock(&priv->lock);
	if (last)
		tally_hostif_release(priv);
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

/* The ports of the device behind a mapped BAR: each window holds a
 * mailbox. */
static int
tally_hostif_ports(const char *name, const volatile uint8_t *bar, size_t len,
		   unsigned int *n, size_t *win)
{
	return tally_switch_layout(name, bar, len, TALLY_MBOX_OFF + TALLY_MBOX_LEN, n, win);
}

static int
tally_hostif_connect_map(struct tally_hostif_priv *priv, const char *name,
			 const char *path, unsigned int *n)
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
	return tally_hostif_ports(name, bar, priv->bar_len, n, &priv->win);
}

/* Port i's session on its window. */
static int
tally_hostif_attach(struct tally_hostif_priv *priv, unsigned int i, const char *name,
		    const char *path, struct tally_io *io)
{
	uint8_t *win = (uint8_t *)priv->bar + i * priv->win;
	struct tally_posted *p = &priv->posted[i];
	int rc;

	rc = tally_guard_add(win, priv->win, &p->lost);
	if (rc != 0) {
		TALLY_INIT_LOG(ERR, "%s: cannot guard the BAR: %s", name, strerror(-rc));
		return rc;
	}
	rc = tally_posted_attach(p, win, priv->win, name, io);
	if (rc != 0)
		TALLY_INIT_LOG(ERR, "%s: device at %s: %s", name, path, strerror(-rc));
	else	/* a closed connection: the device process is gone */
		tally_posted_watch(p, tally_hostif_gone, &priv->conn);
	return rc;
}

static int
tally_hostif_port_init(struct rte_vdev_device *vdev, struct tally_hostif_priv *priv,
		       struct tally_switch *sw, unsigned int i, const char *path)
{
	char pname[RTE_ETH_NAME_MAX_LEN];
	struct tally_adapter *ad;
	struct rte_eth_dev *dev;
	struct tally_io io;
	int rc;

	rc = tally_switch_port_name(rte_vdev_device_name(vdev), i, pname, sizeof(pname));
	if (rc != 0)
		return rc;
	dev = tally_switch_vdev_port(vdev, i);
	if (dev == NULL || tally_mp_proc_new(dev) == NULL) {
		if (dev != NULL)
			rte_eth_dev_release_port(dev);
		return -ENOMEM;
	}
	ad = tally_adapter(dev);
	ad->eth_dev = dev;
	ad->transport_priv = priv;
	priv->refs++;
	tally_proc(dev)->transport_fini = tally_hostif_fini;
	tally_proc(dev)->dma_share = &tally_hostif_share_ops;
	ad->dma_bus = TALLY_DMA_BUS_HOST;
	snprintf(ad->dev_path, sizeof(ad->dev_path), "%s", path);
	tally_switch_attach(sw, ad, (uint8_t)i);
	rc = tally_hostif_attach(priv, i, pname, path, &io);
	if (rc == 0)
		rc = tally_ethdev_init(dev, &io, NULL);
	else
		tally_switch_detach(ad);
	if (rc != 0) {
		tally_hostif_fini(ad);
		tally_mp_proc_free(dev);
		rte_eth_dev_release_port(dev);
		return rc;
	}
	rte_eth_dev_probing_finish(dev);
	TALLY_INIT_LOG(INFO, "%s: port %u on the device at %s", pname,
		       dev->data->port_id, path);
	return 0;
}

int
tally_hostif_probe(struct rte_vdev_device *vdev, const char *path)
{
	const char *name = rte_vdev_device_name(vdev);
	struct tally_hostif_priv *priv;
	struct tally_switch *sw = NULL;
	char pname[RTE_ETH_NAME_MAX_LEN];
	struct rte_eth_dev *dev;
	unsigned int n = 1, i;
	int rc;

	priv = rte_zmalloc("tally_hostif", sizeof(*priv), 0);
	if (priv == NULL)
		return -ENOMEM;
	priv->conn.sock = -1;
	priv->conn.bar_fd = -1;
	pthread_mutex_init(&priv->lock, NULL);
	rc = tally_hostif_connect_map(priv, name, path, &n);
	if (rc == 0 && (sw = tally_switch_new(name, (uint8_t)n)) == NULL)
		rc = -ENOMEM;
	if (rc != 0) {
		tally_hostif_release(priv);
		return rc;
	}
	/* each port holds priv and sw; the last one out frees them */
	priv->refs = 1;
	for (i = 0; i < n && rc == 0; i++)
		rc = tally_hostif_port_init(vdev, priv, sw, i, path);
	tally_switch_put(sw);
	if (rc != 0) {
		/* the ports before: closed, others first */
		while (i-- > 0) {
			if (tally_switch_port_name(name, i, pname, sizeof(pname)) != 0 ||
			    (dev = rte_eth_dev_allocated(pname)) == NULL)
				continue;
			tally_dev_close(dev);
			rte_eth_dev_release_port(dev);
		}
	}
	pthread_mutex_lock(&priv->lock);
	i = --priv->refs;
	pthread_mutex_unlock(&priv->lock);
	if (i == 0)
		tally_hostif_release(priv);
	return rc;
}

/* A secondary process's port i: its window of the BAR from the device,
 * mapped on its own (the port unmaps it when it closes), posting into the
 * primary's session. */
static int
tally_hostif_join_port(struct rte_vdev_device *vdev, struct rte_eth_dev *dev, int fd,
		       size_t off, size_t win, const char *pname)
{
	struct tally_posted *p;
	struct tally_io io;
	void *bar;
	int rc;

	bar = mmap(NULL, win, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)off);
	if (bar == MAP_FAILED) {
		rc = -errno;
		rte_eth_dev_release_port(dev);
		return rc;
	}
	p = calloc(1, sizeof(*p));
	rc = p == NULL ? -ENOMEM : tally_guard_add(bar, win, &p->lost);
	if (rc == 0)
		rc = tally_posted_join(p, bar, win, pname, &io);
	if (rc != 0) {
		if (p != NULL)
			tally_guard_del(bar);
		free(p);
		munmap(bar, win);
		TALLY_INIT_LOG(ERR, "%s: cannot join the primary's session: %s", pname,
			       strerror(-rc));
		rte_eth_dev_release_port(dev);
		return rc;
	}
	return tally_mp_secondary_attach(dev, &vdev->device, &io, p, bar, win);
}

struct tally_hostif_join {
	struct rte_vdev_device *vdev;
	int fd;
	size_t win;
};

static int
tally_hostif_join_one(struct rte_eth_dev *dev, unsigned int i, const char *pname, void *arg)
{
	struct tally_hostif_join *j = arg;

	return tally_hostif_join_port(j->vdev, dev, j->fd, i * j->win, j->win, pname);
}

/* A secondary process: every port of the device the primary made. */
int
tally_hostif_probe_secondary(struct rte_vdev_device *vdev, struct rte_eth_dev *dev,
			     const char *path)
{
	const char *name = rte_vdev_device_name(vdev);
	struct tally_hostif_join j = { .vdev = vdev };
	struct tally_hostif_conn conn;
	char err[256] = "";
	unsigned int n = 1;
	size_t len, win;
	void *bar;
	int rc;

	rc = tally_hostif_join(path, &conn, err, sizeof(err));
	if (rc != 0) {
		TALLY_INIT_LOG(ERR, "%s: %s", name, err[0] ? err : strerror(-rc));
		rte_eth_dev_release_port(dev);
		return rc;
	}
	len = conn.bar_len;
	bar = tally_hostif_map_bar(name, conn.bar_fd, len);
	rc = bar == NULL ? -errno : tally_hostif_ports(name, bar, len, &n, &win);
	if (bar != NULL)
		munmap(bar, len);
	if (rc == 0)
		rc = tally_hostif_join_port(vdev, dev, conn.bar_fd, 0, win, name);
	else
		rte_eth_dev_release_port(dev);
	if (rc == 0) {
		j.fd = conn.bar_fd;
		j.win = win;
		rc = tally_switch_join_ports(name, n, tally_hostif_join_one, &j);
	}
	tally_hostif_close(&conn);
	return rc;
}
