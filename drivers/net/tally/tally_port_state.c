/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The life cycle of a port in the primary process: device loss is a state,
 * not a race.
 *
 *   RUNNING --(the device is found gone)--> GONE
 *      |                                      |
 *      +--------------(close)-----------------+--> CLOSING --> CLOSED
 *
 * - RUNNING -> GONE happens once, by compare-and-swap, whoever sees the loss
 *   first: the loss watch (an EAL alarm every TALLY_PORT_WATCH_US while the
 *   transport can vanish: a device process, a PCI function) or a link
 *   read. That one caller swaps the burst functions for ones that touch
 *   nothing and schedules the removal event (RTE_ETH_EVENT_INTR_RMV),
 *   delivered from an EAL alarm on the interrupt thread: never from inside
 *   an operation of the application, which may close the port from its
 *   callback.
 * - Close is taken by compare-and-swap too: the first closer tears down,
 *   once; a closer that comes second waits until the first is done and
 *   returns (ethdev releases the port after each close returns, so the
 *   second may not return earlier). The first closer cancels the loss
 *   watch and then waits for the operations inside the port to leave.
 * - Operations enter the port (tally_port_enter()/tally_port_leave(), an
 *   atomic count): none is inside once a close has started, and the state
 *   says what an operation may still do: after the loss, only what works
 *   on software state (doc/guides/nics/tally.rst, "Device loss").
 *
 * The state lives in this library's own data, one slot per port id, not in
 * the adapter: ethdev frees the adapter as soon as close returns, and a
 * second closer, a late alarm or event may still look. A slot's generation
 * (bumped at each probe on that port id) tells an alarm of an earlier port
 * from one of the current port.
 *
 * Not fenced against a concurrent close, as a burst is not: the per-rule
 * rte_flow calls (create, destroy, query, the flow queue operations), which
 * only test the state. An application must not run them, nor bursts, while
 * it closes the port.
 *
 * Secondary processes have no slots (all FREE): their operations are not
 * fenced, they see the link down and no removal event.
 */
#include <rte_alarm.h>
#include <rte_cycles.h>

#include "tally_pmd.h"
#include "tally_hal_io.h"
#include "tally_logs.h"

#define TALLY_PORT_WATCH_US	100000	/* how often the loss watch looks */

enum tally_port_state {
	TALLY_PORT_FREE,	/* never probed in this process */
	TALLY_PORT_RUNNING,
	TALLY_PORT_GONE,
	TALLY_PORT_CLOSING,
	TALLY_PORT_CLOSED,
};

struct tally_port_slot {
	uint32_t state;		/* enum tally_port_state; atomic */
	uint32_t users;		/* operations inside the port; atomic */
	uint32_t gen;		/* bumped by each probe of this port id */
};

static struct tally_port_slot tally_ports[RTE_MAX_ETHPORTS];

/* By the port's place in rte_eth_devices[]: valid even once ethdev has
 * cleared the port's data. */
static uint16_t
port_of(const struct rte_eth_dev *dev)
{
	return (uint16_t)(dev - rte_eth_devices);
}

static struct tally_port_slot *
slot_of(const struct rte_eth_dev *dev)
{
	return &tally_ports[port_of(dev)];
}

/* An alarm's argument: the port and the generation it was set for. */
static void *
alarm_arg(uint16_t port, uint32_t gen)
{
	return (void *)(uintptr_t)((uint64_t)gen << 16 | port);
}

/* The slot of an alarm's port, or NULL when the alarm is stale. */
static struct tally_port_slot *
alarm_slot(void *arg, uint16_t *port)
{
	uint64_t v = (uintptr_t)arg;
	struct tally_port_slot *s;

	*port = (uint16_t)(v & 0xffff);
	if (*port >= RTE_MAX_ETHPORTS)
		return NULL;
	s = &tally_ports[*port];
	if (__atomic_load_n(&s->gen, __ATOMIC_ACQUIRE) != (uint32_t)(v >> 16))
		return NULL;
	return s;
}

/* ---- Rx/Tx after the loss -------------------------------------------------- */

/* The Rx and the Tx burst function of a port whose device is gone (both
 * have this type): no queue, no device, nothing received or sent. */
static uint16_t
tally_gone_burst(void *q, struct rte_mbuf **pkts, uint16_t n)
{
	RTE_SET_USED(q);
	RTE_SET_USED(pkts);
	RTE_SET_USED(n);
	return 0;
}

/*
 * The next burst of every lcore goes to the function above: the port's
 * and, while it is started, the copies ethdev calls through. A burst
 * already running finishes on the real function, which is safe on a device
 * that is gone (writes are dropped, reads give all ones, the rings are host
 * memory). A start copies the port's functions again, but a start fails
 * from now on.
 */
static void
port_bursts_gone(struct rte_eth_dev *dev)
{
	struct rte_eth_fp_ops *fp = &rte_eth_fp_ops[port_of(dev)];

	dev->rx_pkt_burst = tally_gone_burst;
	dev->tx_pkt_burst = tally_gone_burst;
	if (!dev->data->dev_started)
		return;
	__atomic_store_n(&fp->rx_pkt_burst, tally_gone_burst, __ATOMIC_RELEASE);
	__atomic_store_n(&fp->tx_pkt_burst, tally_gone_burst, __ATOMIC_RELEASE);
}

/* ---- entering the port ---------------------------------------------------- */

int
tally_port_enter(struct rte_eth_dev *dev, enum tally_port_need need)
{
	struct tally_port_slot *s = slot_of(dev);
	uint32_t st;

	/* seq_cst, both: the closer stores CLOSING, then loads users; one of
	 * the two sees the other */
	__atomic_add_fetch(&s->users, 1, __ATOMIC_SEQ_CST);
	st = __atomic_load_n(&s->state, __ATOMIC_SEQ_CST);
	if (st == TALLY_PORT_CLOSING || st == TALLY_PORT_CLOSED) {
		tally_port_leave(dev);
		return -ENODEV;
	}
	if (st == TALLY_PORT_GONE && need == TALLY_PORT_DEVICE) {
		tally_port_leave(dev);
		return -EIO;
	}
	return 0;
}

void
tally_port_leave(struct rte_eth_dev *dev)
{
	/* release: what the operation did comes before the closer's teardown */
	__atomic_sub_fetch(&slot_of(dev)->users, 1, __ATOMIC_RELEASE);
}

bool
tally_port_gone(const struct rte_eth_dev *dev)
{
	return __atomic_load_n(&slot_of(dev)->state, __ATOMIC_ACQUIRE) >= TALLY_PORT_GONE;
}

/* ---- the loss ----------------------------------------------------------------- */

/* The removal event. Not inside the port: the application's callback may
 * close it. A port closed since the loss has nobody left to tell (a close
 * that starts between the check and the callbacks is the window left). */
static void
port_notify(void *arg)
{
	struct tally_port_slot *s;
	uint16_t port;

	s = alarm_slot(arg, &port);
	if (s == NULL || __atomic_load_n(&s->state, __ATOMIC_ACQUIRE) != TALLY_PORT_GONE)
		return;
	rte_eth_dev_callback_process(&rte_eth_devices[port], RTE_ETH_EVENT_INTR_RMV, NULL);
}

void
tally_port_lost(struct rte_eth_dev *dev)
{
	struct tally_port_slot *s = slot_of(dev);
	uint32_t st = TALLY_PORT_RUNNING;
	uint16_t port = port_of(dev);

	if (!__atomic_compare_exchange_n(&s->state, &st, TALLY_PORT_GONE, false,
					 __ATOMIC_SEQ_CST, __ATOMIC_RELAXED))
		return;		/* seen before, closing, or no slot */
	TALLY_DRV_LOG(ERR, "port %u: the device is gone: link down, no more Rx or Tx, removal event",
		      port);
	port_bursts_gone(dev);
	if (rte_eal_alarm_set(1, port_notify,
			      alarm_arg(port, __atomic_load_n(&s->gen, __ATOMIC_RELAXED))) != 0)
		TALLY_DRV_LOG(ERR, "port %u: cannot schedule the removal event: %s", port,
			      rte_strerror(rte_errno));
}

/* A link status change event (tally_link.c), as the removal event is
 * delivered: from the interrupt thread, for a port still running. */
static void
port_link_notify(void *arg)
{
	struct tally_port_slot *s;
	uint16_t port;

	s = alarm_slot(arg, &port);
	if (s == NULL || __atomic_load_n(&s->state, __ATOMIC_ACQUIRE) != TALLY_PORT_RUNNING)
		return;
	rte_eth_dev_callback_process(&rte_eth_devices[port], RTE_ETH_EVENT_INTR_LSC, NULL);
}

void
tally_port_link_event(struct rte_eth_dev *dev)
{
	struct tally_port_slot *s = slot_of(dev);
	uint16_t port = port_of(dev);

	if (rte_eal_alarm_set(1, port_link_notify,
			      alarm_arg(port, __atomic_load_n(&s->gen, __ATOMIC_RELAXED))) != 0)
		TALLY_DRV_LOG(ERR, "port %u: cannot schedule the link event: %s", port,
			      rte_strerror(rte_errno));
}

/* The loss watch: looks at the transport, re-arms itself until the device is
 * gone or the port closes. Never runs application code. */
static void
port_watch(void *arg)
{
	struct rte_eth_dev *dev;
	struct tally_port_slot *s;
	uint16_t port;

	s = alarm_slot(arg, &port);
	if (s == NULL)
		return;
	dev = &rte_eth_devices[port];
	if (tally_port_enter(dev, TALLY_PORT_DEVICE) != 0)
		return;		/* gone already, or closing */
	if (tally_hal_gone(tally_proc_hal(dev)))
		tally_port_lost(dev);
	else if (rte_eal_alarm_set(TALLY_PORT_WATCH_US, port_watch, arg) != 0)
		TALLY_DRV_LOG(ERR, "port %u: loss watch stopped: %s; a link read still sees the loss",
			      port, rte_strerror(rte_errno));
	tally_port_leave(dev);
}

void
tally_port_state_init(struct rte_eth_dev *dev)
{
	struct tally_port_slot *s = slot_of(dev);
	uint16_t port = port_of(dev);
	uint32_t gen;

	if (rte_eal_process_type() != RTE_PROC_PRIMARY)
		return;
	/* users is 0: a closed port has none left inside */
	gen = __atomic_add_fetch(&s->gen, 1, __ATOMIC_RELEASE);
	__atomic_store_n(&s->state, TALLY_PORT_RUNNING, __ATOMIC_RELEASE);
	/* the in-process device cannot vanish: no watch */
	if (tally_proc_hal(dev)->io.ops->state == NULL)
		return;
	if (rte_eal_alarm_set(TALLY_PORT_WATCH_US, port_watch, alarm_arg(port, gen)) != 0)
		TALLY_DRV_LOG(ERR, "port %u: no loss watch: %s; a link read still sees the loss",
			      port, rte_strerror(rte_errno));
}

/* ---- close ------------------------------------------------------------------------ */

/* Until the slot leaves `from` (1 ms naps: closes and operations are
 * control path). */
static void
port_wait_state(struct tally_port_slot *s, uint32_t from)
{
	while (__atomic_load_n(&s->state, __ATOMIC_ACQUIRE) == from)
		rte_delay_us_sleep(1000);
}

bool
tally_port_close_begin(struct rte_eth_dev *dev)
{
	struct tally_port_slot *s = slot_of(dev);
	uint32_t st = __atomic_load_n(&s->state, __ATOMIC_ACQUIRE);
	uint16_t port = port_of(dev);

	do {
		if (st == TALLY_PORT_CLOSED)
			return false;
		if (st == TALLY_PORT_CLOSING) {
			port_wait_state(s, TALLY_PORT_CLOSING);
			return false;
		}
	} while (!__atomic_compare_exchange_n(&s->state, &st, TALLY_PORT_CLOSING, false,
					      __ATOMIC_SEQ_CST, __ATOMIC_ACQUIRE));
	/* the watch never waits for a close, so this never waits for long
	 * (it waits for a running watch to return); a removal event still
	 * to come finds the port closing and says nothing */
	rte_eal_alarm_cancel(port_watch,
			     alarm_arg(port, __atomic_load_n(&s->gen, __ATOMIC_RELAXED)));
	rte_eal_alarm_cancel(port_link_notify,
			     alarm_arg(port, __atomic_load_n(&s->gen, __ATOMIC_RELAXED)));
	while (__atomic_load_n(&s->users, __ATOMIC_SEQ_CST) != 0)
		rte_delay_us_sleep(100);
	return true;
}

void
tally_port_close_end(struct rte_eth_dev *dev)
{
	__atomic_store_n(&slot_of(dev)->state, TALLY_PORT_CLOSED, __ATOMIC_RELEASE);
}
