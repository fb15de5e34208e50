/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Host transport, device side (tally_hostif.h): one attached driver at a
 * time; its memory ranges are mapped for DMA; when its connection closes
 * the device resets and the ranges go away.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "tally_hal_hostif.h"
#include "tally_nic.h"
#include "tally_plat.h"

int
nic_host_listen(struct nic *n)
{
	struct sockaddr_un sa;
	char tmp[sizeof(sa.sun_path) + 16];
	int s;

	if (strlen(n->sock_path) >= sizeof(sa.sun_path)) {
		fprintf(stderr, "tally-nic: --socket %s: path too long\n", n->sock_path);
		return -ENAMETOOLONG;
	}
	s = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (s < 0)
		return -errno;
	/* bind and listen under a temporary name, then rename: the path
	 * appears only once connections are accepted */
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	snprintf(tmp, sizeof(tmp), "%s.%d", n->sock_path, (int)getpid());
	if (strlen(tmp) >= sizeof(sa.sun_path)) {
		fprintf(stderr, "tally-nic: --socket %s: path too long\n", n->sock_path);
		close(s);
		return -ENAMETOOLONG;
	}
	memcpy(sa.sun_path, tmp, strlen(tmp) + 1);
	unlink(tmp);
	if (bind(s, (struct sockaddr *)&sa, sizeof(sa)) != 0 || listen(s, 4) != 0 ||
	    rename(tmp, n->sock_path) != 0) {
		int rc = -errno;

		fprintf(stderr, "tally-nic: --socket %s: %s\n", n->sock_path,
			strerror(errno));
		unlink(tmp);
		close(s);
		return rc;
	}
	n->listen_fd = s;
	return 0;
}

static void
nic_reply(int s, uint32_t type, int status, const char *text)
{
	struct tally_hostif_msg m;

	memset(&m, 0, sizeof(m));
	m.type = type;
	m.status = status;
	if (text != NULL)
		snprintf(m.text, sizeof(m.text), "%s", text);
	(void)tally_hostif_send(s, &m, -1, true);
}

static void
nic_send_stats(struct nic *n, int s)
{
	char buf[8192];
	struct tally_hostif_msg m;
	size_t len, off, chunk;

	len = nic_stats_format(n, buf, sizeof(buf));
	memset(&m, 0, sizeof(m));
	m.type = TALLY_HOSTIF_STATS;
	for (off = 0; off < len; off += chunk) {
		chunk = TALLY_MIN(len - off, sizeof(m.text) - 1);
		memcpy(m.text, buf + off, chunk);
		m.text[chunk] = '\0';
		if (tally_hostif_send(s, &m, -1, true) != 0)
			return;
	}
	nic_reply(s, TALLY_HOSTIF_END, 0, NULL);
}

static void
nic_detach(struct nic *n, const char *why)
{
	TALLY_LOG(NOTICE, "driver pid %u detached (%s): device reset",
		  n->drv_pid, why);
	tally_model_detach(n->model);
	nic_ranges_clear(n);
	close(n->drv_fd);
	n->drv_fd = -1;
	n->drv_pid = 0;
	n->drv_ready = false;
	n->proto_err = false;
	n->mem_err = 0;
}

/* A secondary process of the attached driver: the BAR only. */
static void
nic_join(struct nic *n, int s, uint32_t pid)
{
	struct tally_hostif_msg m;

	if (n->drv_fd < 0 || !n->drv_ready) {
		nic_reply(s, TALLY_HOSTIF_BUSY, -ENODEV, "no driver attached to join");
		return;
	}
	memset(&m, 0, sizeof(m));
	m.type = TALLY_HOSTIF_BAR;
	m.len = n->bar_len;
	if (tally_hostif_send(s, &m, n->bar_fd, true) == 0)
		TALLY_LOG(NOTICE, "pid %u joined driver pid %u", pid, n->drv_pid);
}

/* A new connection: the HELLO decides (attach, join, busy, or statistics). */
static void
nic_accept(struct nic *n)
{
	struct tally_hostif_msg m;
	struct pollfd pfd;
	char text[128];
	uint32_t pid;
	int s, fd, rc;

	s = accept4(n->listen_fd, NULL, NULL, SOCK_CLOEXEC);
	if (s < 0)
		return;
	pfd.fd = s;
	pfd.events = POLLIN;
	/* the HELLO is the client's first message: wait a little for it */
	rc = poll(&pfd, 1, 1000) == 1 ? tally_hostif_recv(s, &m, &fd, true) : -ETIMEDOUT;
	if (rc == 0 && fd >= 0)
		close(fd);
	if (rc != 0 || m.type != TALLY_HOSTIF_HELLO ||
	    m.version != TALLY_HOSTIF_VERSION) {
		nic_reply(s, TALLY_HOSTIF_BUSY, -EPROTO, "expected HELLO version 2");
		close(s);
		return;
	}
	pid = m.pid;
	if (m.mode == TALLY_HOSTIF_GET_STATS) {
		nic_send_stats(n, s);
		close(s);
		return;
	}
	if (m.mode == TALLY_HOSTIF_JOIN) {
		nic_join(n, s, pid);
		close(s);
		return;
	}
	if (m.mode != TALLY_HOSTIF_ATTACH) {
		nic_reply(s, TALLY_HOSTIF_BUSY, -EINVAL, "unknown HELLO mode");
		close(s);
		return;
	}
	if (n->drv_fd >= 0) {
		snprintf(text, sizeof(text), "busy: driver pid %u is attached",
			 n->drv_pid);
		TALLY_LOG(NOTICE, "refused driver pid %u: %s", pid, text);
		nic_reply(s, TALLY_HOSTIF_BUSY, -EBUSY, text);
		n->refused++;
		close(s);
		return;
	}
	memset(&m, 0, sizeof(m));
	m.type = TALLY_HOSTIF_BAR;
	m.len = n->bar_len;
	if (tally_hostif_send(s, &m, n->bar_fd, true) != 0) {
		close(s);
		return;
	}
	n->drv_fd = s;
	n->drv_pid = pid;
	n->attaches++;
	TALLY_LOG(NOTICE, "driver pid %u attached", pid);
}

/* Messages from the attached driver. */
static void
nic_serve_msg(struct nic *n, const struct tally_hostif_msg *m, int fd)
{
	int rc;

	switch (m->type) {
	case TALLY_HOSTIF_MEM:
		rc = fd < 0 ? -EBADF : nic_range_add(n, fd, m->bus, m->len, m->offset);
		break;
	case TALLY_HOSTIF_MEM_DEL:
		rc = nic_range_del(n, m->bus, m->len);
		break;
	case TALLY_HOSTIF_SYNC:
		nic_reply(n->drv_fd, TALLY_HOSTIF_ACK, n->mem_err,
			  n->mem_err ? "a memory range was refused" : NULL);
		if (!n->drv_ready)
			TALLY_LOG(NOTICE, "driver memory: %u ranges, %llu MiB%s",
				  n->nb_ranges, (unsigned long long)(n->shared_bytes >> 20),
				  n->mem_err ? " (some refused)" : "");
		n->drv_ready = true;
		n->mem_err = 0;
		return;
	default:
		/* an answer here would be taken for the next SYNC's */
		n->proto_err = true;
		return;
	}
	if (rc != 0) {
		TALLY_LOG(WARNING, "%s bus 0x%llx len 0x%llx: %s",
			  m->type == TALLY_HOSTIF_MEM ? "MEM" : "MEM_DEL",
			  (unsigned long long)m->bus, (unsigned long long)m->len,
			  strerror(-rc));
		if (n->mem_err == 0)
			n->mem_err = rc;
	}
}

static unsigned int
nic_serve_driver(struct nic *n)
{
	struct tally_hostif_msg m;
	unsigned int work = 0;
	int fd, rc;

	while ((rc = tally_hostif_recv(n->drv_fd, &m, &fd, true)) == 0) {
		work++;
		nic_serve_msg(n, &m, fd);
		if (fd >= 0)
			close(fd);
		if (n->proto_err) {
			nic_detach(n, "protocol error: unexpected message");
			return work;
		}
	}
	if (rc != -EAGAIN)
		nic_detach(n, rc == -ECONNRESET ? "connection closed" : strerror(-rc));
	return work;
}

unsigned int
nic_host_poll(struct nic *n)
{
	struct pollfd pfd[2];
	unsigned int work = 0;
	int nfds = 1;

	if (n->listen_fd < 0)
		return 0;
	pfd[0].fd = n->listen_fd;
	pfd[0].events = POLLIN;
	pfd[0].revents = 0;
	if (n->drv_fd >= 0) {
		pfd[1].fd = n->drv_fd;
		pfd[1].events = POLLIN;
		pfd[1].revents = 0;
		nfds = 2;
	}
	if (poll(pfd, (nfds_t)nfds, 0) <= 0)
		return 0;
	if (nfds == 2 && pfd[1].revents != 0)
		work += nic_serve_driver(n);
	if (pfd[0].revents & POLLIN) {
		nic_accept(n);
		work++;
	}
	return work;
}

void
nic_host_close(struct nic *n)
{
	if (n->drv_fd >= 0)
		nic_detach(n, "device stopping");
	if (n->listen_fd >= 0) {
		close(n->listen_fd);
		unlink(n->sock_path);
		n->listen_fd = -1;
	}
}
