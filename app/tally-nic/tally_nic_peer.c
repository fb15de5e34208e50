/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Who a client is: the kernel's credentials of a connection (SO_PEERCRED),
 * taken when it is accepted, before anything it sends is read. The pid a
 * HELLO carries is the client's word only; logs and statistics use these.
 */
#include <errno.h>
#include <sys/socket.h>

#include "tally_nic.h"

int
nic_peer_cred(int s, struct nic_cred *c)
{
	struct ucred uc;
	socklen_t len = sizeof(uc);

	if (getsockopt(s, SOL_SOCKET, SO_PEERCRED, &uc, &len) != 0)
		return -errno;
	if (len != sizeof(uc))
		return -EPROTO;
	c->pid = (uint32_t)uc.pid;
	c->uid = (uint32_t)uc.uid;
	c->gid = (uint32_t)uc.gid;
	return 0;
}
