/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tally-devinfo: finds Tally functions on the PCI bus (libpci), dumps the
 * identity registers of a BAR (a sysfs resource file or a BAR file of the
 * device process), and binds functions to a kernel driver the way
 * dpdk-devbind.py does (driver_override + drivers_probe).
 *
 * The BAR is read only: one page is mapped read-only and the identity block
 * is read with 32-bit loads, nothing is written to it.
 *
 * Errors are negative errno values with a message in the caller's buffer;
 * main() turns them into an exit status (0 ok, 1 failure, 2 usage).
 */
#ifndef TALLY_DEVINFO_H
#define TALLY_DEVINFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <tally/tally_regs.h>

/* The identity block a BAR must hold: SIG up to and including STATUS. */
#define TALLY_DEVINFO_ID_LEN	(TALLY_REG_STATUS + 4)
#define TALLY_DEVINFO_ERR_LEN	256
#define TALLY_DEVINFO_MAX_PROBLEMS 8
/* Smallest MAX_FRAME the PMD accepts (RTE_ETHER_MAX_LEN). */
#define TALLY_DEVINFO_MIN_FRAME	1518

/* The identity registers, as read from the BAR. */
struct tally_devinfo_id {
	uint32_t sig;
	uint32_t version;
	uint32_t caps;
	uint32_t bar_size;
	uint32_t queues;
	uint32_t ring_limits;
	uint32_t cnt_num;
	uint32_t cnt_off;
	uint32_t ccnt_num;
	uint32_t ccnt_off;
	uint32_t max_frame;
	uint32_t xlt_max;
	uint32_t mac_lo;
	uint32_t mac_hi;
	uint32_t status;
};

/* What a driver would object to in an identity (the checks of the HAL). */
struct tally_devinfo_problems {
	unsigned int n;
	char msg[TALLY_DEVINFO_MAX_PROBLEMS][TALLY_DEVINFO_ERR_LEN];
};

/* Output settings shared by the printers. */
struct tally_devinfo_out {
	FILE *f;
	bool json;
};

/* ---- tally_devinfo_bar.c ---- */

/*
 * Read the identity of the BAR behind path (a regular file or a sysfs
 * resource file). *len is set to the BAR length (the file size). Fails with
 * -ENOENT/-EACCES/... (cannot open), -EINVAL (shorter than the identity
 * block) or -ENODEV (no Tally signature; *id still holds what was read).
 */
int tally_devinfo_bar_read(const char *path, struct tally_devinfo_id *id,
			   uint64_t *len, char *err, size_t errlen);

/* Checks the driver makes at probe; returns the number of problems. */
unsigned int tally_devinfo_id_check(const struct tally_devinfo_id *id,
				    uint64_t len,
				    struct tally_devinfo_problems *p);

/* ---- tally_devinfo_print.c ---- */

/* Identity fields, text lines indented by two spaces or JSON members
 * (without braces, each preceded by a comma unless first). */
void tally_devinfo_print_id(const struct tally_devinfo_out *o,
			    const struct tally_devinfo_id *id);
void tally_devinfo_print_problems(const struct tally_devinfo_out *o,
				  const struct tally_devinfo_problems *p);
/* A JSON string literal (or null for NULL). */
void tally_devinfo_json_str(FILE *f, const char *s);

/* ---- tally_devinfo_pci.c ---- */

/* List the Tally functions under sysfs (default /sys/bus/pci), or only the
 * functions named in bdfs. Returns 0 if at least one was listed and every
 * named one is a Tally function with a sound identity. */
int tally_devinfo_pci_list(const struct tally_devinfo_out *o,
			   const char *sysfs, char **bdfs, int nb_bdfs);

/* ---- tally_devinfo_bind.c ---- */

/* Normalise a BDF ("bb:dd.f" or "dddd:bb:dd.f") into out (13 bytes). */
int tally_devinfo_bdf_parse(const char *s, char *out, size_t outlen);
int tally_devinfo_bind(const char *sysfs, const char *bdf, const char *driver,
		       char *err, size_t errlen);
int tally_devinfo_unbind(const char *sysfs, const char *bdf, char *err,
			 size_t errlen);
/* The driver bound to bdf into buf, or "" when none. */
int tally_devinfo_driver_of(const char *sysfs, const char *bdf, char *buf,
			    size_t len);

#define TALLY_DEVINFO_SYSFS_DEFAULT	"/sys/bus/pci"

#endif /* TALLY_DEVINFO_H */
