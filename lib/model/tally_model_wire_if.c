/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Interface wire: a non-blocking AF_PACKET raw socket bound to cfg->iface,
 * in promiscuous mode. Frames the socket itself sends are not received back
 * (PACKET_IGNORE_OUTGOING, and outgoing frames are skipped as a fallback).
 * The interface's carrier (up and running) is the link's (STATUS.LINK_UP).
 *
 * Linux takes the VLAN tag out of every frame it receives (the tag goes to
 * the packet's metadata) before raw sockets see it, whatever the interface's
 * offloads; the socket hands it back as PACKET_AUXDATA, and the wire puts it
 * back into the frame after the MAC addresses, as it was on the wire (as
 * libpcap does). Only the outer tag is taken out; inner tags stay in place.
 */
#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <string.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tally_model_priv.h"

#ifndef PACKET_IGNORE_OUTGOING
#define PACKET_IGNORE_OUTGOING	23
#endif

/* Receive buffer of the socket: the frames that may wait between two device
 * steps. The default (rmem_default, ~200 KiB: about 170 small frames) drops
 * a burst from a fast peer while the driver is not polling. */
#define TALLY_WIRE_IF_RCVBUF	(8 << 20)

#define TALLY_WIRE_IF_VLAN_LEN	4	/* TPID + TCI */
#define TALLY_WIRE_IF_MACS_LEN	12	/* destination + source */

struct tally_wire_if {
	int fd;
};

static int
tally_wire_if_setup(struct tally_model *m, int fd, char *errbuf, size_t errlen)
{
	struct packet_mreq mr;
	struct sockaddr_ll sll;
	unsigned int ifindex = if_nametoindex(m->iface);
	int one = 1, rcvbuf = TALLY_WIRE_IF_RCVBUF;

	if (ifindex == 0) {
		tally_model_errf(errbuf, errlen, "iface=%s: no such interface", m->iface);
		return -ENODEV;
	}
	memset(&sll, 0, sizeof(sll));
	sll.sll_family = AF_PACKET;
	sll.sll_protocol = htons(ETH_P_ALL);
	sll.sll_ifindex = (int)ifindex;
	if (bind(fd, (struct sockaddr *)&sll, sizeof(sll)) < 0) {
		int e = errno;

		tally_model_errf(errbuf, errlen, "iface=%s: bind: %s", m->iface, strerror(e));
		return -e;
	}
	memset(&mr, 0, sizeof(mr));
	mr.mr_ifindex = (int)ifindex;
	mr.mr_type = PACKET_MR_PROMISC;
	if (setsockopt(fd, SOL_PACKET, PACKET_ADD_MEMBERSHIP, &mr, sizeof(mr)) < 0)
		TALLY_LOG(WARNING, "iface=%s: promiscuous mode: %s", m->iface,
			  strerror(errno));
	if (setsockopt(fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one, sizeof(one)) < 0)
		TALLY_LOG(INFO, "iface=%s: PACKET_IGNORE_OUTGOING unsupported", m->iface);
	if (setsockopt(fd, SOL_PACKET, PACKET_AUXDATA, &one, sizeof(one)) < 0) {
		int e = errno;

		tally_model_errf(errbuf, errlen, "iface=%s: PACKET_AUXDATA: %s", m->iface,
				 strerror(e));
		return -e;
	}
	/* beyond rmem_max needs CAP_NET_ADMIN; otherwise up to rmem_max */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf)) < 0 &&
	    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf)) < 0)
		TALLY_LOG(INFO, "iface=%s: receive buffer: %s", m->iface, strerror(errno));
	return 0;
}

static int
tally_wire_if_open(struct tally_model *m, char *errbuf, size_t errlen)
{
	struct tally_wire_if *w;
	int fd, rc;

	fd = socket(AF_PACKET, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, htons(ETH_P_ALL));
	if (fd < 0) {
		rc = -errno;
		tally_model_errf(errbuf, errlen, "iface=%s: socket: %s", m->iface,
				 strerror(-rc));
		return rc;
	}
	rc = tally_wire_if_setup(m, fd, errbuf, errlen);
	w = rc == 0 ? tally_zmalloc(sizeof(*w)) : NULL;
	if (rc == 0 && w == NULL) {
		tally_model_errf(errbuf, errlen, "iface=%s: out of memory", m->iface);
		rc = -ENOMEM;
	}
	if (rc < 0) {
		close(fd);
		return rc;
	}
	w->fd = fd;
	m->wire_priv = w;
	return 0;
}

static void
tally_wire_if_close(struct tally_model *m)
{
	struct tally_wire_if *w = m->wire_priv;

	if (w == NULL)
		return;
	close(w->fd);
	tally_free(w);
	m->wire_priv = NULL;
}

static int
tally_wire_if_tx(struct tally_model *m, const uint8_t *frame, uint32_t len)
{
	struct tally_wire_if *w = m->wire_priv;
	ssize_t n = send(w->fd, frame, len, MSG_DONTWAIT);

	if (n < 0)
		return -errno;
	return n == (ssize_t)len ? 0 : -EIO;
}

/* The outer VLAN tag Linux took out of a received frame, from the socket's
 * PACKET_AUXDATA; false when the frame had none. */
static bool
tally_wire_if_vlan(struct msghdr *msg, uint16_t *tpid, uint16_t *tci)
{
	struct cmsghdr *c;
	struct tpacket_auxdata aux;

	for (c = CMSG_FIRSTHDR(msg); c != NULL; c = CMSG_NXTHDR(msg, c)) {
		if (c->cmsg_level != SOL_PACKET || c->cmsg_type != PACKET_AUXDATA ||
		    c->cmsg_len < CMSG_LEN(sizeof(aux)))
			continue;
		memcpy(&aux, CMSG_DATA(c), sizeof(aux));
		if (!(aux.tp_status & TP_STATUS_VLAN_VALID))
			return false;
		*tpid = (aux.tp_status & TP_STATUS_VLAN_TPID_VALID) ?
			aux.tp_vlan_tpid : ETH_P_8021Q;
		*tci = aux.tp_vlan_tci;
		return true;
	}
	return false;
}

/* Put the tag back after the MAC addresses; what no longer fits in buflen is
 * cut off, and the frame's length on the wire grows by the tag. */
static void
tally_wire_if_put_vlan(uint8_t *buf, uint32_t buflen, uint32_t *caplen,
		       uint32_t *len, uint16_t tpid, uint16_t tci)
{
	uint32_t keep;
	uint16_t be;

	if (*caplen < TALLY_WIRE_IF_MACS_LEN || buflen < TALLY_WIRE_IF_MACS_LEN +
	    TALLY_WIRE_IF_VLAN_LEN)
		return;
	keep = TALLY_MIN(*caplen, buflen - TALLY_WIRE_IF_VLAN_LEN) -
	       TALLY_WIRE_IF_MACS_LEN;
	memmove(buf + TALLY_WIRE_IF_MACS_LEN + TALLY_WIRE_IF_VLAN_LEN,
		buf + TALLY_WIRE_IF_MACS_LEN, keep);
	be = htons(tpid);
	memcpy(buf + TALLY_WIRE_IF_MACS_LEN, &be, sizeof(be));
	be = htons(tci);
	memcpy(buf + TALLY_WIRE_IF_MACS_LEN + 2, &be, sizeof(be));
	*caplen = TALLY_WIRE_IF_MACS_LEN + TALLY_WIRE_IF_VLAN_LEN + keep;
	*len += TALLY_WIRE_IF_VLAN_LEN;
}

static int
tally_wire_if_rx(struct tally_model *m, uint8_t *buf, uint32_t buflen,
		 uint32_t *caplen, uint32_t *len)
{
	struct tally_wire_if *w = m->wire_priv;
	union {
		struct cmsghdr align;
		uint8_t buf[CMSG_SPACE(sizeof(struct tpacket_auxdata))];
	} ctl;
	struct sockaddr_ll from;
	struct iovec iov;
	struct msghdr msg;
	uint16_t tpid, tci;
	ssize_t n;

	for (;;) {
		iov.iov_base = buf;
		iov.iov_len = buflen;
		memset(&msg, 0, sizeof(msg));
		msg.msg_name = &from;
		msg.msg_namelen = sizeof(from);
		msg.msg_iov = &iov;
		msg.msg_iovlen = 1;
		msg.msg_control = ctl.buf;
		msg.msg_controllen = sizeof(ctl.buf);
		n = recvmsg(w->fd, &msg, MSG_DONTWAIT | MSG_TRUNC);
		if (n < 0)
			return 0;	/* EAGAIN, or an error: nothing now */
		if (from.sll_pkttype == PACKET_OUTGOING)
			continue;	/* our own Tx on kernels without IGNORE_OUTGOING */
		*len = (uint32_t)n;
		*caplen = TALLY_MIN((uint32_t)n, buflen);
		if (tally_wire_if_vlan(&msg, &tpid, &tci))
			tally_wire_if_put_vlan(buf, buflen, caplen, len, tpid, tci);
		return 1;
	}
}

static int
tally_wire_if_eof(struct tally_model *m)
{
	return 0;
}

/* Carrier: the interface is up and running (a veth whose peer is down is
 * not). An interface that cannot be asked counts as up. */
static bool
tally_wire_if_carrier(struct tally_model *m)
{
	struct tally_wire_if *w = m->wire_priv;
	struct ifreq ifr;

	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", m->iface);
	if (ioctl(w->fd, SIOCGIFFLAGS, &ifr) < 0)
		return true;
	return (ifr.ifr_flags & (IFF_UP | IFF_RUNNING)) == (IFF_UP | IFF_RUNNING);
}

const struct tally_wire_ops tally_wire_if_ops = {
	.name = "if",
	.open = tally_wire_if_open,
	.close = tally_wire_if_close,
	.tx = tally_wire_if_tx,
	.rx = tally_wire_if_rx,
	.eof = tally_wire_if_eof,
	.carrier = tally_wire_if_carrier,
};
