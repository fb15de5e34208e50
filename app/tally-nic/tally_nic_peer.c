/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Who may connect (doc/device-process.md, "Who may connect").
 *
 * Two gates. The socket file's mode, the kernel's: the file is created
 * 0600 whatever the umask (0660 in the group of --socket-group), before the
 * rename that publishes it. Then the device's own, for each connection as
 * soon as it is accepted and before anything it sent is read: the peer's
 * credentials as the kernel took them at connect() (SO_PEERCRED, and
 * SO_PEERGROUPS for its supplementary groups): root, the device process's
 * own uid, a uid of --allow-uid, a gid of --allow-gid or --socket-group.
 * The pid a HELLO carries is the client's word only; logs and statistics
 * use the kernel's.
 */
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "tally_nic.h"
#include "tally_plat.h"

#define NIC_PEER_GROUPS		64	/* supplementary groups read at once */

/* A user or group: a number or a name. */
static int
nic_id_parse(const char *opt, const char *tok, bool user, uint32_t *id)
{
	unsigned long long v;
	struct passwd *pw;
	struct group *gr;
	char *end;

	if (*tok >= '0' && *tok <= '9') {
		errno = 0;
		v = strtoull(tok, &end, 10);
		if (errno != 0 || *end != '\0' || v >= UINT32_MAX) {
			fprintf(stderr, "tally-nic: %s %s: not a %s id\n", opt, tok,
				user ? "user" : "group");
			return -EINVAL;
		}
		*id = (uint32_t)v;
		return 0;
	}
	if (user) {
		pw = getpwnam(tok);
		if (pw != NULL)
			*id = (uint32_t)pw->pw_uid;
	} else {
		gr = getgrnam(tok);
		if (gr != NULL)
			*id = (uint32_t)gr->gr_gid;
	}
	if (user ? pw == NULL : gr == NULL) {
		fprintf(stderr, "tally-nic: %s %s: no such %s\n", opt, tok,
			user ? "user" : "group");
		return -EINVAL;
	}
	return 0;
}

static int
nic_id_add(const char *opt, const char *tok, bool user, uint32_t *ids,
	   unsigned int *nb)
{
	if (*nb == NIC_ALLOW_MAX) {
		fprintf(stderr, "tally-nic: %s: at most %u entries\n", opt, NIC_ALLOW_MAX);
		return -EINVAL;
	}
	if (nic_id_parse(opt, tok, user, &ids[*nb]) != 0)
		return -EINVAL;
	(*nb)++;
	return 0;
}

/* "ID[,ID...]" */
static int
nic_id_list(const char *opt, const char *list, bool user, uint32_t *ids,
	    unsigned int *nb)
{
	char buf[1024], *save = NULL, *tok;
	unsigned int k = 0;

	if (strlen(list) >= sizeof(buf)) {
		fprintf(stderr, "tally-nic: %s: list too long\n", opt);
		return -EINVAL;
	}
	memcpy(buf, list, strlen(list) + 1);
	for (tok = strtok_r(buf, ",", &save); tok != NULL;
	     tok = strtok_r(NULL, ",", &save), k++)
		if (nic_id_add(opt, tok, user, ids, nb) != 0)
			return -EINVAL;
	if (k == 0) {
		fprintf(stderr, "tally-nic: %s: expected %s[,%s...]\n", opt,
			user ? "UID" : "GID", user ? "UID" : "GID");
		return -EINVAL;
	}
	return 0;
}

int
nic_access_uids(struct nic_access *a, const char *list)
{
	return nic_id_list("--allow-uid", list, true, a->uids, &a->nb_uids);
}

int
nic_access_gids(struct nic_access *a, const char *list)
{
	return nic_id_list("--allow-gid", list, false, a->gids, &a->nb_gids);
}

/* The socket's group; its members may connect (what it is given for). */
int
nic_access_group(struct nic_access *a, const char *group)
{
	if (nic_id_add("--socket-group", group, false, a->gids, &a->nb_gids) != 0)
		return -EINVAL;
	a->sock_gid = a->gids[a->nb_gids - 1];
	return 0;
}

int
nic_access_bind(const struct nic_access *a, int s, const char *path)
{
	mode_t mode = a->sock_gid >= 0 ? 0660 : 0600, old;
	struct sockaddr_un sa;
	int rc = 0;

	if (strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	memcpy(sa.sun_path, path, strlen(path) + 1);
	/* the file is born with the mode (bind applies the umask only), so
	 * there is no moment in which others may open it */
	old = umask(0777 & ~mode);
	if (bind(s, (struct sockaddr *)&sa, sizeof(sa)) != 0)
		rc = -errno;
	umask(old);
	if (rc == 0 && a->sock_gid >= 0 &&
	    lchown(path, (uid_t)-1, (gid_t)a->sock_gid) != 0)
		rc = -errno;
	/* a default ACL of the directory replaces the umask: the mode again */
	if (rc == 0 && chmod(path, mode) != 0)
		rc = -errno;
	return rc;
}

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

static bool
nic_id_in(const uint32_t *ids, unsigned int nb, uint32_t id)
{
	unsigned int i;

	for (i = 0; i < nb; i++)
		if (ids[i] == id)
			return true;
	return false;
}

/* Is a supplementary group of the peer of s in the list? */
static bool
nic_peer_groups_in(const struct nic_access *a, int s)
{
	gid_t some[NIC_PEER_GROUPS], *g = some;
	socklen_t len = sizeof(some);
	bool found = false;
	unsigned int i;

	if (getsockopt(s, SOL_SOCKET, SO_PEERGROUPS, g, &len) != 0) {
		if (errno != ERANGE)
			return false;
		g = tally_zmalloc(len);	/* len: what they need */
		if (g == NULL ||
		    getsockopt(s, SOL_SOCKET, SO_PEERGROUPS, g, &len) != 0) {
			tally_free(g);
			return false;
		}
	}
	for (i = 0; i < len / sizeof(g[0]) && !found; i++)
		found = nic_id_in(a->gids, a->nb_gids, (uint32_t)g[i]);
	if (g != some)
		tally_free(g);
	return found;
}

bool
nic_peer_allowed(const struct nic_access *a, int s, const struct nic_cred *c)
{
	if (c->uid == 0 || c->uid == (uint32_t)geteuid())
		return true;
	if (nic_id_in(a->uids, a->nb_uids, c->uid) ||
	    nic_id_in(a->gids, a->nb_gids, c->gid))
		return true;
	return a->nb_gids != 0 && nic_peer_groups_in(a, s);
}
