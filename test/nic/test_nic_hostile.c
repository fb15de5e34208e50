/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The device process (tally-nic) against clients that do not play by the
 * rules (doc/device-process.md, "Who may connect"): connections that never
 * say HELLO (the attached driver, the statistics and a new driver are
 * served all the same; the silent ones are closed after their deadline;
 * pending handshakes are bounded), a slow HELLO, MEM ranges their file does
 * not hold, messages out of order or carrying descriptors they do not take,
 * peers the device does not allow (the socket's mode, SO_PEERCRED, the
 * allow lists, --socket-group, guest RAM behind a socket), and memory a
 * driver shares shrinking under the device (SIGBUS: the device survives
 * and detaches that driver).
 *
 * argv[1]: the tally-nic executable. Runs as root (setresuid() to other
 * users for the peer checks); skipped otherwise.
 */
#include <grp.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "nic_test_util.h"

#define HELLO_TIMEOUT_MS	1000	/* tally-nic's deadline for a HELLO */
#define PENDING_MAX		8	/* tally-nic's pending handshakes */
#define UID_NOBODY		65534
#define GID_NOGROUP		65534
#define UID_OTHER		65533	/* a user without a name */

static char log_path[128];

static uint64_t
ms_since(uint64_t t0)
{
	return (tally_time_ns() - t0) / 1000000;
}

/* Does the device's log hold s? */
static bool
log_has(const char *s)
{
	char buf[65536];
	size_t n;
	FILE *f = fopen(log_path, "r");

	if (f == NULL)
		return false;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	return strstr(buf, s) != NULL;
}

/* The device of the running case: one a failed case left behind is
 * killed when the next starts, or at the end. */
static pid_t cur_pid;

static void
nic_reap(void)
{
	if (cur_pid > 0)
		nic_stop(cur_pid, SIGKILL);
	cur_pid = 0;
}

static pid_t
nic_start_logged(const char *const *extra)
{
	nic_reap();
	unlink(log_path);
	cur_pid = nic_start_log(extra, log_path);
	return cur_pid;
}

static void
nic_end(pid_t pid)
{
	nic_stop(pid, SIGTERM);
	cur_pid = 0;
}

/* A connection that says nothing yet (non-blocking). */
static int
raw_connect(void)
{
	struct sockaddr_un sa;
	int s, rc;

	s = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (s < 0)
		return -errno;
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	memcpy(sa.sun_path, sock_path, strlen(sock_path) + 1);
	if (connect(s, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
		rc = -errno;
		close(s);
		return rc;
	}
	return s;
}

static int
raw_send(int s, uint32_t type, uint32_t version, uint32_t mode, int fd)
{
	struct tally_hostif_msg m;

	memset(&m, 0, sizeof(m));
	m.type = type;
	m.version = version;
	m.pid = (uint32_t)getpid();
	m.mode = mode;
	m.bus = 0x10000000;
	m.len = 4096;
	return tally_hostif_send(s, &m, fd, true);
}

/*
 * Wait up to ms for what the device does with connection s: the type of
 * its first message (its status in *status), then for the connection to
 * close. Returns the type (0 when it closed saying nothing), -ETIMEDOUT
 * when it is still open after ms; *closed_ms: when it closed.
 */
static int
raw_outcome(int s, int ms, int *status, uint64_t *closed_ms)
{
	uint64_t t0 = tally_time_ns();
	struct tally_hostif_msg m;
	struct pollfd pfd = { .fd = s, .events = POLLIN };
	int type = 0, fd, rc, left;

	*status = 0;
	for (;;) {
		left = ms - (int)ms_since(t0);
		if (poll(&pfd, 1, left > 0 ? left : 0) != 1)
			return -ETIMEDOUT;
		rc = tally_hostif_recv(s, &m, &fd, true);
		if (rc == -EAGAIN)
			continue;
		if (rc != 0)
			break;
		if (fd >= 0)
			close(fd);
		if (type == 0) {
			type = (int)m.type;
			*status = m.status;
		}
	}
	if (closed_ms != NULL)
		*closed_ms = ms_since(t0);
	return type;
}

/* Is a file whose name holds s open in process pid? */
static bool
proc_holds(pid_t pid, const char *s)
{
	char path[64], link[256];
	ssize_t n;
	int i;

	for (i = 0; i < 1024; i++) {
		snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)pid, i);
		n = readlink(path, link, sizeof(link) - 1);
		if (n <= 0)
			continue;
		link[n] = '\0';
		if (strstr(link, s) != NULL)
			return true;
	}
	return false;
}

static bool
nic_alive(pid_t pid)
{
	return waitpid(pid, NULL, WNOHANG) == 0;
}

/* Wait until the attached driver's connection closes (it was detached). */
static bool
drv_dropped(struct drv *d, int ms)
{
	int status;

	return raw_outcome(d->conn.sock, ms, &status, NULL) >= 0;
}

/* ---- (a) connections that never say HELLO ------------------------------ */

static int
test_silent_clients(void)
{
	pid_t pid = nic_start_logged((const char *const[]){ "wire=none",
		"--log-level", "4", NULL });
	int silent[3], status, i, type;
	uint64_t t0, t_conn, closed;
	char buf[4096];
	struct drv d, d2;

	TEST_ASSERT(pid > 0, "");
	TEST_ASSERT_EQ(drv_attach(&d), 0, "");
	t_conn = tally_time_ns();
	for (i = 0; i < 3; i++) {
		silent[i] = raw_connect();
		TEST_ASSERT(silent[i] >= 0, "connect: %s", strerror(-silent[i]));
	}
	/* the attached driver is served while they wait: a register write
	 * and the read that waits for the device to have applied it */
	for (i = 0; i < 20; i++) {
		uint32_t promisc = i & 1 ? TALLY_CTRL_PROMISC : 0;

		t0 = tally_time_ns();
		tally_hal_ctrl_update(&d.hal, promisc, TALLY_CTRL_PROMISC ^ promisc);
		TEST_ASSERT_EQ(tally_hal_read32(&d.hal, TALLY_REG_CTRL) & TALLY_CTRL_PROMISC,
			       promisc, "write %d", i);
		TEST_ASSERT(ms_since(t0) < 100, "register round trip %d took %" PRIu64 " ms",
			    i, ms_since(t0));
		usleep(10000);
	}
	/* so are the statistics and a driver that asks to attach */
	t0 = tally_time_ns();
	TEST_ASSERT_EQ(tally_hostif_stats(sock_path, buf, sizeof(buf)), 0, "");
	TEST_ASSERT(ms_since(t0) < 200, "statistics took %" PRIu64 " ms", ms_since(t0));
	t0 = tally_time_ns();
	TEST_ASSERT_EQ(tally_hostif_connect(sock_path, &d2.conn, buf, sizeof(buf)), -EBUSY,
		       "%s", buf);
	TEST_ASSERT(ms_since(t0) < 200, "the refusal took %" PRIu64 " ms", ms_since(t0));
	/* the silent ones are closed at their deadline, not before */
	for (i = 0; i < 3; i++) {
		type = raw_outcome(silent[i], 3000, &status, &closed);
		closed = ms_since(t_conn);
		TEST_ASSERT_EQ(type, TALLY_HOSTIF_BUSY, "connection %d", i);
		TEST_ASSERT_EQ(status, -ETIMEDOUT, "connection %d", i);
		TEST_ASSERT(closed >= HELLO_TIMEOUT_MS - 100 &&
			    closed <= HELLO_TIMEOUT_MS + 700,
			    "connection %d closed after %" PRIu64 " ms", i, closed);
		close(silent[i]);
	}
	TEST_ASSERT(log_has("no HELLO"), "");
	TEST_ASSERT(!tally_hal_gone(&d.hal), "");
	drv_detach(&d);
	nic_end(pid);
	return TEST_SUCCESS;
}

/* More connections than pending handshakes: the extra ones are closed at
 * once, the others wait for their deadline. */
static int
test_pending_bounded(void)
{
	pid_t pid = nic_start_logged((const char *const[]){ "wire=none", NULL });
	int s[PENDING_MAX + 4], status, i, early = 0, type;
	char buf[4096];
	uint64_t closed;

	TEST_ASSERT(pid > 0, "");
	for (i = 0; i < PENDING_MAX + 4; i++) {
		s[i] = raw_connect();
		TEST_ASSERT(s[i] >= 0, "connect %d: %s", i, strerror(-s[i]));
	}
	usleep(300000);
	for (i = 0; i < PENDING_MAX + 4; i++) {
		type = raw_outcome(s[i], 0, &status, &closed);
		if (type == -ETIMEDOUT)
			continue;
		TEST_ASSERT_EQ(type, TALLY_HOSTIF_BUSY, "connection %d", i);
		TEST_ASSERT_EQ(status, -EAGAIN, "connection %d", i);
		early++;
	}
	TEST_ASSERT_EQ(early, 4, "connections closed at once");
	TEST_ASSERT(log_has("wait for their HELLO"), "");
	/* while the table is full, a client hears why */
	TEST_ASSERT_EQ(tally_hostif_stats(sock_path, buf, sizeof(buf)), -EAGAIN, "");
	/* once they are gone, a client is served again */
	for (i = 0; i < PENDING_MAX + 4; i++)
		close(s[i]);
	usleep(100000);
	TEST_ASSERT_EQ(tally_hostif_stats(sock_path, buf, sizeof(buf)), 0, "");
	nic_end(pid);
	return TEST_SUCCESS;
}

/* (b) A HELLO half a second after the connection is still served. */
static int
test_slow_hello(void)
{
	pid_t pid = nic_start_logged((const char *const[]){ "wire=none", NULL });
	struct tally_hostif_msg m;
	int s, fd, rc, n = 0;

	TEST_ASSERT(pid > 0, "");
	s = raw_connect();
	TEST_ASSERT(s >= 0, "");
	usleep(500000);
	TEST_ASSERT_EQ(raw_send(s, TALLY_HOSTIF_HELLO, TALLY_HOSTIF_VERSION,
				TALLY_HOSTIF_GET_STATS, -1), 0, "");
	for (;;) {
		struct pollfd pfd = { .fd = s, .events = POLLIN };

		TEST_ASSERT_EQ(poll(&pfd, 1, 1000), 1, "no answer");
		rc = tally_hostif_recv(s, &m, &fd, true);
		TEST_ASSERT_EQ(rc, 0, "");
		if (m.type == TALLY_HOSTIF_END)
			break;
		TEST_ASSERT_EQ(m.type, TALLY_HOSTIF_STATS, "");
		n++;
	}
	TEST_ASSERT(n > 0, "");
	close(s);
	nic_end(pid);
	return TEST_SUCCESS;
}

/* ---- (c) MEM descriptors the device must not map ---------------------------- */

static int
test_mem_sizes(void)
{
	static const struct {
		const char *name;
		uint64_t file, offset, len;	/* file: size of a memfd */
		int kind;			/* 0 memfd, 1 pipe, 2 read-only, 3 none */
		int err;
	} cases[] = {
		{ "longer than its file", 8192, 0, 16384, 0, -EINVAL },
		{ "offset past the end", 8192, 8192, 4096, 0, -EINVAL },
		{ "offset + len past the end", 8192, 4096, 8192, 0, -EINVAL },
		{ "offset + len wraps", 8192, UINT64_MAX & ~4095ull, 8192, 0, -EINVAL },
		{ "len not a page", 8192, 0, 100, 0, -EINVAL },
		{ "a pipe", 0, 0, 4096, 1, -EINVAL },
		{ "read-only", 8192, 0, 8192, 2, -EACCES },
		{ "no descriptor", 0, 0, 4096, 3, -EBADF },
	};
	pid_t pid = nic_start_logged((const char *const[]){ "wire=none", NULL });
	uint64_t bus = 0x7e0000000000ull;
	struct tally_hostif_msg m;
	char err[256], path[64];
	int fd, p[2], rc;
	unsigned int i;
	struct drv d;

	TEST_ASSERT(pid > 0, "");
	TEST_ASSERT_EQ(drv_attach(&d), 0, "");
	for (i = 0; i < TALLY_ARRAY_SIZE(cases); i++) {
		fd = -1;
		p[0] = p[1] = -1;
		if (cases[i].kind == 0 || cases[i].kind == 2) {
			fd = memfd_create("hostile-mem", MFD_CLOEXEC);
			TEST_ASSERT(fd >= 0 && ftruncate(fd, (off_t)cases[i].file) == 0, "");
		}
		if (cases[i].kind == 2) {
			snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
			p[0] = fd;
			fd = open(path, O_RDONLY | O_CLOEXEC);
		}
		if (cases[i].kind == 1) {
			TEST_ASSERT(pipe(p) == 0, "");
			fd = p[0];
		}
		memset(&m, 0, sizeof(m));
		m.type = TALLY_HOSTIF_MEM;
		m.bus = bus;
		m.len = cases[i].len;
		m.offset = cases[i].offset;
		TEST_ASSERT_EQ(tally_hostif_send(d.conn.sock, &m, fd, false), 0, "%s",
			       cases[i].name);
		rc = tally_hostif_sync(&d.conn, err, sizeof(err));
		TEST_ASSERT_EQ(rc, cases[i].err, "%s: %s", cases[i].name, err);
		if (fd >= 0 && fd != p[0])
			close(fd);
		if (p[0] >= 0)
			close(p[0]);
		if (p[1] >= 0)
			close(p[1]);
		/* refused, and the driver stays attached */
		TEST_ASSERT_EQ(tally_hal_read32(&d.hal, TALLY_REG_SIG), TALLY_SIGNATURE,
			       "%s", cases[i].name);
		TEST_ASSERT(!proc_holds(pid, "hostile-mem"), "%s: the device kept it",
			    cases[i].name);
	}
	/* the same connection shares a good range afterwards */
	fd = memfd_create("hostile-good", MFD_CLOEXEC);
	TEST_ASSERT(fd >= 0 && ftruncate(fd, 8192) == 0, "");
	TEST_ASSERT_EQ(tally_hostif_add_mem(&d.conn, fd, bus, 8192, 0), 0, "");
	TEST_ASSERT_EQ(tally_hostif_sync(&d.conn, err, sizeof(err)), 0, "%s", err);
	TEST_ASSERT_EQ(tally_hal_xlt_map(&d.hal, bus, bus, 8192), 0, "");
	close(fd);
	TEST_ASSERT(nic_alive(pid), "");
	drv_detach(&d);
	nic_end(pid);
	return TEST_SUCCESS;
}

/* ---- (d) messages out of order -------------------------------------------- */

/* A new connection's first message: only a HELLO without a descriptor
 * gets anything but BUSY and a closed connection. */
static int
test_first_message(void)
{
	static const struct {
		const char *name;
		uint32_t type, version, mode;
		int with_fd;
		int short_msg;
		int status;
	} cases[] = {
		{ "MEM before HELLO", TALLY_HOSTIF_MEM, 0, 0, 1, 0, -EPROTO },
		{ "SYNC before HELLO", TALLY_HOSTIF_SYNC, 0, 0, 0, 0, -EPROTO },
		{ "unknown type", 99, TALLY_HOSTIF_VERSION, TALLY_HOSTIF_ATTACH, 0, 0, -EPROTO },
		{ "HELLO version 1", TALLY_HOSTIF_HELLO, 1, TALLY_HOSTIF_ATTACH, 0, 0, -EPROTO },
		{ "HELLO unknown mode", TALLY_HOSTIF_HELLO, TALLY_HOSTIF_VERSION, 7, 0, 0, -EINVAL },
		{ "HELLO with a descriptor", TALLY_HOSTIF_HELLO, TALLY_HOSTIF_VERSION,
		  TALLY_HOSTIF_GET_STATS, 1, 0, -EPROTO },
		{ "a short message", TALLY_HOSTIF_HELLO, TALLY_HOSTIF_VERSION,
		  TALLY_HOSTIF_GET_STATS, 0, 1, -EPROTO },
	};
	pid_t pid = nic_start_logged((const char *const[]){ "wire=none", NULL });
	struct tally_hostif_msg m;
	int s, fd, status, type;
	unsigned int i;
	char buf[4096];
	struct drv d;

	TEST_ASSERT(pid > 0, "");
	for (i = 0; i < TALLY_ARRAY_SIZE(cases); i++) {
		s = raw_connect();
		TEST_ASSERT(s >= 0, "");
		fd = -1;
		if (cases[i].with_fd) {
			fd = memfd_create("hostile-order", MFD_CLOEXEC);
			TEST_ASSERT(fd >= 0 && ftruncate(fd, 4096) == 0, "");
		}
		if (cases[i].short_msg) {
			memset(&m, 0, sizeof(m));
			m.type = cases[i].type;
			TEST_ASSERT_EQ(send(s, &m, 16, 0), 16, "");
		} else {
			TEST_ASSERT_EQ(raw_send(s, cases[i].type, cases[i].version,
						cases[i].mode, fd), 0, "%s", cases[i].name);
		}
		if (fd >= 0)
			close(fd);
		type = raw_outcome(s, 2000, &status, NULL);
		TEST_ASSERT_EQ(type, TALLY_HOSTIF_BUSY, "%s", cases[i].name);
		TEST_ASSERT_EQ(status, cases[i].status, "%s", cases[i].name);
		close(s);
		TEST_ASSERT(!proc_holds(pid, "hostile-order"), "%s: the device kept it",
			    cases[i].name);
	}
	/* the device serves as before */
	TEST_ASSERT_EQ(tally_hostif_stats(sock_path, buf, sizeof(buf)), 0, "");
	TEST_ASSERT_EQ(drv_attach(&d), 0, "");
	drv_detach(&d);
	nic_end(pid);
	return TEST_SUCCESS;
}

/* After the BAR: anything but MEM (with its descriptor), MEM_DEL and SYNC
 * (without one) is a protocol error; the driver is detached, the
 * descriptor closed, the next driver attaches. */
static int
test_attached_order(void)
{
	static const struct {
		const char *name;
		uint32_t type;
		int with_fd;
	} cases[] = {
		{ "a second HELLO", TALLY_HOSTIF_HELLO, 0 },
		{ "unknown type", 99, 0 },
		{ "a device's message (BAR)", TALLY_HOSTIF_BAR, 0 },
		{ "SYNC with a descriptor", TALLY_HOSTIF_SYNC, 1 },
		{ "MEM_DEL with a descriptor", TALLY_HOSTIF_MEM_DEL, 1 },
	};
	pid_t pid = nic_start_logged((const char *const[]){ "wire=none",
		"--log-level", "3", NULL });
	unsigned int i;
	struct drv d;
	int fd;

	TEST_ASSERT(pid > 0, "");
	for (i = 0; i < TALLY_ARRAY_SIZE(cases); i++) {
		TEST_ASSERT_EQ(drv_attach(&d), 0, "%s", cases[i].name);
		fd = -1;
		if (cases[i].with_fd) {
			fd = memfd_create("hostile-order", MFD_CLOEXEC);
			TEST_ASSERT(fd >= 0 && ftruncate(fd, 4096) == 0, "");
		}
		TEST_ASSERT_EQ(raw_send(d.conn.sock, cases[i].type, TALLY_HOSTIF_VERSION,
					TALLY_HOSTIF_ATTACH, fd), 0, "%s", cases[i].name);
		if (fd >= 0)
			close(fd);
		TEST_ASSERT(drv_dropped(&d, 2000), "%s: still attached", cases[i].name);
		TEST_ASSERT(!proc_holds(pid, "hostile-order"), "%s: the device kept it",
			    cases[i].name);
		drv_detach(&d);
	}
	TEST_ASSERT(log_has("protocol error"), "");
	TEST_ASSERT_EQ(drv_attach(&d), 0, "after the protocol errors");
	drv_detach(&d);
	nic_end(pid);
	return TEST_SUCCESS;
}

/* A driver that does not read its answers: the device does not wait for
 * it to; once its socket takes no more ACKs, the driver is detached. */
static int
test_unread_answers(void)
{
	pid_t pid = nic_start_logged((const char *const[]){ "wire=none",
		"--log-level", "3", NULL });
	uint64_t t0 = tally_time_ns();
	unsigned int i = 0;
	struct drv d;
	int rc = 0;

	TEST_ASSERT(pid > 0, "");
	TEST_ASSERT_EQ(drv_attach(&d), 0, "");
	/* until the device hangs up (-EPIPE), for 2 s at most */
	while (rc != -EPIPE && ms_since(t0) < 2000) {
		rc = raw_send(d.conn.sock, TALLY_HOSTIF_SYNC, 0, 0, -1);
		if (rc == 0)
			i++;
		else if (rc == -EAGAIN)
			usleep(100);
	}
	TEST_ASSERT(drv_dropped(&d, 2000), "still attached after %u SYNCs", i);
	TEST_ASSERT(log_has("does not take its ACK"), "");
	drv_detach(&d);
	TEST_ASSERT_EQ(drv_attach(&d), 0, "the next driver");
	drv_detach(&d);
	nic_end(pid);
	return TEST_SUCCESS;
}

/* ---- (e) who may connect -------------------------------------------------- */

enum peer_op { PEER_STATS, PEER_ATTACH, PEER_JOIN };

/*
 * Run op as uid/gid (with the supplementary group sgid when not 0) in a
 * child: 0 or the op's -errno.
 */
static int
peer_run(uid_t uid, gid_t gid, gid_t sgid, enum peer_op op)
{
	struct tally_hostif_conn c;
	char buf[4096];
	int status, rc;
	pid_t child;

	child = fork();
	if (child == 0) {
		gid_t groups[1] = { sgid };

		if (setgroups(sgid != 0 ? 1 : 0, groups) != 0 ||
		    setresgid(gid, gid, gid) != 0 || setresuid(uid, uid, uid) != 0)
			_exit(100);
		if (op == PEER_STATS)
			rc = tally_hostif_stats(sock_path, buf, sizeof(buf));
		else if (op == PEER_ATTACH)
			rc = tally_hostif_connect(sock_path, &c, buf, sizeof(buf));
		else
			rc = tally_hostif_join(sock_path, &c, buf, sizeof(buf));
		if (op != PEER_STATS && rc == 0)
			tally_hostif_close(&c);
		_exit(rc < 0 ? -rc : rc);
	}
	if (child < 0 || waitpid(child, &status, 0) != child || !WIFEXITED(status))
		return -ECHILD;
	return -WEXITSTATUS(status);
}

static int
sock_mode(gid_t *gid)
{
	struct stat st;

	if (stat(sock_path, &st) != 0)
		return -errno;
	if (gid != NULL)
		*gid = st.st_gid;
	return (int)(st.st_mode & 07777);
}

static int
test_peer_refused(void)
{
	mode_t old = umask(0);
	pid_t pid = nic_start_logged((const char *const[]){ "wire=none", NULL });
	struct drv d;

	umask(old);
	TEST_ASSERT(pid > 0, "");
	TEST_ASSERT_EQ(sock_mode(NULL), 0600, "under umask 000");
	/* the mode is not the only gate: the device asks the kernel who it is */
	TEST_ASSERT(chmod(sock_path, 0666) == 0, "");
	TEST_ASSERT_EQ(peer_run(UID_NOBODY, GID_NOGROUP, 0, PEER_STATS), -EACCES, "");
	TEST_ASSERT_EQ(peer_run(UID_NOBODY, GID_NOGROUP, 0, PEER_ATTACH), -EACCES, "");
	TEST_ASSERT(log_has("uid 65534"), "the refusal is logged with the peer's uid");
	/* and the device is root's to attach */
	TEST_ASSERT_EQ(drv_attach(&d), 0, "");
	TEST_ASSERT_EQ(peer_run(UID_NOBODY, GID_NOGROUP, 0, PEER_JOIN), -EACCES, "");
	drv_detach(&d);
	nic_end(pid);
	return TEST_SUCCESS;
}

static int
test_peer_allowed(void)
{
	pid_t pid = nic_start_logged((const char *const[]){ "wire=none",
		"--allow-uid", "65534", "--log-level", "3", NULL });
	gid_t gid = 0;
	char text[64];

	TEST_ASSERT(pid > 0, "");
	TEST_ASSERT_EQ(sock_mode(NULL), 0600, "");
	/* the socket's mode is the administrator's to open */
	TEST_ASSERT_EQ(peer_run(UID_NOBODY, GID_NOGROUP, 0, PEER_STATS), -EACCES,
		       "the file mode still applies");
	TEST_ASSERT(chmod(sock_path, 0666) == 0, "");
	TEST_ASSERT_EQ(peer_run(UID_NOBODY, GID_NOGROUP, 0, PEER_STATS), 0, "");
	TEST_ASSERT_EQ(peer_run(UID_NOBODY, GID_NOGROUP, 0, PEER_ATTACH), 0, "");
	TEST_ASSERT_EQ(peer_run(UID_OTHER, UID_OTHER, 0, PEER_STATS), -EACCES, "");
	/* the log names the kernel's pid and uid of the driver */
	snprintf(text, sizeof(text), "uid %u", UID_NOBODY);
	TEST_ASSERT(log_has(text), "");
	nic_end(pid);

	/* a group: the socket 0660 in it, its members allowed, primary or
	 * supplementary */
	pid = nic_start_logged((const char *const[]){ "wire=none",
		"--socket-group", "65534", NULL });

	TEST_ASSERT(pid > 0, "");
	TEST_ASSERT_EQ(sock_mode(&gid), 0660, "");
	TEST_ASSERT_EQ(gid, GID_NOGROUP, "");
	TEST_ASSERT_EQ(peer_run(UID_OTHER, GID_NOGROUP, 0, PEER_STATS), 0, "");
	TEST_ASSERT_EQ(peer_run(UID_OTHER, UID_OTHER, GID_NOGROUP, PEER_STATS), 0,
		       "a supplementary group");
	TEST_ASSERT(chmod(sock_path, 0666) == 0, "");
	TEST_ASSERT_EQ(peer_run(UID_OTHER, UID_OTHER, 0, PEER_STATS), -EACCES, "");
	nic_end(pid);

	/* --allow-gid without a socket group */
	pid = nic_start_logged((const char *const[]){ "wire=none",
		"--allow-gid", "100,65534", NULL });
	TEST_ASSERT(pid > 0, "");
	TEST_ASSERT(chmod(sock_path, 0666) == 0, "");
	TEST_ASSERT_EQ(peer_run(UID_OTHER, GID_NOGROUP, 0, PEER_STATS), 0, "");
	TEST_ASSERT_EQ(peer_run(UID_OTHER, UID_OTHER, 0, PEER_STATS), -EACCES, "");
	nic_end(pid);
	return TEST_SUCCESS;
}

/* A tally-nic command line that must not start: exit status rc and a
 * message holding want. */
static int
nic_refused(const char *args, const char *want, int rc)
{
	char status[16];
	char cmd[1024], out[2048];
	FILE *p;

	/* a device that starts after all is stopped */
	snprintf(cmd, sizeof(cmd), "timeout 3 %s --socket %s %s 2>&1; echo rc=$?",
		 nic_exe, sock_path, args);
	p = popen(cmd, "r");
	if (p == NULL)
		return -errno;
	out[fread(out, 1, sizeof(out) - 1, p)] = '\0';
	pclose(p);
	snprintf(status, sizeof(status), "rc=%d", rc);
	if (strstr(out, status) == NULL || strstr(out, want) == NULL) {
		fprintf(stderr, "  %s: %s\n", args, out);
		return -EINVAL;
	}
	return 0;
}

static int
test_peer_options(void)
{
	char ram[128], args[256];
	pid_t pid;
	int fd;

	snprintf(ram, sizeof(ram), "%s.ram", sock_path);
	fd = open(ram, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	TEST_ASSERT(fd >= 0 && ftruncate(fd, 4 << 20) == 0, "");
	close(fd);
	/* guest RAM behind a socket any allowed client reaches */
	snprintf(args, sizeof(args), "--guest-ram %s", ram);
	TEST_ASSERT_EQ(nic_refused(args, "--allow-host-clients", 2), 0, "");
	pid = nic_start_logged((const char *const[]){ "--guest-ram", ram,
		"--allow-host-clients", NULL });
	TEST_ASSERT(pid > 0, "with --allow-host-clients");
	nic_end(pid);
	/* a guest RAM file that is not whole pages */
	fd = open(ram, O_RDWR | O_TRUNC | O_CLOEXEC);
	TEST_ASSERT(fd >= 0 && ftruncate(fd, 4096 + 100) == 0, "");
	close(fd);
	snprintf(args, sizeof(args), "--guest-ram %s --allow-host-clients", ram);
	TEST_ASSERT_EQ(nic_refused(args, "--guest-ram", 1), 0, "");
	unlink(ram);
	TEST_ASSERT_EQ(nic_refused("--allow-uid nosuchuser", "nosuchuser", 2), 0, "");
	TEST_ASSERT_EQ(nic_refused("--allow-gid 12x", "12x", 2), 0, "");
	TEST_ASSERT_EQ(nic_refused("--socket-group nosuchgroup", "nosuchgroup", 2), 0, "");
	return TEST_SUCCESS;
}

/* ---- (f) memory that shrinks under the device ----------------------------- */

static int
test_shrinking_memory(void)
{
	pid_t pid = nic_start_logged((const char *const[]){ "wire=none", NULL });
	char buf[4096];
	uint64_t base;
	struct drv d;
	int status;

	TEST_ASSERT(pid > 0, "");
	TEST_ASSERT_EQ(drv_attach(&d), 0, "");
	TEST_ASSERT_EQ(drv_txq(&d), 0, "");
	base = (uint64_t)(uintptr_t)d.mem;
	memset(d.mem + 8192, 0xab, 60);
	TEST_ASSERT_EQ(drv_tx_one(&d, 0, base + 8192, 60), TALLY_TXC_OK, "");
	/* the ring's memory goes away under the device (not touched here
	 * again: this process would fault too), then the doorbell */
	drv_tx_post(&d, 1, base + 8192, 60);
	TEST_ASSERT(ftruncate(d.memfd, 0) == 0, "");
	tally_hal_txq_doorbell(&d.hal, 0, 2);
	TEST_ASSERT(drv_dropped(&d, 2000), "the driver stays attached");
	TEST_ASSERT_EQ(tally_hostif_stats(sock_path, buf, sizeof(buf)), 0,
		       "the device does not answer");
	TEST_ASSERT(nic_alive(pid), "tally-nic died");
	TEST_ASSERT(log_has("SIGBUS"), "");
	drv_detach(&d);
	/* the device serves the next driver */
	TEST_ASSERT_EQ(drv_attach(&d), 0, "");
	TEST_ASSERT_EQ(drv_txq(&d), 0, "");
	base = (uint64_t)(uintptr_t)d.mem;
	memset(d.mem + 8192, 0xab, 60);
	TEST_ASSERT_EQ(drv_tx_one(&d, 0, base + 8192, 60), TALLY_TXC_OK, "");
	TEST_ASSERT_EQ(tally_hostif_stats(sock_path, buf, sizeof(buf)), 0, "");
	TEST_ASSERT(strstr(buf, "memory gone 1") != NULL, "%s", buf);
	drv_detach(&d);
	/* a SIGBUS that is not about a driver's memory keeps its default */
	kill(pid, SIGBUS);
	TEST_ASSERT_EQ(waitpid(pid, &status, 0), pid, "");
	cur_pid = 0;
	TEST_ASSERT(WIFSIGNALED(status) && WTERMSIG(status) == SIGBUS, "status 0x%x",
		    status);
	return TEST_SUCCESS;
}

static const struct tally_test_case cases[] = {
	TEST_CASE(test_silent_clients),
	TEST_CASE(test_pending_bounded),
	TEST_CASE(test_slow_hello),
	TEST_CASE(test_mem_sizes),
	TEST_CASE(test_first_message),
	TEST_CASE(test_attached_order),
	TEST_CASE(test_unread_answers),
	TEST_CASE(test_peer_refused),
	TEST_CASE(test_peer_allowed),
	TEST_CASE(test_peer_options),
	TEST_CASE(test_shrinking_memory),
};

int
main(int argc, char **argv)
{
	int rc;

	if (argc < 2) {
		fprintf(stderr, "usage: %s TALLY_NIC\n", argv[0]);
		return 2;
	}
	if (geteuid() != 0) {
		printf("nic-hostile: needs root (peers of other users)\n");
		return TEST_SKIPPED;
	}
	nic_exe = argv[1];
	snprintf(sock_path, sizeof(sock_path), "/tmp/tally-nic-hostile-%d.sock",
		 (int)getpid());
	snprintf(log_path, sizeof(log_path), "/tmp/tally-nic-hostile-%d.log",
		 (int)getpid());
	signal(SIGPIPE, SIG_IGN);
	/* a device killed by the SIGBUS it is sent leaves no core behind */
	setrlimit(RLIMIT_CORE, &(struct rlimit){ 0, 0 });
	rc = tally_test_run("nic-hostile", cases, TALLY_ARRAY_SIZE(cases));
	nic_reap();
	unlink(log_path);
	unlink(sock_path);	/* the device killed last left it */
	return rc;
}
