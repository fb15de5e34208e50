/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * PCI identities of Tally functions and the BAR holding the register file.
 *
 *  - A Tally function: TALLY_PCI_VENDOR_ID:TALLY_PCI_DEVICE_ID, registers in
 *    BAR 0.
 *  - The software device exported through QEMU's ivshmem-plain (1af4:1110):
 *    the shared-memory file is BAR 2. QEMU cannot give it its own IDs, so a
 *    driver claims such a function only when the BAR starts with
 *    TALLY_SIGNATURE (tally_regs.h) and leaves every other ivshmem alone.
 */
#ifndef TALLY_PCI_IDS_H
#define TALLY_PCI_IDS_H

/* Placeholder: no silicon exists and no vendor ID is assigned yet; 0x1f1a is
 * not allocated in the PCI ID database (pci.ids) at the time of writing. */
#define TALLY_PCI_VENDOR_ID		0x1f1a
#define TALLY_PCI_DEVICE_ID		0x7a11
#define TALLY_PCI_BAR			0

#define TALLY_IVSHMEM_VENDOR_ID		0x1af4
#define TALLY_IVSHMEM_DEVICE_ID		0x1110
#define TALLY_IVSHMEM_BAR		2

#endif /* TALLY_PCI_IDS_H */
