/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Host transport, device side (tally_hostif.h): one attached driver at a
 * time; its memory ranges are mapped for DMA; when its connection closes
 * the device resets and the ranges go away.
 *
 * Every client is untrusted and nothing here waits for one: this runs on
 * the device's only thread, between device steps. A connection whose peer
 * may not connect (tally_nic_peer.c) is refused as soon as it is accepted;
 * the others wait in n->pending (at most NIC_PENDING_MAX; more are closed
 * at once) until their HELLO arrives, for NIC_HELLO_TIMEOUT_NS at most.
 * Every answer is sent without blocking; a peer whose socket cannot take
 * it is dropped.
 * Statistics and JOIN are answered at once and their connection closed:
 * the attached driver is the only connection that stays. Its messages are
 * taken NIC_DRV_BURST at a time, so a driver that floods the socket does
 * not stall the device's data path either.
 */
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "tally_hal_hostif.h"
#include "tally_nic.h"
#include "tally_plat.h"

#define NIC_BACKLOG		16	/* connections the kernel queues */
#define NIC_DRV_BURST		64	/* driver messages handled in one poll */
#define NIC_LOG_BURST		10	/* lines about clients a second */
#define NIC_DRAIN_MAX		4	/* messages read from a client refused */

int
nic_host_listen(struct nic *n)
{
	struct sockaddr_un sa;
	char tmp[sizeof(sa.sun_path) + 16];
	int s, rc;

	if (strlen(n->sock_path) >= sizeof(sa.sun_path)) {
		fprintf(stderr, "tally-nic: --socket %s: path too long\n", n->sock_path);
		return -ENAMETOOLONG;
	}
	s = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (s < 0)
		return -errno;
	/* bind and listen under a temporary name, with the file's mode and
	 * group, then rename: the path appears only once connections are
	 * accepted, and only as who may open it */
	snprintf(tmp, sizeof(tmp), "%s.%d", n->sock_path, (int)getpid());
	unlink(tmp);
	rc = nic_access_bind(&n->access, s, tmp);
	if (rc == 0 && (listen(s, NIC_BACKLOG) != 0 || rename(tmp, n->sock_path) != 0))
		rc = -errno;
	if (rc != 0) {
		fprintf(stderr, "tally-nic: --socket %s: %s\n", n->sock_path,
			strerror(-rc));
		unlink(tmp);
		close(s);
		return rc;
	}
	n->listen_fd = s;
	return 0;
}

/*
 * Lines about clients, which any client can cause again and again: at most
 * NIC_LOG_BURST a second; the others are counted and their number said.
 */
static bool
nic_log_client(struct nic *n)
{
	uint64_t now = tally_time_ns();

	if (now >= n->log_window) {
		if (n->log_quiet != 0)
			TALLY_LOG(WARNING, "%llu more lines about clients not logged",
				  (unsigned long long)n->log_quiet);
		n->log_window = now + 1000000000ull;
		n->log_lines = 0;
		n->log_quiet = 0;
	}
	if (n->log_lines < NIC_LOG_BURST) {
		n->log_lines++;
		return true;
	}
	n->log_quiet++;
	return false;
}

/* One message to a peer, never waiting for it: 0 or -errno (-EAGAIN: its
 * socket is full). */
static int
nic_reply(int s, uint32_t type, int status, const char *text)
{
	struct tally_hostif_msg m;

	memset(&m, 0, sizeof(m));
	m.type = type;
	m.status = status;
	if (text != NULL)
		snprintf(m.text, sizeof(m.text), "%s", text);
	return tally_hostif_send(s, &m, -1, true);
}

/*
 * Answer BUSY {status, text} and close the connection. What the client sent
 * is read first (and dropped, descriptors too): a connection closed with
 * unread data is reset, and the client would see the reset, not the answer.
 */
static void
nic_refuse(int s, int status, const char *fmt, ...)
{
	struct tally_hostif_msg m;
	unsigned int i;
	va_list ap;

	for (i = 0; i < NIC_DRAIN_MAX; i++)
		if (recv(s, &m, sizeof(m), MSG_DONTWAIT) <= 0)
			break;
	memset(&m, 0, sizeof(m));
	m.type = TALLY_HOSTIF_BUSY;
	m.status = status;
	va_start(ap, fmt);
	vsnprintf(m.text, sizeof(m.text), fmt, ap);
	va_end(ap);
	(void)tally_hostif_send(s, &m, -1, true);
	close(s);
}

/* A peer did not take an answer: its connection goes. */
static void
nic_drop(struct nic *n, const struct nic_cred *c, int s, const char *what, int rc)
{
	n->dropped++;
	if (nic_log_client(n))
		TALLY_LOG(NOTICE, "pid %u uid %u: %s not sent (%s): connection closed",
			  c->pid, c->uid, what, strerror(-rc));
	close(s);
}

static int
nic_send_stats(struct nic *n, int s)
{
	char buf[8192];
	struct tally_hostif_msg m;
	size_t len, off, chunk;
	int rc;

	len = nic_stats_format(n, buf, sizeof(buf));
	memset(&m, 0, sizeof(m));
	m.type = TALLY_HOSTIF_STATS;
	for (off = 0; off < len; off += chunk) {
		chunk = TALLY_MIN(len - off, sizeof(m.text) - 1);
		memcpy(m.text, buf + off, chunk);
		m.text[chunk] = '\0';
		rc = tally_hostif_send(s, &m, -1, true);
		if (rc != 0)
			return rc;
	}
	return nic_reply(s, TALLY_HOSTIF_END, 0, NULL);
}

static void
nic_detach(struct nic *n, const char *why)
{
	uint32_t i;

	TALLY_LOG(NOTICE, "driver pid %u detached (%s): device reset",
		  n->drv_pid, why);
	for (i = 0; i < n->nb_ports; i++)
		tally_model_detach(n->ports[i]);
	nic_ranges_clear(n);
	close(n->drv_fd);
	n->drv_fd = -1;
	n->drv_pid = 0;
	n->drv_uid = 0;
	n->drv_ready = false;
	n->mem_err = 0;
}

/* A secondary process of the attached driver: the BAR only. */
static void
nic_join(struct nic *n, const struct nic_pending *p)
{
	struct tally_hostif_msg m;
	int rc;

	if (n->drv_fd < 0 || !n->drv_ready) {
		nic_refuse(p->fd, -ENODEV, "no driver attached to join");
		return;
	}
	memset(&m, 0, sizeof(m));
	m.type = TALLY_HOSTIF_BAR;
	m.len = n->bar_len;
	rc = tally_hostif_send(p->fd, &m, n->bar_fd, true);
	if (rc != 0) {
		nic_drop(n, &p->cred, p->fd, "BAR", rc);
		return;
	}
	TALLY_LOG(NOTICE, "pid %u (uid %u) joined driver pid %u", p->cred.pid,
		  p->cred.uid, n->drv_pid);
	close(p->fd);
}

static void
nic_attach(struct nic *n, const struct nic_pending *p)
{
	struct tally_hostif_msg m;
	int rc;

	if (n->drv_fd >= 0) {
		n->refused++;
		TALLY_LOG(NOTICE, "refused driver pid %u (uid %u): driver pid %u is attached",
			  p->cred.pid, p->cred.uid, n->drv_pid);
		nic_refuse(p->fd, -EBUSY, "busy: driver pid %u is attached", n->drv_pid);
		return;
	}
	memset(&m, 0, sizeof(m));
	m.type = TALLY_HOSTIF_BAR;
	m.len = n->bar_len;
	rc = tally_hostif_send(p->fd, &m, n->bar_fd, true);
	if (rc != 0) {
		nic_drop(n, &p->cred, p->fd, "BAR", rc);
		return;
	}
	n->drv_fd = p->fd;
	n->drv_pid = p->cred.pid;
	n->drv_uid = p->cred.uid;
	n->attaches++;
	TALLY_LOG(NOTICE, "driver pid %u (uid %u) attached", p->cred.pid, p->cred.uid);
}

/* The first message of connection p (fd: a descriptor that came with it):
 * a HELLO decides (attach, join, busy, or statistics). */
static void
nic_hello(struct nic *n, const struct nic_pending *p,
	  const struct tally_hostif_msg *m, int fd)
{
	const char *bad = NULL;
	int rc;

	if (fd >= 0) {
		close(fd);
		bad = "HELLO carries no file descriptor";
	} else if (m->type != TALLY_HOSTIF_HELLO || m->version != TALLY_HOSTIF_VERSION) {
		bad = "expected HELLO version 2";
	}
	if (bad != NULL) {
		if (nic_log_client(n))
			TALLY_LOG(NOTICE, "pid %u uid %u: message type %u: %s",
				  p->cred.pid, p->cred.uid, m->type, bad);
		nic_refuse(p->fd, -EPROTO, "%s", bad);
		return;
	}
	/* the HELLO's pid is the peer's word; the kernel's is the one used */
	if (m->pid != p->cred.pid)
		TALLY_LOG(INFO, "pid %u (uid %u) says it is pid %u", p->cred.pid,
			  p->cred.uid, m->pid);
	switch (m->mode) {
	case TALLY_HOSTIF_GET_STATS:
		rc = nic_send_stats(n, p->fd);
		if (rc != 0)
			nic_drop(n, &p->cred, p->fd, "statistics", rc);
		else
			close(p->fd);
		break;
	case TALLY_HOSTIF_JOIN:
		nic_join(n, p);
		break;
	case TALLY_HOSTIF_ATTACH:
		nic_attach(n, p);
		break;
	default:
		nic_refuse(p->fd, -EINVAL, "unknown HELLO mode");
		break;
	}
}

/* Read pending connection i's first message if it is there; then it
 * leaves the table. */
static unsigned int
nic_pending_serve(struct nic *n, unsigned int i)
{
	struct nic_pending p = n->pending[i];
	struct tally_hostif_msg m;
	int fd, rc;

	rc = tally_hostif_recv(p.fd, &m, &fd, true);
	if (rc == -EAGAIN)
		return 0;
	n->pending[i] = n->pending[--n->nb_pending];
	if (rc == 0) {
		nic_hello(n, &p, &m, fd);
	} else if (rc == -ECONNRESET) {
		close(p.fd);	/* gone without a word */
	} else {
		if (nic_log_client(n))
			TALLY_LOG(NOTICE, "pid %u uid %u: %s", p.cred.pid, p.cred.uid,
				  strerror(-rc));
		nic_refuse(p.fd, -EPROTO, "expected HELLO version 2");
	}
	return 1;
}

/* Close the connections whose HELLO is late. */
static void
nic_pending_expire(struct nic *n, uint64_t now)
{
	unsigned int i = n->nb_pending;

	while (i-- > 0) {
		struct nic_pending p = n->pending[i];

		if (now < p.deadline)
			continue;
		n->pending[i] = n->pending[--n->nb_pending];
		n->no_hello++;
		if (nic_log_client(n))
			TALLY_LOG(NOTICE, "pid %u uid %u: no HELLO within %llu ms: connection closed",
				  p.cred.pid, p.cred.uid,
				  (unsigned long long)(NIC_HELLO_TIMEOUT_NS / 1000000));
		nic_refuse(p.fd, -ETIMEDOUT, "no HELLO within %llu ms",
			   (unsigned long long)(NIC_HELLO_TIMEOUT_NS / 1000000));
	}
}

/*
 * A new connection: into the pending table, or closed when it is full.
 * One a poll: the first connection waiting came before the poll looked at
 * the driver's socket, so a driver that closed and connects again is
 * detached before its new HELLO is read (a second accept could take a
 * connection that came after).
 */
static unsigned int
nic_accept(struct nic *n)
{
	struct nic_pending *p;
	struct nic_cred c;
	int s;

	s = accept4(n->listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
	if (s < 0)
		return 0;
	/* who it is, before anything it sent is read */
	if (nic_peer_cred(s, &c) != 0) {
		close(s);
		return 1;
	}
	if (!nic_peer_allowed(&n->access, s, &c)) {
		n->not_allowed++;
		if (nic_log_client(n))
			TALLY_LOG(WARNING, "refused pid %u uid %u gid %u: not allowed (--allow-uid, --allow-gid)",
				  c.pid, c.uid, c.gid);
		nic_refuse(s, -EACCES, "uid %u may not use this device", c.uid);
		return 1;
	}
	if (n->nb_pending == NIC_PENDING_MAX) {
		n->dropped++;
		if (nic_log_client(n))
			TALLY_LOG(WARNING, "pid %u uid %u: %u connections already wait for their HELLO: connection closed",
				  c.pid, c.uid, NIC_PENDING_MAX);
		nic_refuse(s, -EAGAIN, "too many connections pending");
		return 1;
	}
	p = &n->pending[n->nb_pending++];
	p->fd = s;
	p->cred = c;
	p->deadline = tally_time_ns() + NIC_HELLO_TIMEOUT_NS;
	/* a client sends its HELLO right after connecting */
	nic_pending_serve(n, n->nb_pending - 1);
	return 1;
}

/*
 * A message from the attached driver (fd: a descriptor that came with it,
 * closed here). NULL, or why the driver is to be detached.
 */
static const char *
nic_serve_msg(struct nic *n, const struct tally_hostif_msg *m, int fd)
{
	int rc;

	if (fd >= 0 && m->type != TALLY_HOSTIF_MEM) {
		close(fd);
		TALLY_LOG(WARNING, "driver pid %u: message type %u carries a file descriptor",
			  n->drv_pid, m->type);
		return "protocol error: a descriptor with a message that takes none";
	}
	switch (m->type) {
	case TALLY_HOSTIF_MEM:
		rc = fd < 0 ? -EBADF : nic_range_add(n, fd, m->bus, m->len, m->offset);
		if (fd >= 0)
			close(fd);	/* a mapping keeps what it needs */
		break;
	case TALLY_HOSTIF_MEM_DEL:
		rc = nic_range_del(n, m->bus, m->len);
		break;
	case TALLY_HOSTIF_SYNC:
		rc = nic_reply(n->drv_fd, TALLY_HOSTIF_ACK, n->mem_err,
			       n->mem_err ? "a memory range was refused" : NULL);
		if (rc != 0)
			return "it does not take its ACK";
		if (!n->drv_ready)
			TALLY_LOG(NOTICE, "driver memory: %u ranges, %llu MiB%s",
				  n->nb_ranges, (unsigned long long)(n->shared_bytes >> 20),
				  n->mem_err ? " (some refused)" : "");
		n->drv_ready = true;
		n->mem_err = 0;
		return NULL;
	default:
		/* an answer here would be taken for the next SYNC's */
		TALLY_LOG(WARNING, "driver pid %u: unexpected message type %u",
			  n->drv_pid, m->type);
		return "protocol error: unexpected message";
	}
	if (rc != 0) {
		TALLY_LOG(WARNING, "%s bus 0x%llx len 0x%llx offset 0x%llx: %s",
			  m->type == TALLY_HOSTIF_MEM ? "MEM" : "MEM_DEL",
			  (unsigned long long)m->bus, (unsigned long long)m->len,
			  (unsigned long long)m->offset, strerror(-rc));
		if (n->mem_err == 0)
			n->mem_err = rc;
	}
	return NULL;
}

static unsigned int
nic_serve_driver(struct nic *n)
{
	struct tally_hostif_msg m;
	unsigned int work;
	const char *why;
	int fd, rc = 0;

	for (work = 0; work < NIC_DRV_BURST; work++) {
		rc = tally_hostif_recv(n->drv_fd, &m, &fd, true);
		if (rc != 0)
			break;
		why = nic_serve_msg(n, &m, fd);
		if (why != NULL) {
			nic_detach(n, why);
			return work + 1;
		}
	}
	if (rc != 0 && rc != -EAGAIN)
		nic_detach(n, rc == -ECONNRESET ? "connection closed" : strerror(-rc));
	return work;
}

unsigned int
nic_host_poll(struct nic *n)
{
	struct pollfd pfd[2 + NIC_PENDING_MAX];
	unsigned int work = 0, i, first;
	nfds_t nfds = 1;
	bool drv;

	if (n->listen_fd < 0)
		return 0;
	pfd[0].fd = n->listen_fd;
	pfd[0].events = POLLIN;
	pfd[0].revents = 0;
	drv = n->drv_fd >= 0;
	if (drv) {
		pfd[1].fd = n->drv_fd;
		pfd[1].events = POLLIN;
		pfd[1].revents = 0;
		nfds = 2;
	}
	first = (unsigned int)nfds;
	for (i = 0; i < n->nb_pending; i++) {
		pfd[nfds].fd = n->pending[i].fd;
		pfd[nfds].events = POLLIN;
		pfd[nfds].revents = 0;
		nfds++;
	}
	if (poll(pfd, nfds, 0) > 0) {
		if (drv && pfd[1].revents != 0 && n->drv_fd >= 0)
			work += nic_serve_driver(n);
		/* from the last: a connection leaving the table takes the
		 * place of one already looked at */
		for (i = (unsigned int)nfds - first; i-- > 0;)
			if (pfd[first + i].revents != 0)
				work += nic_pending_serve(n, i);
		if (pfd[0].revents & POLLIN)
			work += nic_accept(n);
	}
	if (n->nb_pending != 0)
		nic_pending_expire(n, tally_time_ns());
	return work;
}

/*
 * The SIGBUS guard took faults in memory the driver shares: its file
 * shrank under the device, which read zeros there since. That is the
 * driver's protocol error: the driver goes (and its ranges with it).
 */
void
nic_host_mem_gone(struct nic *n, uint64_t faults, uintptr_t addr)
{
	n->mem_gone++;
	TALLY_LOG(ERR, "%llu SIGBUS, the last at 0x%llx: memory driver pid %u shares shrank under the device (its file was truncated)",
		  (unsigned long long)faults, (unsigned long long)addr, n->drv_pid);
	if (n->drv_fd >= 0)
		nic_detach(n, "protocol error: shared memory shrank (DMA fault)");
}

void
nic_host_close(struct nic *n)
{
	while (n->nb_pending != 0)
		close(n->pending[--n->nb_pending].fd);
	if (n->drv_fd >= 0)
		nic_detach(n, "device stopping");
	if (n->listen_fd >= 0) {
		close(n->listen_fd);
		unlink(n->sock_path);
		n->listen_fd = -1;
	}
}
