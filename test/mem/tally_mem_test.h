/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Helpers of the memory and multi-process tests: EAL in hugepage mode (the
 * tests here are about huge pages, whatever mode the other suites run in),
 * a skip with the reason when the machine has none free, and the removal
 * of the hugepage files a run with a file prefix leaves behind.
 */
#ifndef TALLY_MEM_TEST_H
#define TALLY_MEM_TEST_H

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tally_dpdk_test.h"

/* Free huge pages of the default size, in MiB (0 when none or unknown). */
static inline unsigned long
tmt_huge_free_mb(void)
{
	unsigned long free_pages = 0, size_kb = 0;
	char line[256];
	FILE *f = fopen("/proc/meminfo", "r");

	if (f == NULL)
		return 0;
	while (fgets(line, sizeof(line), f) != NULL) {
		sscanf(line, "HugePages_Free: %lu", &free_pages);
		sscanf(line, "Hugepagesize: %lu kB", &size_kb);
	}
	fclose(f);
	return free_pages * size_kb / 1024;
}

/* A hugetlbfs mount point into mnt, or -1. */
static inline int
tmt_huge_mount(char *mnt, size_t len)
{
	char dev[256], dir[PATH_MAX], type[64];
	int found = -1;
	FILE *f = fopen("/proc/mounts", "r");

	if (f == NULL)
		return -1;
	while (fscanf(f, "%255s %4095s %63s %*[^\n]", dev, dir, type) == 3)
		if (strcmp(type, "hugetlbfs") == 0 && found < 0) {
			snprintf(mnt, len, "%s", dir);
			found = 0;
		}
	fclose(f);
	return found;
}

/* Exit 77 (skipped) with the reason unless need_mb of huge pages are free. */
static inline void
tmt_need_huge(unsigned long need_mb)
{
	char mnt[PATH_MAX];
	unsigned long have = tmt_huge_free_mb();

	if (tmt_huge_mount(mnt, sizeof(mnt)) != 0) {
		fprintf(stderr, "SKIP: no hugetlbfs mounted (devtools/setup.sh mounts one as root)\n");
		exit(TEST_SKIPPED);
	}
	if (have < need_mb) {
		fprintf(stderr, "SKIP: %lu MiB of huge pages free, this test needs %lu (devtools/setup.sh reserves them as root)\n",
			have, need_mb);
		exit(TEST_SKIPPED);
	}
}

/* Remove the hugepage files of file prefix `prefix` (EAL leaves them). */
static inline void
tmt_huge_files_remove(const char *prefix)
{
	char mnt[PATH_MAX], path[PATH_MAX * 2];
	size_t n = strlen(prefix);
	struct dirent *e;
	DIR *d;

	if (tmt_huge_mount(mnt, sizeof(mnt)) != 0 || (d = opendir(mnt)) == NULL)
		return;
	while ((e = readdir(d)) != NULL)
		if (strncmp(e->d_name, prefix, n) == 0 &&
		    strncmp(e->d_name + n, "map_", 4) == 0) {
			snprintf(path, sizeof(path), "%s/%s", mnt, e->d_name);
			unlink(path);
		}
	closedir(d);
}

#endif /* TALLY_MEM_TEST_H */
