/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tally-nic: the Tally NIC as its own process (see tally_nic.h and
 * doc/device-process.md).
 *
 *   tally-nic --bar FILE | --socket PATH [--guest-ram FILE] [--log-level N]
 *             [--stats-interval S] [--socket-group GROUP] [--allow-uid UIDS]
 *             [--allow-gid GIDS] [--allow-host-clients]
 *             [key=value[,key=value...] ...]
 *
 * The BAR is a shared-memory file (created anew, sized to a power of two so
 * it can also back a QEMU ivshmem-plain device). Device settings are the
 * vdev's device arguments (wire=, rx_pcap=, counters=, ...). Runs until
 * SIGINT or SIGTERM; SIGUSR1 prints the statistics.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "tally_guard.h"
#include "tally_hal_hostif.h"
#include "tally_nic.h"
#include "tally_plat.h"

/* Idle back-off, by time since the last loop that did work: spin, then
 * yield, then short sleeps; long sleeps only for a device idle for long. */
#define NIC_SPIN_NS		200000ull	/* spin this long (pause between polls) */
#define NIC_YIELD_NS		1000000ull	/* then yield the CPU between polls */
#define NIC_NAP_NS		20000	/* then sleep this long between polls */
#define NIC_DEEP_IDLE_NS	1000000000ull	/* idle this long: ... */
#define NIC_SLEEP_MAX_NS	500000	/* ... sleep this long (< heartbeat) */
#define NIC_IDLE_CLOCK_EVERY	64	/* idle loops between clock reads */
#define NIC_HOST_POLL_EVERY	64	/* loops between socket polls */

static volatile sig_atomic_t nic_stop;
static int nic_exit_code;		/* main's status after a clean stop */
static volatile sig_atomic_t nic_dump;
static volatile sig_atomic_t nic_release;
static enum tally_log_level nic_log_level = TALLY_LOG_NOTICE;

static void
nic_on_signal(int sig)
{
	if (sig == SIGUSR1)
		nic_dump = 1;
	else if (sig == SIGUSR2)
		nic_release = 1;
	else
		nic_stop = 1;
}

static void
nic_log_sink(enum tally_log_level level, const char *fmt, va_list ap)
{
	struct timespec ts;

	if (level > nic_log_level)
		return;
	clock_gettime(CLOCK_REALTIME, &ts);
	fprintf(stderr, "tally-nic[%d] %ld.%03ld ", (int)getpid(), (long)ts.tv_sec,
		ts.tv_nsec / 1000000);
	vfprintf(stderr, fmt, ap);
}

static void
nic_usage(FILE *f)
{
	fprintf(f,
		"usage: tally-nic [--bar FILE] [--socket PATH] [--guest-ram FILE]\n"
		"                 [--socket-group GROUP] [--allow-uid UID[,UID...]]\n"
		"                 [--allow-gid GID[,GID...]] [--allow-host-clients]\n"
		"                 [--log-level 1-5] [--stats-interval SECONDS] [--hold-wire]\n"
		"                 [key=value[,key=value...] ...]\n"
		"  --bar FILE        BAR shared-memory file (created anew; e.g. /dev/shm/tally0.bar)\n"
		"  --socket PATH     host transport: drivers attach with --vdev net_tally0,dev=PATH;\n"
		"                    the socket is mode 0600: only root and this process's user\n"
		"                    may connect unless allowed below\n"
		"  --socket-group GROUP  the socket mode 0660 in GROUP; its members may connect\n"
		"  --allow-uid UID[,UID...]  these users may connect too (names or numbers;\n"
		"                    the socket's mode must let them open it)\n"
		"  --allow-gid GID[,GID...]  members of these groups may connect too\n"
		"  --guest-ram FILE  PCI transport: QEMU guest RAM file (bus = guest-physical);\n"
		"                    with --socket only together with --allow-host-clients\n"
		"  --allow-host-clients  with --guest-ram and --socket: a client allowed on the\n"
		"                    socket may attach and reach the guest's RAM by DMA\n"
		"  --stats PATH      print the statistics of the device serving socket PATH and exit\n"
		"  --hold-wire       frames from the wire wait until SIGUSR2 (the cable is plugged in)\n"
		"  key=value         device settings as the vdev takes them: wire, rx_pcap, tx_pcap,\n"
		"                    pcap_loops, iface, gen_flows, gen_len, gen_count, rxq, txq,\n"
		"                    counters, comp_counters, mac, mode=thread (the only mode here),\n"
		"                    bad_rx=none|len|zero|more, bad_rx_every (a faulty device, for tests);\n"
		"                    ports=N (1..8) for a device of N ports (one BAR file, a window\n"
		"                    each), p<i>_key=value for port i alone (p1_wire=none)\n"
		"At least one of --bar and --socket. SIGUSR1 prints statistics; SIGINT/SIGTERM stop.\n");
}

/* --stats PATH: ask a running device for its statistics. */
static int
nic_query_stats(const char *path)
{
	char buf[8192];
	int rc = tally_hostif_stats(path, buf, sizeof(buf));

	if (rc != 0) {
		fprintf(stderr, "tally-nic: --stats %s: %s\n", path, strerror(-rc));
		return 1;
	}
	fputs(buf, stdout);
	return 0;
}

static size_t
nic_pow2(size_t v)
{
	size_t p = 4096;

	while (p < v)
		p <<= 1;
	return p;
}

/*
 * Create the BAR file (or an anonymous memory file) and map it. The memory
 * file is sealed at its size: nobody (a driver holding the fd included) can
 * shrink or grow it. A --bar file can be truncated by whoever may write it:
 * the mapping is guarded (tally_guard.h), and the device stops when it
 * finds it gone (nic_run) rather than dying of SIGBUS.
 */
static int
nic_bar_create(struct nic *n, size_t need)
{
	void *p;
	int rc;

	n->bar_len = nic_pow2(need);
	if (n->bar_path != NULL) {
		unlink(n->bar_path);	/* a driver still mapping an old one keeps it */
		n->bar_fd = open(n->bar_path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	} else {
		n->bar_fd = memfd_create("tally-bar", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	}
	if (n->bar_fd < 0 || ftruncate(n->bar_fd, (off_t)n->bar_len) != 0 ||
	    (n->bar_path == NULL &&
	     fcntl(n->bar_fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0)) {
		fprintf(stderr, "tally-nic: BAR %s: %s\n",
			n->bar_path ? n->bar_path : "(memfd)", strerror(errno));
		return -errno;
	}
	p = mmap(NULL, n->bar_len, PROT_READ | PROT_WRITE, MAP_SHARED, n->bar_fd, 0);
	if (p == MAP_FAILED) {
		fprintf(stderr, "tally-nic: BAR mmap: %s\n", strerror(errno));
		return -errno;
	}
	n->bar = p;
	rc = tally_guard_add(p, n->bar_len, &n->bar_lost);
	if (rc != 0)
		fprintf(stderr, "tally-nic: BAR guard: %s\n", strerror(-rc));
	return rc;
}

/* Apply "k=v,k=v" device settings (ports=N and p<i>_ keys included). */
static int
nic_apply_args(struct tally_model_ports_args *a, char *list)
{
	char err[256], *save = NULL, *kv, *eq;
	int rc;

	for (kv = strtok_r(list, ",", &save); kv != NULL;
	     kv = strtok_r(NULL, ",", &save)) {
		eq = strchr(kv, '=');
		if (eq == NULL) {
			fprintf(stderr, "tally-nic: '%s': expected key=value\n", kv);
			return -EINVAL;
		}
		*eq = '\0';
		if ((strcmp(kv, "mode") == 0 ||
		     (kv[0] == 'p' && strstr(kv, "_mode") != NULL)) &&
		    strcmp(eq + 1, "inline") == 0) {
			fprintf(stderr, "tally-nic: devarg mode=inline: the device process always runs the device on its own thread (mode=thread)\n");
			return -EINVAL;
		}
		rc = tally_model_ports_args_set(a, kv, eq + 1, err, sizeof(err));
		if (rc != 0) {
			fprintf(stderr, "tally-nic: %s\n", err);
			return rc;
		}
	}
	return 0;
}

static int
nic_parse(int argc, char **argv, struct nic *n, struct tally_model_ports_args *a,
	  const char **guest, unsigned int *stats_s)
{
	static const struct option opts[] = {
		{ "bar", required_argument, NULL, 'b' },
		{ "socket", required_argument, NULL, 's' },
		{ "guest-ram", required_argument, NULL, 'g' },
		{ "log-level", required_argument, NULL, 'l' },
		{ "stats-interval", required_argument, NULL, 'i' },
		{ "hold-wire", no_argument, NULL, 'w' },
		{ "stats", required_argument, NULL, 'q' },
		{ "socket-group", required_argument, NULL, 'G' },
		{ "allow-uid", required_argument, NULL, 'U' },
		{ "allow-gid", required_argument, NULL, 'A' },
		{ "allow-host-clients", no_argument, NULL, 'H' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char err[256];
	int c, rc;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'b': n->bar_path = optarg; break;
		case 's': n->sock_path = optarg; break;
		case 'g': *guest = optarg; break;
		case 'l':
			nic_log_level = (enum tally_log_level)atoi(optarg);
			if (nic_log_level < TALLY_LOG_ERR || nic_log_level > TALLY_LOG_DEBUG) {
				fprintf(stderr, "tally-nic: --log-level %s: 1..5\n", optarg);
				return -EINVAL;
			}
			break;
		case 'i': *stats_s = (unsigned int)strtoul(optarg, NULL, 10); break;
		case 'w': n->hold_wire = true; break;
		case 'G':
			if (nic_access_group(&n->access, optarg) != 0)
				return -EINVAL;
			break;
		case 'U':
			if (nic_access_uids(&n->access, optarg) != 0)
				return -EINVAL;
			break;
		case 'A':
			if (nic_access_gids(&n->access, optarg) != 0)
				return -EINVAL;
			break;
		case 'H': n->access.host_clients = true; break;
		case 'q': exit(nic_query_stats(optarg));
		case 'h': nic_usage(stdout); exit(0);
		default: nic_usage(stderr); return -EINVAL;
		}
	}
	if (n->bar_path == NULL && n->sock_path == NULL) {
		nic_usage(stderr);
		return -EINVAL;
	}
	/* a driver attached on the socket programs translations to bus
	 * addresses, which with guest RAM are the guest's memory */
	if (*guest != NULL && n->sock_path != NULL && !n->access.host_clients) {
		fprintf(stderr, "tally-nic: --guest-ram with --socket: a client of the socket could attach and reach the guest's RAM; add --allow-host-clients to allow that\n");
		return -EINVAL;
	}
	for (; optind < argc; optind++) {
		rc = nic_apply_args(a, argv[optind]);
		if (rc != 0)
			return rc;
	}
	rc = tally_model_ports_args_done(a, err, sizeof(err));
	if (rc != 0)
		fprintf(stderr, "tally-nic: %s\n", err);
	return rc;
}

static void
nic_print_stats(const struct nic *n)
{
	char buf[8192];

	nic_stats_format(n, buf, sizeof(buf));
	fprintf(stderr, "---- tally-nic statistics ----\n%s", buf);
}

/*
 * The device thread: posted writes, device steps, socket. It spins while
 * there is work and for NIC_SPIN_NS after the last of it (a forwarding loop
 * that was preempted for a moment finds the device awake), then yields,
 * then sleeps NIC_NAP_NS at a time, and NIC_SLEEP_MAX_NS only once idle for
 * NIC_DEEP_IDLE_NS. (Naps that grow to 500 us within a millisecond of
 * idleness leave the device asleep for hundreds of microseconds after any
 * short pause of the driver's core.)
 */
static void
nic_run(struct nic *n, unsigned int stats_s)
{
	struct timespec nap = { 0, 0 };
	uint64_t idle = 0, loops = 0, next_stats = 0, now = 0, last_work;
	unsigned int work;
	uint32_t p;

	last_work = tally_time_ns();
	if (stats_s != 0)
		next_stats = last_work + (uint64_t)stats_s * 1000000000ull;
	while (!nic_stop) {
		if (__atomic_load_n(&n->bar_lost, __ATOMIC_ACQUIRE)) {
			TALLY_LOG(ERR, "the BAR file %s shrank under the device: stopping",
				  n->bar_path ? n->bar_path : "(memfd)");
			nic_exit_code = 1;
			break;
		}
		for (work = 0, p = 0; p < n->nb_ports; p++) {
			work += tally_model_mbox_poll(n->ports[p]);
			work += tally_model_step(n->ports[p]);
		}
		/* a driver's memory shrank under the step (the SIGBUS guard) */
		if (nic_guard_faults(NULL) != n->guard_seen) {
			uintptr_t addr;
			uint64_t faults = nic_guard_faults(&addr);

			nic_host_mem_gone(n, faults - n->guard_seen, addr);
			n->guard_seen = faults;
		}
		/* the socket (a system call): every NIC_HOST_POLL_EVERY loops,
		 * busy or idle, and before every sleep */
		if ((++loops % NIC_HOST_POLL_EVERY) == 0)
			work += nic_host_poll(n);
		if (nic_dump) {
			nic_dump = 0;
			nic_print_stats(n);
		}
		if (nic_release) {
			nic_release = 0;
			for (p = 0; p < n->nb_ports; p++)
				tally_model_hold_wire(n->ports[p], 0);
			TALLY_LOG(NOTICE, "wire released");
		}
		if (work != 0) {
			idle = 0;
			continue;
		}
		if (idle++ % NIC_IDLE_CLOCK_EVERY == 0) {
			now = tally_time_ns();
			if (idle == 1)
				last_work = now;
		}
		if (now - last_work < NIC_SPIN_NS) {
			__builtin_ia32_pause();
			continue;
		}
		if (now - last_work < NIC_YIELD_NS) {
			sched_yield();
			continue;
		}
		if (nic_host_poll(n) != 0) {
			idle = 0;
			continue;
		}
		nap.tv_nsec = now - last_work < NIC_DEEP_IDLE_NS ? NIC_NAP_NS :
			      NIC_SLEEP_MAX_NS;
		nanosleep(&nap, NULL);
		now = tally_time_ns();
		if (stats_s != 0 && now >= next_stats) {
			nic_print_stats(n);
			next_stats = now + (uint64_t)stats_s * 1000000000ull;
		}
	}
}

int
main(int argc, char **argv)
{
	struct nic n = {
		.bar_fd = -1, .listen_fd = -1, .drv_fd = -1, .guest_fd = -1,
		.access.sock_gid = -1,
	};
	static struct tally_model_ports_args a;
	struct tally_model_config cfg[TALLY_MAX_PORTS];
	struct sigaction sa;
	const char *guest = NULL;
	unsigned int stats_s = 0;
	char err[256] = "";
	uint32_t i;
	int rc;

	tally_model_ports_args_init(&a);
	rc = nic_parse(argc, argv, &n, &a, &guest, &stats_s);
	if (rc != 0)
		return 2;
	tally_plat_set_log_sink(nic_log_sink);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = nic_on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGUSR1, &sa, NULL);
	sigaction(SIGUSR2, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	/* before the BAR's guard (nic_bar_create()), which then passes on
	 * the faults outside the BAR */
	rc = nic_guard_install();
	if (rc != 0) {
		fprintf(stderr, "tally-nic: SIGBUS handler: %s\n", strerror(-rc));
		return 1;
	}

	n.nb_ports = a.n;
	for (i = 0; i < n.nb_ports; i++) {
		cfg[i] = a.port[i].cfg;
		cfg[i].mode = TALLY_MODEL_INLINE;	/* this process is the device thread */
		cfg[i].posted = 1;
		cfg[i].bus_map = nic_bus_map;
		cfg[i].bus_unmap = nic_bus_unmap;
		cfg[i].bus_arg = &n;
	}
	if (guest != NULL && nic_guest_map(&n, guest) != 0)
		return 1;
	/* one BAR file: the ports' windows (tally_regs.h, PORT_STRIDE) */
	if (nic_bar_create(&n, tally_model_ports_bar_size(cfg, n.nb_ports, NULL)) != 0)
		return 1;
	cfg[0].bar_mem = n.bar;
	cfg[0].bar_mem_len = n.bar_len;
	rc = tally_model_create_ports(cfg, n.nb_ports, n.ports, err, sizeof(err));
	n.model = n.ports[0];
	if (rc != 0) {
		n.nb_ports = 0;
		n.model = NULL;
		fprintf(stderr, "tally-nic: cannot create the device: %s\n",
			err[0] ? err : strerror(-rc));
		rc = 1;
		goto out;
	}
	for (i = 0; i < n.nb_ports; i++)
		tally_model_hold_wire(n.ports[i], n.hold_wire);
	/* this thread alone runs the device (nic_run()): no model lock */
	tally_model_solo(n.model);
	if (n.sock_path != NULL && nic_host_listen(&n) != 0) {
		rc = 1;
		goto out;
	}
	if (n.nb_ports > 1) {
		size_t stride;

		tally_model_ports_bar_size(cfg, n.nb_ports, &stride);
		TALLY_LOG(NOTICE, "%u ports, a window every %zu bytes", n.nb_ports, stride);
	}
	TALLY_LOG(NOTICE, "device ready: BAR %s (%zu bytes)%s%s%s%s",
		  n.bar_path ? n.bar_path : "(memfd)", n.bar_len,
		  n.sock_path ? ", socket " : "", n.sock_path ? n.sock_path : "",
		  guest ? ", guest RAM " : "", guest ? guest : "");
	nic_run(&n, stats_s);
	TALLY_LOG(NOTICE, "stopping");
	if (nic_log_level >= TALLY_LOG_NOTICE)
		nic_print_stats(&n);
	rc = nic_exit_code;
out:
	nic_host_close(&n);
	for (i = 0; i < n.nb_ports; i++)
		tally_model_destroy(n.ports[i]);
	if (n.bar != NULL) {
		tally_guard_del(n.bar);
		munmap(n.bar, n.bar_len);
	}
	if (n.bar_fd >= 0)
		close(n.bar_fd);
	if (n.bar_path != NULL)
		unlink(n.bar_path);
	nic_guest_unmap(&n);
	tally_free(n.ranges);
	return rc;
}
