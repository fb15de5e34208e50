/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Binding a PCI function to a kernel driver as dpdk-devbind.py does:
 * unbind the current driver, set driver_override, ask the bus to probe the
 * function (drivers_probe), check the result, then clear driver_override so
 * the function is not pinned to that driver forever. A failed bind gives
 * the function back to the driver it had.
 *
 * All paths are relative to the PCI bus directory in sysfs (normally
 * /sys/bus/pci), so a test can point the tool at a tree of its own.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tally_devinfo.h"

#define DRIVER_NAME_MAX	64

int
tally_devinfo_bdf_parse(const char *s, char *out, size_t outlen)
{
	/* "dddd:bb:dd.f"; a short "bb:dd.f" means domain 0000 */
	static const char form[] = "hhhh:hh:hh.h";
	char full[sizeof(form)];
	unsigned int dev, fn;
	size_t i, len = strlen(s);

	if (len == sizeof(form) - 1)
		memcpy(full, s, sizeof(full));
	else if (len == sizeof(form) - 6)
		snprintf(full, sizeof(full), "0000:%s", s);
	else
		return -EINVAL;
	for (i = 0; i < sizeof(form) - 1; i++) {
		if (form[i] == 'h' ? !isxdigit((unsigned char)full[i]) :
		    full[i] != form[i])
			return -EINVAL;
		full[i] = (char)tolower((unsigned char)full[i]);
	}
	dev = (unsigned int)strtoul(full + 8, NULL, 16);
	fn = (unsigned int)strtoul(full + 11, NULL, 16);
	if (dev > 0x1f || fn > 7 || outlen < sizeof(full))
		return -EINVAL;
	memcpy(out, full, sizeof(full));
	return 0;
}

static int
sysfs_write(const char *path, const char *val)
{
	size_t len = strlen(val);
	ssize_t n;
	int fd, rc = 0;

	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, val, len);
	if (n < 0)
		rc = -errno;
	else if ((size_t)n != len)
		rc = -EIO;
	if (close(fd) != 0 && rc == 0)
		rc = -errno;
	return rc;
}

static int
dev_path(char *buf, size_t len, const char *sysfs, const char *bdf,
	 const char *leaf)
{
	int n = snprintf(buf, len, "%s/devices/%s%s%s", sysfs, bdf,
			 leaf ? "/" : "", leaf ? leaf : "");

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

int
tally_devinfo_driver_of(const char *sysfs, const char *bdf, char *buf,
			size_t len)
{
	char path[PATH_MAX], link[PATH_MAX];
	struct stat st;
	const char *base;
	ssize_t n;

	buf[0] = '\0';
	if (dev_path(path, sizeof(path), sysfs, bdf, NULL) != 0)
		return -ENAMETOOLONG;
	if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
		return -ENODEV;
	if (dev_path(path, sizeof(path), sysfs, bdf, "driver") != 0)
		return -ENAMETOOLONG;
	n = readlink(path, link, sizeof(link) - 1);
	if (n < 0)
		return errno == ENOENT ? 0 : -errno;
	link[n] = '\0';
	base = strrchr(link, '/');
	snprintf(buf, len, "%s", base ? base + 1 : link);
	return 0;
}

static int
drv_path(char *buf, size_t len, const char *sysfs, const char *drv,
	 const char *leaf)
{
	int n = snprintf(buf, len, "%s/drivers/%s%s%s", sysfs, drv,
			 leaf ? "/" : "", leaf ? leaf : "");

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

static int
unbind_from(const char *sysfs, const char *bdf, const char *drv, char *err,
	    size_t errlen)
{
	char path[PATH_MAX];
	int rc;

	rc = drv_path(path, sizeof(path), sysfs, drv, "unbind");
	if (rc == 0)
		rc = sysfs_write(path, bdf);
	if (rc != 0)
		snprintf(err, errlen, "%s: cannot unbind from %s: %s", bdf, drv,
			 strerror(-rc));
	return rc;
}

static int
set_override(const char *sysfs, const char *bdf, const char *drv)
{
	char path[PATH_MAX];
	int rc = dev_path(path, sizeof(path), sysfs, bdf, "driver_override");

	/* "\n" clears the override */
	return rc != 0 ? rc : sysfs_write(path, drv != NULL ? drv : "\n");
}

static int
probe(const char *sysfs, const char *bdf)
{
	char path[PATH_MAX];
	int n = snprintf(path, sizeof(path), "%s/drivers_probe", sysfs);

	if (n < 0 || (size_t)n >= sizeof(path))
		return -ENAMETOOLONG;
	return sysfs_write(path, bdf);
}

static int
bind_check_args(const char *sysfs, const char *bdf, const char *driver,
		char *cur, size_t curlen, char *err, size_t errlen)
{
	char path[PATH_MAX];
	struct stat st;
	int rc;

	if (driver[0] == '\0' || strchr(driver, '/') != NULL ||
	    strlen(driver) >= DRIVER_NAME_MAX || strcmp(driver, ".") == 0 ||
	    strcmp(driver, "..") == 0) {
		snprintf(err, errlen, "bad driver name '%s'", driver);
		return -EINVAL;
	}
	rc = tally_devinfo_driver_of(sysfs, bdf, cur, curlen);
	if (rc != 0) {
		snprintf(err, errlen, "%s: no such PCI function under %s/devices",
			 bdf, sysfs);
		return rc;
	}
	rc = drv_path(path, sizeof(path), sysfs, driver, NULL);
	if (rc == 0 && (stat(path, &st) != 0 || !S_ISDIR(st.st_mode))) {
		snprintf(err, errlen, "driver %s is not loaded (modprobe %s)",
			 driver, driver);
		return -ENOENT;
	}
	return rc;
}

/* Returns 0 when bound now, 1 when it already was, < 0 on failure. */
int
tally_devinfo_bind(const char *sysfs, const char *bdf, const char *driver,
		   char *err, size_t errlen)
{
	char cur[DRIVER_NAME_MAX], now[DRIVER_NAME_MAX];
	int rc;

	rc = bind_check_args(sysfs, bdf, driver, cur, sizeof(cur), err, errlen);
	if (rc != 0)
		return rc;
	if (strcmp(cur, driver) == 0)
		return 1;
	if (cur[0] != '\0') {
		rc = unbind_from(sysfs, bdf, cur, err, errlen);
		if (rc != 0)
			return rc;
	}
	rc = set_override(sysfs, bdf, driver);
	if (rc != 0) {
		snprintf(err, errlen, "%s: cannot set driver_override: %s", bdf,
			 strerror(-rc));
		goto restore;
	}
	rc = probe(sysfs, bdf);
	if (rc != 0)
		snprintf(err, errlen, "%s: drivers_probe: %s", bdf, strerror(-rc));
	else if (tally_devinfo_driver_of(sysfs, bdf, now, sizeof(now)) != 0 ||
		 strcmp(now, driver) != 0) {
		rc = -EIO;
		snprintf(err, errlen, "%s: %s did not bind it (the kernel log says why)",
			 bdf, driver);
	}
	/* bound or not, the function is not pinned to the driver */
	(void)set_override(sysfs, bdf, NULL);
	if (rc == 0)
		return 0;
restore:
	if (cur[0] != '\0')
		(void)probe(sysfs, bdf);
	return rc;
}

/* Returns 0 when unbound now, 1 when it was not bound, < 0 on failure. */
int
tally_devinfo_unbind(const char *sysfs, const char *bdf, char *err,
		     size_t errlen)
{
	char cur[DRIVER_NAME_MAX];
	int rc;

	rc = tally_devinfo_driver_of(sysfs, bdf, cur, sizeof(cur));
	if (rc != 0) {
		snprintf(err, errlen, "%s: no such PCI function under %s/devices",
			 bdf, sysfs);
		return rc;
	}
	if (cur[0] == '\0')
		return 1;
	rc = unbind_from(sysfs, bdf, cur, err, errlen);
	if (rc != 0)
		return rc;
	rc = tally_devinfo_driver_of(sysfs, bdf, cur, sizeof(cur));
	if (rc == 0 && cur[0] != '\0') {
		snprintf(err, errlen, "%s: still bound to %s after unbind", bdf, cur);
		return -EBUSY;
	}
	return rc;
}
