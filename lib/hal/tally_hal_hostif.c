/* SPDX-License-Identifier: BSD-3-Clause */
/* Driver side of the host transport (see tally_hal_hostif.h). */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "tally_hal_hostif.h"
#include "tally_plat.h"

static int
hostif_dial(const char *path)
{
	struct timeval tv = {
		.tv_sec = TALLY_HOSTIF_TIMEOUT_MS / 1000,
		.tv_usec = (TALLY_HOSTIF_TIMEOUT_MS % 1000) * 1000,
	};
	struct sockaddr_un sa;
	int s, rc;

	if (path == NULL || strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	s = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (s < 0)
		return -errno;
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	memcpy(sa.sun_path, path, strlen(path) + 1);
	if (setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) != 0 ||
	    setsockopt(s, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)) != 0 ||
	    connect(s, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
		rc = -errno;
		close(s);
		return rc;
	}
	return s;
}

int
tally_hostif_send(int s, const struct tally_hostif_msg *m, int fd, bool nowait)
{
	char cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { (void *)(uintptr_t)m, sizeof(*m) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *cm;

	if (fd >= 0) {
		memset(cbuf, 0, sizeof(cbuf));
		mh.msg_control = cbuf;
		mh.msg_controllen = sizeof(cbuf);
		cm = CMSG_FIRSTHDR(&mh);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	}
	if (sendmsg(s, &mh, MSG_NOSIGNAL | (nowait ? MSG_DONTWAIT : 0)) !=
	    (ssize_t)sizeof(*m))
		return errno ? -errno : -EIO;
	return 0;
}

int
tally_hostif_recv(int s, struct tally_hostif_msg *m, int *fd, bool nowait)
{
	char cbuf[CMSG_SPACE(sizeof(int) * 4)];
	struct iovec iov = { m, sizeof(*m) };
	struct msghdr mh = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *cm;
	int fds[4];
	size_t i, k;
	ssize_t n;

	*fd = -1;
	n = recvmsg(s, &mh, MSG_CMSG_CLOEXEC | (nowait ? MSG_DONTWAIT : 0));
	if (n < 0) {
		if (errno == EAGAIN || errno == EWOULDBLOCK)
			return nowait ? -EAGAIN : -ETIMEDOUT;
		return -errno;
	}
	if (n == 0)
		return -ECONNRESET;
	for (cm = CMSG_FIRSTHDR(&mh); cm != NULL; cm = CMSG_NXTHDR(&mh, cm)) {
		if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
			continue;
		k = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		memcpy(fds, CMSG_DATA(cm), k * sizeof(int));
		for (i = 0; i < k; i++) {
			if (*fd < 0)
				*fd = fds[i];
			else
				close(fds[i]);	/* one fd a message */
		}
	}
	if (n != (ssize_t)sizeof(*m) || (mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC))) {
		if (*fd >= 0)
			close(*fd);
		*fd = -1;
		return -EPROTO;
	}
	m->text[sizeof(m->text) - 1] = '\0';
	return 0;
}

static void
hostif_hello(struct tally_hostif_msg *m, uint32_t mode)
{
	memset(m, 0, sizeof(*m));
	m->type = TALLY_HOSTIF_HELLO;
	m->version = TALLY_HOSTIF_VERSION;
	m->pid = (uint32_t)getpid();
	m->mode = mode;
}

/*
 * Send HELLO m and receive the answer into m. A device that refuses a
 * connection as soon as it accepts it (who the peer is, too many
 * connections) may have closed it before the HELLO went out: its answer
 * is still there to read.
 */
static int
hostif_ask(int s, struct tally_hostif_msg *m, int *fd)
{
	int rc, rrc;

	*fd = -1;
	rc = tally_hostif_send(s, m, -1, false);
	if (rc != 0 && rc != -EPIPE)
		return rc;
	rrc = tally_hostif_recv(s, m, fd, false);
	return rrc == 0 || rc == 0 ? rrc : rc;
}

static int
hostif_open(const char *path, struct tally_hostif_conn *c, char *err,
	    size_t errlen, uint32_t mode)
{
	struct tally_hostif_msg m;
	int fd, rc;

	c->sock = -1;
	c->bar_fd = -1;
	c->bar_len = 0;
	rc = hostif_dial(path);
	if (rc < 0) {
		snprintf(err, errlen, "cannot connect to %s: %s", path, strerror(-rc));
		return rc;
	}
	c->sock = rc;
	hostif_hello(&m, mode);
	rc = hostif_ask(c->sock, &m, &fd);
	if (rc < 0) {
		snprintf(err, errlen, "no answer from the device at %s: %s", path,
			 strerror(-rc));
		goto fail;
	}
	if (m.type == TALLY_HOSTIF_BUSY) {
		snprintf(err, errlen, "device at %s refused: %s", path, m.text);
		rc = m.status < 0 ? m.status : -EBUSY;
		goto fail_fd;
	}
	if (m.type != TALLY_HOSTIF_BAR || m.status != 0 || fd < 0 || m.len == 0) {
		snprintf(err, errlen, "device at %s: unexpected answer (type %u status %d)",
			 path, m.type, m.status);
		rc = m.status < 0 ? m.status : -EPROTO;
		goto fail_fd;
	}
	c->bar_fd = fd;
	c->bar_len = m.len;
	return 0;
fail_fd:
	if (fd >= 0)
		close(fd);
fail:
	tally_hostif_close(c);
	return rc;
}

int
tally_hostif_connect(const char *path, struct tally_hostif_conn *c, char *err,
		     size_t errlen)
{
	return hostif_open(path, c, err, errlen, TALLY_HOSTIF_ATTACH);
}

int
tally_hostif_join(const char *path, struct tally_hostif_conn *c, char *err,
		  size_t errlen)
{
	int rc = hostif_open(path, c, err, errlen, TALLY_HOSTIF_JOIN);

	if (rc == 0 && c->sock >= 0) {
		close(c->sock);	/* a joiner keeps only the BAR */
		c->sock = -1;
	}
	return rc;
}

int
tally_hostif_add_mem(struct tally_hostif_conn *c, int fd, uint64_t bus,
		     uint64_t len, uint64_t offset)
{
	struct tally_hostif_msg m;

	if (c->sock < 0 || fd < 0 || len == 0)
		return -EINVAL;
	memset(&m, 0, sizeof(m));
	m.type = TALLY_HOSTIF_MEM;
	m.bus = bus;
	m.len = len;
	m.offset = offset;
	return tally_hostif_send(c->sock, &m, fd, false);
}

int
tally_hostif_del_mem(struct tally_hostif_conn *c, uint64_t bus, uint64_t len)
{
	struct tally_hostif_msg m;

	if (c->sock < 0 || len == 0)
		return -EINVAL;
	memset(&m, 0, sizeof(m));
	m.type = TALLY_HOSTIF_MEM_DEL;
	m.bus = bus;
	m.len = len;
	return tally_hostif_send(c->sock, &m, -1, false);
}

int
tally_hostif_sync(struct tally_hostif_conn *c, char *err, size_t errlen)
{
	struct tally_hostif_msg m;
	int fd, rc;

	if (c->sock < 0)
		return -EINVAL;
	memset(&m, 0, sizeof(m));
	m.type = TALLY_HOSTIF_SYNC;
	rc = tally_hostif_send(c->sock, &m, -1, false);
	if (rc == 0)
		rc = tally_hostif_recv(c->sock, &m, &fd, false);
	if (rc == 0 && fd >= 0)
		close(fd);
	if (rc == 0 && m.type != TALLY_HOSTIF_ACK)
		rc = -EPROTO;
	if (rc == 0)
		rc = m.status;
	if (rc != 0)
		snprintf(err, errlen, "device refused the memory: %s%s%s",
			 strerror(-rc), m.text[0] ? ": " : "", m.text);
	return rc;
}

void
tally_hostif_close(struct tally_hostif_conn *c)
{
	if (c->bar_fd >= 0)
		close(c->bar_fd);
	if (c->sock >= 0)
		close(c->sock);
	c->bar_fd = -1;
	c->sock = -1;
}

bool
tally_hostif_gone(void *conn)
{
	const struct tally_hostif_conn *c = conn;
	struct pollfd pfd = { .fd = c->sock, .events = 0 };

	/* POLLHUP: the peer closed (a message may still be queued: the
	 * device sends none unasked, so whatever it is, it is the last) */
	return c->sock >= 0 && poll(&pfd, 1, 0) == 1 &&
	       (pfd.revents & (POLLHUP | POLLERR)) != 0;
}

int
tally_hostif_stats(const char *path, char *buf, size_t len)
{
	struct tally_hostif_msg m;
	size_t used = 0;
	int s, fd, rc;

	if (buf == NULL || len == 0)
		return -EINVAL;
	buf[0] = '\0';
	s = hostif_dial(path);
	if (s < 0)
		return s;
	hostif_hello(&m, TALLY_HOSTIF_GET_STATS);
	rc = hostif_ask(s, &m, &fd);
	while (rc == 0) {
		if (fd >= 0)
			close(fd);
		if (m.type == TALLY_HOSTIF_END)
			break;
		if (m.type == TALLY_HOSTIF_BUSY) {
			rc = m.status < 0 ? m.status : -EBUSY;	/* refused */
			break;
		}
		if (m.type != TALLY_HOSTIF_STATS) {
			rc = -EPROTO;
			break;
		}
		used += (size_t)snprintf(buf + used, len - used, "%s", m.text);
		if (used >= len)
			used = len - 1;
		rc = tally_hostif_recv(s, &m, &fd, false);
	}
	close(s);
	return rc;
}
