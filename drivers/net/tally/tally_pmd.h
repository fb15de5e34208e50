/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The Tally PMD's shared structures: the adapter of a port, its queues and
 * statistics baselines, used by the probe paths (vdev, PCI), the ethdev ops,
 * the queue code, the burst functions, stats, telemetry and the driver's
 * own API; and the functions each file gives the others, by file.
 *
 * Layout of responsibilities:
 *  - tally_vdev.c / tally_pci.c: obtain a struct tally_io (in-process model
 *    or mapped BAR), allocate the port, call tally_ethdev_init().
 *  - tally_ethdev.c: dev_ops shared by both probes (control path).
 *  - tally_queue.c: queue setup/release/start/stop (control path).
 *  - tally_rxtx.c: burst functions only (data path).
 *  - tally_stats.c: stats and xstats with software baselines.
 *
 * Threads: control ops run on the application's control thread (ethdev
 * serialises them per port). Each Rx/Tx queue is polled by one lcore at a
 * time. Stats reads only load device memory-like blocks and may run
 * concurrently with the data path. The exception is device loss: the loss
 * is noticed and reported from EAL's interrupt thread, and applications
 * close the port from there (testpmd does) while their console may close
 * it too; tally_port_state.c keeps the port's life cycle (RUNNING, GONE,
 * CLOSING, CLOSED) and every control op enters the port through it.
 */
#ifndef TALLY_PMD_H
#define TALLY_PMD_H

#include <stdbool.h>
#include <stdint.h>

#include <ethdev_driver.h>
#include <rte_ether.h>
#include <rte_mbuf.h>

#include "tally_dma.h"
#include "tally_hal.h"

struct tally_model;
struct tally_dma;
struct tally_flow_ctx;

#define TALLY_PMD_MAX_QUEUES		8	/* per direction */
#define TALLY_PMD_MIN_DESC		16
#define TALLY_PMD_MAX_DESC		32768
/*
 * The ring size rte_eth_dev_info_get() reports as preferred (what testpmd
 * and most applications set up). The device takes frames into the posted
 * buffers in ring order, so a ring of N descriptors cycles about N mbufs
 * per direction: with 4 KiB pages (--no-huge) every one is a page of its
 * own, and past the TLB's reach each frame pays an address translation.
 * 256 keep 8 bursts posted; io forwarding with --no-huge ran 1.9x faster
 * than with 1024 (doc/benchmarks.md), hugepages the same.
 */
#define TALLY_PMD_DEFAULT_DESC		256
#define TALLY_PMD_BURST			32
#define TALLY_PMD_MIN_RX_BUF		64
#define TALLY_PMD_RING_ALIGN		4096

#define TALLY_PMD_RSS_HF	(RTE_ETH_RSS_IP | RTE_ETH_RSS_TCP | RTE_ETH_RSS_UDP)

struct tally_adapter;

struct tally_rxq {
	/* hot: burst state */
	struct tally_rx_desc *ring;
	struct tally_rx_cqe *cq;
	struct rte_mbuf **sw_ring;	/* mbuf posted in each slot */
	struct rte_mempool *mp;
	struct rte_mbuf *pkt_first;	/* frame being assembled across bursts */
	struct rte_mbuf *pkt_last;
	uint64_t *alloc_failed;		/* &dev->data->rx_mbuf_alloc_failed */
	uint32_t cons;			/* free-running consumer index */
	uint32_t prod;			/* free-running producer index */
	uint32_t mask;
	uint16_t buf_len;		/* bytes per posted buffer */
	uint16_t port_id;
	uint16_t qid;
	uint8_t phase;			/* expected completion phase */
	bool scatter;
	bool skip;			/* dropping the rest of a refused chain */
	uint32_t idle;			/* empty bursts in a row */
	/* what a completion may claim (the device is not trusted) */
	uint32_t max_pkt;		/* frame bytes: the device's max_frame */
	uint16_t max_segs;		/* descriptors per frame: 1 without scatter */
	/* software counters (this queue's lcore only) */
	uint64_t sw_errors;		/* completions in error */
	uint64_t bad_len;		/* completions refused: length 0 or over the buffer */
	uint64_t bad_chain;		/* completions refused: a chain the queue cannot take */
	/* cold */
	uint16_t nb_desc;
	bool started;
	bool deferred_start;
	uint64_t offloads;
	uint64_t ring_iova;
	uint64_t cq_iova;
	void *mem;			/* ring + CQ block */
	unsigned int socket_id;
};

struct tally_txq {
	struct tally_tx_desc *ring;
	struct tally_tx_cqe *cq;
	struct rte_mbuf **sw_ring;	/* segment mbuf of each descriptor */
	uint32_t cons;			/* next completion to reclaim */
	uint32_t prod;			/* free-running producer index */
	uint32_t slow_end;		/* prod after the last descriptor the
					 * burst's general path posted */
	uint32_t mask;
	uint32_t max_frame;
	uint16_t qid;
	uint16_t port_id;
	uint8_t phase;
	uint64_t sw_rejected;		/* frames the burst refused */
	uint64_t sw_cq_errors;		/* frames completed in error */
	uint16_t nb_desc;
	bool started;
	bool deferred_start;
	uint64_t offloads;
	bool fast_free;			/* RTE_ETH_TX_OFFLOAD_MBUF_FAST_FREE */
	uint64_t ring_iova;
	uint64_t cq_iova;
	void *mem;
	unsigned int socket_id;
};

/* Software baselines for stats/xstats reset: device counters never reset. */
struct tally_stats_base {
	uint64_t port[TALLY_STAT_NUM];
	struct tally_hal_qstats rxq[TALLY_PMD_MAX_QUEUES];
	struct tally_hal_qstats txq[TALLY_PMD_MAX_QUEUES];
	uint64_t tx_rejected;
	uint64_t tx_bad_frames;		/* device queues' ERRORS, every queue */
	uint64_t rx_nombuf;
	uint64_t dev_faults;
	uint64_t rx_bad_len;		/* completions the driver refused, */
	uint64_t rx_bad_chain;		/* every queue (tally_rxtx.c) */
};

/* Software counters of released queues, so totals never go backwards. */
struct tally_stats_retired {
	uint64_t rx_errors[TALLY_PMD_MAX_QUEUES];
	uint64_t tx_rejected[TALLY_PMD_MAX_QUEUES];
	uint64_t rx_bad_len;
	uint64_t rx_bad_chain;
};

/*
 * The device a port belongs to (spec 2.3): its ports, all in one switch
 * domain, whose transfer rules port 0's flow engine holds (the transfer
 * proxy). Shared memory, made by the probe of port 0 (or, for a device the
 * probe knows as one port, by tally_ethdev_init()), referenced by every
 * port's adapter, freed when the last of them closes (tally_switch.c).
 */
struct tally_switch {
	rte_spinlock_t lock;		/* eth_port[], refs, proxy */
	uint16_t domain_id;		/* RTE_ETH_DEV_SWITCH_DOMAIN_ID_INVALID: none */
	uint8_t nb_ports;
	uint8_t refs;			/* ports not closed yet */
	uint16_t eth_port[TALLY_MAX_PORTS];	/* ethdev of port i, RTE_MAX_ETHPORTS: none */
	struct tally_adapter *proxy;	/* port 0 while its flow engine takes
					 * transfer rules, else NULL */
	char name[RTE_ETH_NAME_MAX_LEN];	/* switch_info.name: port 0's name */
};

struct tally_adapter {
	struct tally_hal_dev hal;
	struct tally_switch *sw;	/* the device's ports (set at probe) */
	uint8_t sw_port;		/* this port's index in it */
	struct rte_eth_dev *eth_dev;
	struct tally_flow_ctx *flow;	/* rte_flow engine (tally_flow_ops.c) */
	void *transport_priv;		/* the probe's; primary only */
	bool hal_open;
	bool started;
	bool closed;
	uint16_t max_rxq;
	uint16_t max_txq;
	uint32_t max_frame;
	/* RSS state, programmed at start and by the rss/reta ops */
	uint8_t rss_key[TALLY_RSS_KEY_LEN];
	uint8_t reta[TALLY_RSS_RETA_SIZE];
	uint64_t rss_hf;		/* RTE_ETH_RSS_* */
	bool reta_user;			/* reta set by reta_update */
	rte_spinlock_t link_lock;	/* one event per link change (tally_link.c) */
	/* the device's view of host memory (tally_dma.c); the probe sets
	 * the bus (and, for a device process, how to share memory) */
	struct tally_dma *dma;
	enum tally_dma_bus dma_bus;
	char dev_path[108];		/* the device process's socket (secondaries
					 * join through it) */
	bool steer_mem_eal;		/* devarg steer_mem=eal (tally_flow_mem.c) */
	uint32_t steer_stage;		/* devarg steer_stage: staging from arrays of
					 * 2^this slots, 0 = lib/steer's default */
	struct tally_stats_base base;
	struct tally_stats_retired retired;
	char fw_version[32];
};

/* The address the device is given for an mbuf's data: its virtual address
 * (IOVA = VA, tally_dma.c), at the default headroom for an Rx buffer. */
static inline uint64_t
tally_mbuf_rx_iova(const struct rte_mbuf *m)
{
	return (uint64_t)(uintptr_t)m->buf_addr + RTE_PKTMBUF_HEADROOM;
}

static inline uint64_t
tally_mbuf_data_iova(const struct rte_mbuf *m)
{
	return (uint64_t)(uintptr_t)m->buf_addr + m->data_off;
}

static inline struct tally_adapter *
tally_adapter(const struct rte_eth_dev *dev)
{
	return dev->data->dev_private;
}

/*
 * What one process reaches the device through (dev->process_private; the
 * adapter, queues and rings are shared memory, this is not): the HAL with
 * this process's transport (function pointers and the BAR mapping are
 * addresses of this process). The primary's is a copy of the adapter's;
 * a secondary's posts into the primary's session (tally_mp.c). Burst
 * functions, statistics and link reads go through it, so they work in
 * every process.
 */
struct tally_proc {
	struct tally_hal_dev hal;
	/* primary only: what its probe made (addresses of this process) */
	struct tally_model *model;	/* the in-process device, or NULL */
	/* releases the transport (vdev: destroys the model); may be NULL */
	void (*transport_fini)(struct tally_adapter *ad);
	const struct tally_dma_share_ops *dma_share;	/* ctx: transport_priv */
	/* secondary only */
	struct tally_posted *posted;	/* joined session, or NULL (MMIO) */
	void *bar_map;			/* a BAR this process mapped itself */
	size_t bar_map_len;
};

static inline struct tally_proc *
tally_proc(const struct rte_eth_dev *dev)
{
	return dev->process_private;
}

static inline struct tally_hal_dev *
tally_proc_hal(const struct rte_eth_dev *dev)
{
	return &tally_proc(dev)->hal;
}

static inline struct tally_hal_dev *
tally_port_hal(uint16_t port_id)
{
	return tally_proc_hal(&rte_eth_devices[port_id]);
}

/* tally_ethdev.c */
extern const struct eth_dev_ops tally_eth_dev_ops;
int tally_ethdev_init(struct rte_eth_dev *dev, const struct tally_io *io,
		      const struct rte_ether_addr *mac);
int tally_dev_close(struct rte_eth_dev *dev);
/* tally_mac.c: the MAC address ops (primary process). */
int tally_mac_addr_set(struct rte_eth_dev *dev, struct rte_ether_addr *addr);
int tally_mac_addr_add(struct rte_eth_dev *dev, struct rte_ether_addr *addr,
		       uint32_t index, uint32_t vmdq);
void tally_mac_addr_remove(struct rte_eth_dev *dev, uint32_t index);
/* tally_link.c: the link, link control and the multicast list. */
int tally_dev_set_link_up(struct rte_eth_dev *dev);
int tally_dev_set_link_down(struct rte_eth_dev *dev);
int tally_set_mc_addr_list(struct rte_eth_dev *dev, struct rte_ether_addr *set,
			   uint32_t n);
/* ethdev's link_update (0: the status changed). */
int tally_link_update(struct rte_eth_dev *dev, int wait);
/* dev_link as it is now, no event (caller inside the port). */
int tally_link_refresh(struct rte_eth_dev *dev);
/* The link watch (primary): armed at the end of probe, cancelled by close. */
void tally_link_watch_start(struct rte_eth_dev *dev);
void tally_link_watch_stop(struct rte_eth_dev *dev);
/* The adapter of port_id if it is a Tally port, else NULL. */
static inline struct tally_adapter *
tally_adapter_from_port(uint16_t port_id)
{
	struct rte_eth_dev *dev;

	if (!rte_eth_dev_is_valid_port(port_id))
		return NULL;
	dev = &rte_eth_devices[port_id];
	if (dev->dev_ops != &tally_eth_dev_ops)
		return NULL;
	return tally_adapter(dev);
}
/* tally_switch.c */
/* A device of nb_ports ports named after port 0 (`name`), with one
 * reference, the caller's (tally_switch_put()); NULL without memory. */
struct tally_switch *tally_switch_new(const char *name, uint8_t nb_ports);
void tally_switch_put(struct tally_switch *sw);
/* Port `index` of sw is ad (at probe, before tally_ethdev_init()); takes a
 * reference. */
void tally_switch_attach(struct tally_switch *sw, struct tally_adapter *ad, uint8_t index);
/* The port closes: drops its reference, frees sw with the last. */
void tally_switch_detach(struct tally_adapter *ad);
/* The index of ethdev port_id in ad's device, or -1 when it is not one of
 * its ports (another device, not a Tally port, closed). */
int tally_switch_index_of(const struct tally_adapter *ad, uint16_t port_id);
/* The ethdev id of the transfer proxy of ad's device (port 0). */
uint16_t tally_switch_proxy_port(const struct tally_adapter *ad);
/* The ethdev name of port i of a device called name: name for port 0,
 * <name>_p<i> for the others. 0 or -ENAMETOOLONG. */
int tally_switch_port_name(const char *name, unsigned int i, char *buf, size_t len);
/* A secondary process: ports 1..n-1 of the device called name (port 0 is
 * the caller's), each the primary still has, joined by join(dev, i, its
 * name, arg); stops at the first error. 0 or that -errno. */
typedef int (*tally_switch_join_fn)(struct rte_eth_dev *dev, unsigned int i,
				    const char *pname, void *arg);
int tally_switch_join_ports(const char *name, unsigned int n, tally_switch_join_fn join,
			    void *arg);
struct rte_vdev_device;
/* A new ethdev for port i of a vdev (named as above), with an adapter. */
struct rte_eth_dev *tally_switch_vdev_port(struct rte_vdev_device *vdev, unsigned int i);
/* A new ethdev for port i >= 1 of the device of any bus (port 0 is the
 * bus's own allocation), named as above, with an adapter. */
struct rte_eth_dev *tally_switch_port_alloc(struct rte_device *device, unsigned int i);
/* The ports behind a mapped BAR from port 0's window at offset 0 (2.3; one
 * port before): their number and a window's bytes (len for one port),
 * every window at least min_win bytes and all inside len. 0, -ENODEV (no
 * signature, or len < min_win) or -EIO (a layout that does not fit). */
int tally_switch_layout(const char *name, const volatile uint8_t *bar, size_t len,
			size_t min_win, unsigned int *n, size_t *win);

/* tally_info.c */
int tally_dev_infos_get(struct rte_eth_dev *dev, struct rte_eth_dev_info *info);
int tally_fw_version_get(struct rte_eth_dev *dev, char *fw, size_t len);
/* *n packet types, then RTE_PTYPE_UNKNOWN for the releases that look for it */
const uint32_t *tally_supported_ptypes(struct rte_eth_dev *dev, size_t *n);

/*
 * tally_port_state.c: the port's life cycle in the primary process (see the
 * file's head). An operation enters the port for what it needs and leaves
 * it; enter fails with -ENODEV once a close has started, and with -EIO for
 * TALLY_PORT_DEVICE once the device is gone.
 */
enum tally_port_need {
	TALLY_PORT_SOFT,	/* software state only: still fine after the loss */
	TALLY_PORT_DEVICE,	/* programs or reads the device */
};
/* At the end of a successful probe: RUNNING, and the loss watch armed when
 * the transport can vanish. */
void tally_port_state_init(struct rte_eth_dev *dev);
int tally_port_enter(struct rte_eth_dev *dev, enum tally_port_need need);
void tally_port_leave(struct rte_eth_dev *dev);
/* True once the device was found gone (also while and after closing). */
bool tally_port_gone(const struct rte_eth_dev *dev);
/* The device was found gone (caller inside the port): RUNNING -> GONE once;
 * that caller swaps the bursts and schedules the removal event. */
void tally_port_lost(struct rte_eth_dev *dev);
/* The link changed: RTE_ETH_EVENT_INTR_LSC from an alarm, unless the port
 * is gone or closing by then. */
void tally_port_link_event(struct rte_eth_dev *dev);
/* True: the caller closes the port, nothing else is inside any more, then
 * calls tally_port_close_end(). False: closed already (by another caller,
 * which this one waited for): return. */
bool tally_port_close_begin(struct rte_eth_dev *dev);
void tally_port_close_end(struct rte_eth_dev *dev);

/* tally_hostif.c: vdev dev=<socket>, the device process on the host. */
struct rte_vdev_device;
int tally_hostif_probe(struct rte_vdev_device *vdev, const char *path);
int tally_hostif_probe_secondary(struct rte_vdev_device *vdev, struct rte_eth_dev *dev,
				 const char *path);

/* tally_queue.c */
int tally_rx_queue_setup(struct rte_eth_dev *dev, uint16_t qid,
			 uint16_t nb_desc, unsigned int socket_id,
			 const struct rte_eth_rxconf *conf,
			 struct rte_mempool *mp);
int tally_tx_queue_setup(struct rte_eth_dev *dev, uint16_t qid,
			 uint16_t nb_desc, unsigned int socket_id,
			 const struct rte_eth_txconf *conf);
void tally_rx_queue_release(struct rte_eth_dev *dev, uint16_t qid);
void tally_tx_queue_release(struct rte_eth_dev *dev, uint16_t qid);
int tally_rx_queue_start(struct rte_eth_dev *dev, uint16_t qid);
int tally_rx_queue_stop(struct rte_eth_dev *dev, uint16_t qid);
int tally_tx_queue_start(struct rte_eth_dev *dev, uint16_t qid);
int tally_tx_queue_stop(struct rte_eth_dev *dev, uint16_t qid);
void tally_rxq_info_get(struct rte_eth_dev *dev, uint16_t qid,
			struct rte_eth_rxq_info *qinfo);
void tally_txq_info_get(struct rte_eth_dev *dev, uint16_t qid,
			struct rte_eth_txq_info *qinfo);
int tally_rx_descriptor_status(void *rxq, uint16_t offset);
int tally_tx_descriptor_status(void *txq, uint16_t offset);

/* tally_telemetry.c */
int tally_dev_priv_dump(struct rte_eth_dev *dev, FILE *f);

/* tally_rss.c */
static inline bool
tally_rss_enabled(const struct rte_eth_dev *dev)
{
	return (dev->data->dev_conf.rxmode.mq_mode & RTE_ETH_MQ_RX_RSS_FLAG) != 0;
}
/* The default RETA for nb_rxq queues. */
void tally_reta_default(struct tally_adapter *ad, uint16_t nb_rxq);
/* Key, RETA and types into the device (port start). */
int tally_rss_program(struct rte_eth_dev *dev);
int tally_rss_hash_update(struct rte_eth_dev *dev, struct rte_eth_rss_conf *conf);
int tally_rss_hash_conf_get(struct rte_eth_dev *dev, struct rte_eth_rss_conf *conf);
int tally_reta_update(struct rte_eth_dev *dev, struct rte_eth_rss_reta_entry64 *reta,
		      uint16_t size);
int tally_reta_query(struct rte_eth_dev *dev, struct rte_eth_rss_reta_entry64 *reta,
		     uint16_t size);

/* tally_stats.c */
int tally_stats_get(struct rte_eth_dev *dev, struct rte_eth_stats *st);
int tally_stats_reset(struct rte_eth_dev *dev);
int tally_xstats_get(struct rte_eth_dev *dev, struct rte_eth_xstat *xs,
		     unsigned int n);
int tally_xstats_get_names(struct rte_eth_dev *dev,
			   struct rte_eth_xstat_name *names, unsigned int n);
int tally_xstats_reset(struct rte_eth_dev *dev);
/* Rx completions the driver refused since the port was probed, every queue
 * (no reset baseline): length, chain. */
void tally_stats_rx_refused(struct rte_eth_dev *dev, uint64_t *bad_len,
			    uint64_t *bad_chain);

#endif /* TALLY_PMD_H */
