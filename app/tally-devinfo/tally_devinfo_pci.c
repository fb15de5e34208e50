/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Finding Tally functions with libpci (sysfs access method): functions with
 * the Tally IDs (registers in BAR 0), and ivshmem-plain functions (1af4:1110)
 * whose BAR 2 starts with the Tally signature. For each: BDF, BARs, NUMA
 * node, IOMMU group, bound driver and the identity read through the sysfs
 * resource file of the register BAR.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <pci/pci.h>

#include <tally/tally_pci_ids.h>

#include "tally_devinfo.h"

struct dev_entry {
	struct pci_dev *d;
	char bdf[16];
};

struct list_ctx {
	const struct tally_devinfo_out *o;
	const char *sysfs;
	unsigned int listed;
	int rc;
};

static int
reg_bar_of(const struct pci_dev *d)
{
	if (d->vendor_id == TALLY_PCI_VENDOR_ID &&
	    d->device_id == TALLY_PCI_DEVICE_ID)
		return TALLY_PCI_BAR;
	if (d->vendor_id == TALLY_IVSHMEM_VENDOR_ID &&
	    d->device_id == TALLY_IVSHMEM_DEVICE_ID)
		return TALLY_IVSHMEM_BAR;
	return -1;
}

static int
dev_cmp(const void *a, const void *b)
{
	return strcmp(((const struct dev_entry *)a)->bdf,
		      ((const struct dev_entry *)b)->bdf);
}

static void
print_bars(const struct list_ctx *c, struct pci_dev *d)
{
	FILE *f = c->o->f;
	const char *sep = "";
	int i;

	if (c->o->json)
		fputs(", \"bars\": [", f);
	for (i = 0; i < 6; i++) {
		pciaddr_t flags = d->base_addr[i];
		bool io = flags & PCI_BASE_ADDRESS_SPACE_IO;
		uint64_t addr = flags & (io ? PCI_ADDR_IO_MASK : PCI_ADDR_MEM_MASK);
		bool pf = !io && (flags & PCI_BASE_ADDRESS_MEM_PREFETCH);
		const char *type = io ? "io" :
			(flags & PCI_BASE_ADDRESS_MEM_TYPE_64) ? "mem64" : "mem32";

		if (d->size[i] == 0)
			continue;
		if (c->o->json)
			fprintf(f, "%s{\"index\": %d, \"address\": \"0x%016" PRIx64
				"\", \"size\": %" PRIu64 ", \"type\": \"%s\", "
				"\"prefetchable\": %s}", sep, i, addr,
				(uint64_t)d->size[i], type, pf ? "true" : "false");
		else
			fprintf(f, "  bar %-10d 0x%016" PRIx64 " %" PRIu64 " bytes %s%s\n",
				i, addr, (uint64_t)d->size[i], type,
				pf ? " prefetchable" : "");
		sep = ", ";
	}
	if (c->o->json)
		fputc(']', f);
}

static void
print_head(const struct list_ctx *c, const struct dev_entry *e, int bar)
{
	struct pci_dev *d = e->d;
	const char *drv = pci_get_string_property(d, PCI_FILL_DRIVER);
	const char *grp = pci_get_string_property(d, PCI_FILL_IOMMU_GROUP);
	const char *kind = bar == TALLY_IVSHMEM_BAR ? "ivshmem" : "tally";
	FILE *f = c->o->f;

	if (c->o->json) {
		fprintf(f, "%s{\"bdf\": \"%s\", \"vendor\": \"0x%04x\", \"device\": \"0x%04x\", "
			"\"function\": \"%s\", \"register_bar\": %d, \"driver\": ",
			c->listed ? ", " : "", e->bdf, d->vendor_id, d->device_id,
			kind, bar);
		tally_devinfo_json_str(f, drv);
		fputs(", \"numa_node\": ", f);
		if (d->numa_node >= 0)
			fprintf(f, "%d", d->numa_node);
		else
			fputs("null", f);
		fputs(", \"iommu_group\": ", f);
		tally_devinfo_json_str(f, grp);
	} else {
		if (c->listed)
			fputc('\n', f);
		fprintf(f, "%s %04x:%04x %s, registers in BAR %d\n", e->bdf,
			d->vendor_id, d->device_id,
			bar == TALLY_IVSHMEM_BAR ? "Tally device on ivshmem-plain" :
			"Tally NIC", bar);
		fprintf(f, "  %-14s %s\n", "driver", drv ? drv : "none");
		if (d->numa_node >= 0)
			fprintf(f, "  %-14s %d\n", "numa node", d->numa_node);
		else
			fprintf(f, "  %-14s %s\n", "numa node", "none");
		fprintf(f, "  %-14s %s\n", "iommu group", grp ? grp : "none");
	}
	print_bars(c, d);
}

static void
print_dev(struct list_ctx *c, const struct dev_entry *e, int bar,
	  const struct tally_devinfo_id *id, uint64_t len)
{
	struct tally_devinfo_problems p;
	FILE *f = c->o->f;

	tally_devinfo_id_check(id, len, &p);
	print_head(c, e, bar);
	if (c->o->json) {
		fputs(", \"identity\": {", f);
		tally_devinfo_print_id(c->o, id);
		fputs("}, ", f);
		tally_devinfo_print_problems(c->o, &p);
		fputc('}', f);
	} else {
		tally_devinfo_print_id(c->o, id);
		tally_devinfo_print_problems(c->o, &p);
	}
	if (p.n != 0)
		c->rc = 1;
	c->listed++;
}

/* named: the user asked for this function, so say why it is not listed. */
static void
visit(struct list_ctx *c, const struct dev_entry *e, bool named)
{
	struct tally_devinfo_id id;
	char path[512], err[TALLY_DEVINFO_ERR_LEN];
	int bar = reg_bar_of(e->d), rc;
	uint64_t len;

	if (bar < 0) {
		if (named) {
			fprintf(stderr, "tally-devinfo: %s (%04x:%04x) is not a Tally function\n",
				e->bdf, e->d->vendor_id, e->d->device_id);
			c->rc = 1;
		}
		return;
	}
	snprintf(path, sizeof(path), "%s/devices/%s/resource%d", c->sysfs,
		 e->bdf, bar);
	rc = tally_devinfo_bar_read(path, &id, &len, err, sizeof(err));
	if (rc == 0) {
		print_dev(c, e, bar, &id, len);
		return;
	}
	/* an ivshmem without the signature belongs to someone else */
	if (bar == TALLY_IVSHMEM_BAR && rc == -ENODEV && !named)
		return;
	if (!(pci_read_word(e->d, PCI_COMMAND) & PCI_COMMAND_MEMORY))
		fprintf(stderr, "tally-devinfo: %s: %s (memory decoding is off: bind a driver first)\n",
			e->bdf, err);
	else
		fprintf(stderr, "tally-devinfo: %s: %s\n", e->bdf, err);
	c->rc = 1;
}

static int
collect(struct pci_access *pa, struct dev_entry **out)
{
	struct dev_entry *v = NULL, *nv;
	struct pci_dev *d;
	int n = 0;

	for (d = pa->devices; d != NULL; d = d->next) {
		nv = realloc(v, (size_t)(n + 1) * sizeof(*v));
		if (nv == NULL) {
			free(v);
			return -ENOMEM;
		}
		v = nv;
		pci_fill_info(d, PCI_FILL_IDENT | PCI_FILL_BASES | PCI_FILL_SIZES |
			      PCI_FILL_NUMA_NODE | PCI_FILL_IOMMU_GROUP |
			      PCI_FILL_DRIVER);
		v[n].d = d;
		snprintf(v[n].bdf, sizeof(v[n].bdf), "%04x:%02x:%02x.%x",
			 (unsigned int)d->domain & 0xffff, d->bus, d->dev, d->func);
		n++;
	}
	if (n > 1)
		qsort(v, (size_t)n, sizeof(*v), dev_cmp);
	*out = v;
	return n;
}

static void
visit_all(struct list_ctx *c, struct dev_entry *v, int n, char **bdfs,
	  int nb_bdfs)
{
	int i, j;

	if (nb_bdfs == 0) {
		for (i = 0; i < n; i++)
			visit(c, &v[i], false);
		return;
	}
	for (j = 0; j < nb_bdfs; j++) {
		for (i = 0; i < n && strcmp(v[i].bdf, bdfs[j]) != 0; i++)
			;
		if (i < n) {
			visit(c, &v[i], true);
			continue;
		}
		fprintf(stderr, "tally-devinfo: %s: no such PCI function under %s/devices\n",
			bdfs[j], c->sysfs);
		c->rc = 1;
	}
}

int
tally_devinfo_pci_list(const struct tally_devinfo_out *o, const char *sysfs,
		       char **bdfs, int nb_bdfs)
{
	struct list_ctx c = { .o = o, .sysfs = sysfs };
	struct dev_entry *v = NULL;
	struct pci_access *pa;
	char path[512];
	struct stat st;
	int n, err = 0;

	snprintf(path, sizeof(path), "%s/devices", sysfs);
	if (stat(path, &st) != 0)
		err = errno;
	else if (!S_ISDIR(st.st_mode))
		err = ENOTDIR;
	if (err != 0) {
		fprintf(stderr, "tally-devinfo: %s: %s\n", path, strerror(err));
		return 1;
	}
	pa = pci_alloc();
	pa->method = PCI_ACCESS_SYS_BUS_PCI;
	pci_set_param(pa, "sysfs.path", (char *)(uintptr_t)sysfs);
	pci_init(pa);
	pci_scan_bus(pa);
	n = collect(pa, &v);
	if (n < 0) {
		pci_cleanup(pa);
		fprintf(stderr, "tally-devinfo: %s\n", strerror(-n));
		return 1;
	}
	if (o->json)
		fputs("{\"devices\": [", o->f);
	visit_all(&c, v, n, bdfs, nb_bdfs);
	if (o->json)
		fputs("]}\n", o->f);
	free(v);
	pci_cleanup(pa);
	if (c.listed == 0 && nb_bdfs == 0) {
		fprintf(stderr, "tally-devinfo: no Tally PCI function under %s/devices\n",
			sysfs);
		return 1;
	}
	return c.rc;
}
