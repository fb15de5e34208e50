/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The software Tally NIC.
 *
 * What: an implementation of the programming model in include/tally/: a BAR
 * (register file, statistics, counter banks) in host memory, Rx/Tx rings with
 * completions and doorbells, DMA translation, steering execution, and a
 * wire back end on the other side of the port.
 *
 * The model includes only include/tally/ and lib/plat; it never sees driver
 * code. The driver reaches it through a struct tally_io (tally_io.h) filled by
 * tally_model_io(): register writes go through the model's decoder, and
 * `service` runs one device step on the caller's thread.
 *
 * Modes:
 *  - inline: the device only runs inside register writes (Tx doorbells are
 *    processed before the write returns) and inside `service` calls (pending
 *    Tx, wire input). Deterministic; used by tests.
 *  - thread: a model thread polls doorbells and the wire; `service` still runs
 *    a step on the caller's thread (waiting for one in progress), so a driver
 *    that calls it from its burst functions keeps the device moving when the
 *    thread gets no CPU.
 *
 * Thread-safety: all entry points may be called from several threads; the
 * model serialises its pipeline with one internal lock.
 */
#ifndef TALLY_MODEL_H
#define TALLY_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include <tally/tally_io.h>
#include <tally/tally_regs.h>

struct tally_model;

enum tally_model_mode {
	TALLY_MODEL_INLINE = 0,
	TALLY_MODEL_THREAD = 1,
};

enum tally_wire_kind {
	TALLY_WIRE_LOOP = 0,	/* Tx frames come back as Rx frames */
	TALLY_WIRE_PCAP,	/* Rx from a pcap file, Tx to a pcap file */
	TALLY_WIRE_IF,		/* a Linux interface through AF_PACKET */
	TALLY_WIRE_GEN,		/* packet generator (Rx); Tx frames are counted and dropped */
	TALLY_WIRE_NONE,	/* nothing arrives; Tx frames are counted and dropped */
};

/*
 * A faulty device, for the driver's tests (doc/security.md): every
 * bad_rx_every-th Rx completion of a frame the device delivers is written
 * wrong. The frame's data still goes to the buffers; only what the
 * completion claims is false.
 */
enum tally_model_bad_rx {
	TALLY_BAD_RX_NONE = 0,
	TALLY_BAD_RX_LEN,	/* length 65535, whatever the buffer */
	TALLY_BAD_RX_ZERO,	/* length 0 */
	TALLY_BAD_RX_MORE,	/* "more segments" set (every = 1: never clears) */
};

/*
 * The device's bus (what a translation's bus address means): bus_map makes
 * [bus, bus + len) reachable for the translation of [iova, iova + len) and
 * returns its host pointer, or NULL when that is not memory the device can
 * reach; bus_unmap releases len bytes from host, a part of what bus_map
 * returned, when those pages are unmapped. Called under the model lock, on
 * MAP, UNMAP, CLEAR, reset and destroy only; never on the data path.
 * Without bus_map the bus is this process's address space (host = bus).
 */
typedef void *(*tally_model_bus_map_t)(void *arg, uint64_t iova, uint64_t bus,
				       uint64_t len);
typedef void (*tally_model_bus_unmap_t)(void *arg, void *host, uint64_t len);

/*
 * Instructions the classification engine may use for its per-matcher hash
 * and compare (the steering executor), at most: AUTO is the best the CPU
 * has. Every level gives the same verdicts; tests pin one to cover each.
 */
enum tally_model_cls_isa {
	TALLY_CLS_ISA_AUTO = 0,
	TALLY_CLS_ISA_GENERIC,		/* C only: the table CRC32-C */
	TALLY_CLS_ISA_CRC32C,		/* + the SSE4.2 CRC32-C instruction */
	TALLY_CLS_ISA_AVX512,		/* + AVX-512F gather, mask and compare */
};

struct tally_model_config {
	enum tally_model_mode mode;
	uint32_t rx_queues;		/* 1..TALLY_MAX_QUEUES */
	uint32_t tx_queues;		/* 1..TALLY_MAX_QUEUES */
	uint32_t counters;		/* flow counter bank entries, >= 1 */
	uint32_t comp_counters;		/* completion counter bank entries, >= 1 */
	uint32_t max_frame;		/* bytes without FCS, 64..16383 */
	uint8_t mac[6];
	enum tally_wire_kind wire;
	const char *pcap_rx;		/* TALLY_WIRE_PCAP: input file, may be NULL */
	const char *pcap_tx;		/* TALLY_WIRE_PCAP: output file, may be NULL */
	uint32_t pcap_loops;		/* replay the input this many times (0 = 1) */
	const char *iface;		/* TALLY_WIRE_IF: interface name */
	uint32_t gen_flows;		/* TALLY_WIRE_GEN: distinct UDP flows, >= 1 */
	uint32_t gen_len;		/* TALLY_WIRE_GEN: frame length, 60..max_frame */
	uint64_t gen_count;		/* TALLY_WIRE_GEN: frames to send, 0 = endless */
	tally_model_bus_map_t bus_map;
	tally_model_bus_unmap_t bus_unmap;
	void *bus_arg;
	/*
	 * The BAR: NULL lets the model allocate it; otherwise caller memory of
	 * bar_mem_len >= tally_model_bar_size() bytes (a shared-memory file),
	 * zeroed and laid out by tally_model_create(), never freed by it.
	 */
	void *bar_mem;
	size_t bar_mem_len;
	/*
	 * Stores to the BAR do not reach the device (shared memory): advertise
	 * TALLY_CAP_POSTED and take register writes from the mailbox
	 * (tally_mbox.h) through tally_model_mbox_poll().
	 */
	int posted;
	/*
	 * Inline mode: a Tx doorbell only records the producer index and the
	 * next step (service, tally_model_step()) processes it, as in thread
	 * mode, so the step can hand the frames on the loop wire to Rx by
	 * reference (one copy per frame). For a driver that steps the device
	 * after ringing its Tx doorbells (the PMD does); 0 (the default)
	 * processes a Tx doorbell inside write32.
	 */
	int defer_tx;
	/*
	 * In-process device that other processes (DPDK secondaries) also
	 * drive: keep a mailbox (tally_mbox.h) with one running session in
	 * the BAR (which should then be shared memory, bar_mem), and apply
	 * what is posted there at every step. CAPS.POSTED is not advertised:
	 * the creator writes registers directly.
	 */
	int mbox;
	enum tally_model_bad_rx bad_rx;	/* devarg bad_rx=len|zero|more */
	uint32_t bad_rx_every;		/* devarg bad_rx_every, >= 1 (default 1) */
	enum tally_model_cls_isa cls_isa;	/* default AUTO */
};

/* Defaults: inline, 8+8 queues, 1M counters, 64K completion counters,
 * max_frame 9216, MAC 02:00:00:00:00:00, loop wire. */
void tally_model_config_init(struct tally_model_config *cfg);

/*
 * Create a model. On failure returns a negative errno and writes a message
 * naming the faulty setting into errbuf (if not NULL).
 */
int tally_model_create(const struct tally_model_config *cfg,
		       struct tally_model **out, char *errbuf, size_t errlen);
void tally_model_destroy(struct tally_model *m);

/* Bytes of BAR the configuration needs (register file and both banks). */
size_t tally_model_bar_size(const struct tally_model_config *cfg);

/*
 * A device of n ports (spec 2.3, 1 <= n <= TALLY_MAX_PORTS) with its switch:
 * port i is configured by cfg[i] (its own wire, queues, banks, MAC, mode);
 * cfg[0].bar_mem / bar_mem_len, posted and mbox give the whole BAR and its
 * transport (the other ports' are not used). out[i] is port i: a model as
 * tally_model_create() makes, whose tally_model_io() reaches port i's
 * window (PORT, PORT_STRIDE tell the driver the layout); port 0's window
 * also holds the switch registers. The ports share one lock, so a frame
 * the switch sends from one port to another never waits for a second one.
 * n = 1 is the device tally_model_create() makes. Destroying a port of a
 * device with several stops its wire and threads; the device's memory goes
 * with the last port destroyed.
 */
int tally_model_create_ports(const struct tally_model_config *cfg, uint32_t n,
			     struct tally_model **out, char *errbuf, size_t errlen);
/* Bytes of BAR a device of n ports needs, and the distance between two
 * ports' windows (*stride, 0 with one port; may be NULL). */
size_t tally_model_ports_bar_size(const struct tally_model_config *cfg, uint32_t n,
				  size_t *stride);

/*
 * Device-process settings given as the vdev's key=value device arguments
 * (wire, rx_pcap, tx_pcap, pcap_loops, iface, gen_flows, gen_len, gen_count,
 * rxq, txq, counters, comp_counters, mode, mac). The strings cfg points to
 * live in this struct.
 */
#define TALLY_MODEL_ARGS_MAX_QUEUES	8	/* rxq/txq: the driver's limit */

struct tally_model_args {
	struct tally_model_config cfg;
	char rx_pcap[4096];
	char tx_pcap[4096];
	char iface[64];
};

void tally_model_args_init(struct tally_model_args *a);
/* Apply one key=value. -EINVAL unknown key or malformed value, -ERANGE out
 * of range, -ENOENT unreadable rx_pcap; errbuf names the argument. */
int tally_model_args_set(struct tally_model_args *a, const char *key,
			 const char *val, char *errbuf, size_t errlen);

/*
 * The settings of a device of several ports: `ports=N` (1..TALLY_MAX_PORTS,
 * default 1); a key of tally_model_args_set() applies to every port, and
 * `p<i>_<key>` (p1_wire=pcap) to port i only, whatever the order. A port
 * given no mac of its own takes the device's with i added to the last byte.
 * done() checks what depends on the whole set (a p<i>_ key for a port the
 * device does not have: -EINVAL) and derives the MACs; call it once, after
 * the last set().
 */
struct tally_model_ports_args {
	uint32_t n;
	uint32_t own_mac;		/* bit i: port i was given p<i>_mac */
	uint32_t named;			/* bit i: a p<i>_ key was given */
	uint32_t own_keys[TALLY_MAX_PORTS];	/* bit k: port i was given its own
						 * value of key k (an unprefixed
						 * key leaves it alone) */
	struct tally_model_args port[TALLY_MAX_PORTS];
};
void tally_model_ports_args_init(struct tally_model_ports_args *a);
int tally_model_ports_args_set(struct tally_model_ports_args *a, const char *key,
			       const char *val, char *errbuf, size_t errlen);
int tally_model_ports_args_done(struct tally_model_ports_args *a, char *errbuf,
				size_t errlen);

/* Fill the transport the driver uses to reach this model. */
void tally_model_io(struct tally_model *m, struct tally_io *io);

/* Start the device's own thread if it has none (an inline device that
 * other processes now drive too: their doorbells must not wait for the
 * creator's next burst). 0 or -errno. Any thread. */
int tally_model_run_thread(struct tally_model *m);

/*
 * Only the calling thread calls into this device (every port) from now on,
 * and nothing else reads or writes its state but through the BAR: the model
 * lock is not taken (the device process, whose one thread runs every port;
 * an uncontended lock still costs a locked instruction per step, which
 * waits for every store before it). No effect on a device with a thread of
 * its own; tally_model_run_thread() then fails with -EPERM.
 */
void tally_model_solo(struct tally_model *m);

/* Run one device step now (inline mode): process pending doorbells, take up
 * to a burst of frames from the wire. Returns frames moved. */
unsigned int tally_model_step(struct tally_model *m);

/* Inject a frame as if it arrived from the wire (tests). Returns 0 or -errno. */
int tally_model_inject(struct tally_model *m, const uint8_t *frame, uint32_t len);

/*
 * Posted transport (cfg.posted): apply the register writes posted to the
 * mailbox since the last call, tick the heartbeat, and handle a driver
 * attaching with a new session. Called by the one thread that runs the
 * device. Returns the writes applied (an attach counts as one).
 */
unsigned int tally_model_mbox_poll(struct tally_model *m);

/* Host memory [host, host + len) is about to go away (the bus no longer
 * reaches it): remove every translation into it, as an UNMAP would. Any
 * thread; takes the model lock. */
void tally_model_xlt_forget_host(struct tally_model *m, const void *host, size_t len);

/* The driver is gone (its connection closed): reset the device and forget
 * its session, so nothing it left behind is applied. */
void tally_model_detach(struct tally_model *m);

/* Device-side view of the BAR (the device process reads its statistics). */
const volatile uint8_t *tally_model_bar(const struct tally_model *m, size_t *len);

/* Hold frames on the wire (hold != 0) or let them in again: a cable
 * plugged in at a chosen moment. Transmit is not affected. Any thread. */
void tally_model_hold_wire(struct tally_model *m, int hold);

/* True once the wire input is exhausted (pcap input read to the end, gen
 * count reached); always false for loop and if. */
int tally_model_wire_eof(struct tally_model *m);

#endif /* TALLY_MODEL_H */
