/* SPDX-License-Identifier: BSD-3-Clause */
/* tally-top: the telemetry socket and JSON value extraction. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "tally_top.h"

int
tt_connect(struct tt_conn *c, const char *prefix)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	const char *xdg = getenv("XDG_RUNTIME_DIR");
	ssize_t n;
	int len;

	c->fd = -1;
	c->buf = malloc(TT_REPLY_MAX);
	if (c->buf == NULL)
		return -ENOMEM;
	/* EAL's runtime directory: /var/run/dpdk/<prefix> for root, else
	 * $XDG_RUNTIME_DIR/dpdk/<prefix> (or /tmp/dpdk/<prefix>) */
	if (getuid() == 0)
		len = snprintf(sun.sun_path, sizeof(sun.sun_path),
			       "/var/run/dpdk/%s/dpdk_telemetry.v2", prefix);
	else
		len = snprintf(sun.sun_path, sizeof(sun.sun_path),
			       "%s/dpdk/%s/dpdk_telemetry.v2",
			       xdg != NULL ? xdg : "/tmp", prefix);
	if (len < 0 || (size_t)len >= sizeof(sun.sun_path))
		return -ENAMETOOLONG;
	c->fd = socket(AF_UNIX, SOCK_SEQPACKET, 0);
	if (c->fd < 0)
		return -errno;
	if (connect(c->fd, (struct sockaddr *)&sun, sizeof(sun)) != 0)
		return -errno;
	/* the server greets with {"version": ..., "pid": ..., "max_output_len": ...} */
	n = recv(c->fd, c->buf, TT_REPLY_MAX - 1, 0);
	if (n <= 0)
		return n == 0 ? -ECONNRESET : -errno;
	c->buf[n] = '\0';
	return 0;
}

void
tt_close(struct tt_conn *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	free(c->buf);
	c->buf = NULL;
}

const char *
tt_query(struct tt_conn *c, const char *cmd)
{
	const char *v;
	size_t klen;
	ssize_t n;

	if (send(c->fd, cmd, strlen(cmd), 0) < 0)
		return NULL;
	n = recv(c->fd, c->buf, TT_REPLY_MAX - 1, 0);
	if (n <= 0) {
		errno = n == 0 ? ECONNRESET : errno;
		return NULL;
	}
	c->buf[n] = '\0';
	/* {"<cmd without params>": <value>} */
	klen = strcspn(cmd, ",");
	v = strchr(c->buf, ':');
	if (c->buf[0] != '{' || c->buf[1] != '"' ||
	    strncmp(c->buf + 2, cmd, klen) != 0 || v == NULL) {
		errno = EPROTO;
		return NULL;
	}
	v++;
	while (*v == ' ')
		v++;
	if (strncmp(v, "null", 4) == 0) {
		errno = EINVAL;
		return NULL;
	}
	return v;
}

static const char *
tt_json_find(const char *js, const char *key)
{
	char pat[64];
	const char *p;

	if ((size_t)snprintf(pat, sizeof(pat), "\"%s\":", key) >= sizeof(pat))
		return NULL;
	p = strstr(js, pat);
	if (p == NULL)
		return NULL;
	p += strlen(pat);
	while (*p == ' ')
		p++;
	return p;
}

static int
tt_json_num(const char **pp, uint64_t *v)
{
	const char *p = *pp;
	char *end;

	if (*p < '0' || *p > '9')
		return -EINVAL;
	errno = 0;
	*v = strtoull(p, &end, 10);
	if (errno != 0)
		return -EINVAL;
	*pp = end;
	return 0;
}

int
tt_json_u64(const char *js, const char *key, uint64_t *v)
{
	const char *p = tt_json_find(js, key);

	return p == NULL ? -ENOENT : tt_json_num(&p, v);
}

int
tt_json_int_list(const char *p, uint64_t *v, unsigned int max, unsigned int *n)
{
	*n = 0;
	if (*p++ != '[')
		return -EINVAL;
	while (*p == ' ')
		p++;
	while (*p != ']') {
		if (*n == max || tt_json_num(&p, &v[*n]) != 0)
			return -EINVAL;
		(*n)++;
		while (*p == ' ' || *p == ',')
			p++;
	}
	return 0;
}

int
tt_json_u64_array(const char *js, const char *key, uint64_t *v,
		  unsigned int max, unsigned int *n)
{
	const char *p = tt_json_find(js, key);

	return p == NULL ? -ENOENT : tt_json_int_list(p, v, max, n);
}

int
tt_json_str(const char *js, const char *key, char *out, size_t len)
{
	const char *p = tt_json_find(js, key);
	size_t i = 0;

	if (p == NULL)
		return -ENOENT;
	if (*p++ != '"' || len == 0)
		return -EINVAL;
	while (*p != '\0' && *p != '"' && i + 1 < len)
		out[i++] = *p++;
	out[i] = '\0';
	return *p == '"' ? 0 : -EINVAL;
}
