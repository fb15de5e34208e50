/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The Tally match key: the mlx5 "device spec" fte_match_param layout.
 *
 * A key is TALLY_MATCH_KEY_LEN bytes made of 64-byte sections. Fields are
 * big-endian and bit-packed exactly as the mlx5 PRM describes (bit offset 0 is
 * the MSB of byte 0). Consequently an mlx5dv_create_flow_matcher() buffer is a
 * valid Tally mask unchanged, and rte_flow items and ibv_flow_specs translate
 * into the same bytes.
 *
 * The device parses every received frame into a key; a rule matches when
 * (key & mask) == value for its matcher's mask. Byte offsets below are from
 * the start of the section; TALLY_MK_* macros give offsets from the key start.
 */
#ifndef TALLY_MATCH_H
#define TALLY_MATCH_H

#include <stdint.h>
#include "tally_bits.h"

#define TALLY_MATCH_SECTION_LEN		64
#define TALLY_MATCH_SECTIONS		8
#define TALLY_MATCH_KEY_LEN		(TALLY_MATCH_SECTION_LEN * TALLY_MATCH_SECTIONS)

/* Sections and their match_criteria_enable bit (same numbering). */
enum tally_match_section {
	TALLY_MS_OUTER = 0,	/* fte_match_set_lyr_2_4 */
	TALLY_MS_MISC = 1,	/* fte_match_set_misc */
	TALLY_MS_INNER = 2,	/* fte_match_set_lyr_2_4 of the VXLAN payload */
	TALLY_MS_MISC2 = 3,
	TALLY_MS_MISC3 = 4,
	TALLY_MS_MISC4 = 5,
	TALLY_MS_MISC5 = 6,
	TALLY_MS_RSVD = 7,
};
#define TALLY_MS_OFF(s)			((s) * TALLY_MATCH_SECTION_LEN)

/* fte_match_set_lyr_2_4 byte offsets (outer or inner section). */
#define TALLY_L24_SMAC			0	/* 6 bytes, wire order */
#define TALLY_L24_ETHERTYPE		6	/* 2, of the innermost tag's payload */
#define TALLY_L24_DMAC			8	/* 6 */
#define TALLY_L24_VLAN			14	/* 2: prio 15:13, cfi 12, vid 11:0 (first tag) */
#define TALLY_L24_IP_PROTOCOL		16	/* 1 */
#define TALLY_L24_IP_DSCP_ECN		17	/* 1: dscp 7:2, ecn 1:0 */
#define TALLY_L24_FLAGS			18	/* 1: cvlan 7, svlan 6, frag 5, ip_version 4:1, tcp_flags bit8 in 0 */
#define  TALLY_L24_F_CVLAN		0x80
#define  TALLY_L24_F_SVLAN		0x40
#define  TALLY_L24_F_FRAG		0x20
#define  TALLY_L24_F_IPVER_M		0x1e
#define  TALLY_L24_F_TCPFLAG8		0x01
#define TALLY_L24_TCP_FLAGS		19	/* 1: tcp flags bits 7:0 */
#define TALLY_L24_TCP_SPORT		20	/* 2 */
#define TALLY_L24_TCP_DPORT		22	/* 2 */
#define TALLY_L24_IHL_OK		26	/* 1: ihl 7:4, l3_ok 3, l4_ok 2, ipv4_csum_ok 1, l4_csum_ok 0 */
#define TALLY_L24_TTL_HOPLIMIT		27	/* 1 */
#define TALLY_L24_FRAG_DATA		24	/* 2: IPv4 flags and fragment offset (header bytes 6..7, as they are);
						 * IPv6: frag_data of the first fragment header (0 without one) */
#define TALLY_L24_UDP_SPORT		28	/* 2 */
#define TALLY_L24_UDP_DPORT		30	/* 2 */
#define TALLY_L24_SRC_IP		32	/* 16: IPv6, or IPv4 in bytes 44..47 */
#define TALLY_L24_DST_IP		48	/* 16: IPv6, or IPv4 in bytes 60..63 */
#define TALLY_L24_SRC_IPV4		44
#define TALLY_L24_DST_IPV4		60

/* fte_match_set_misc byte offsets (section 1). */
#define TALLY_MISC_SOURCE_PORT		6	/* 2: (2.3) where the frame entered the device
						 * (PRM source_port): from port i's wire, i;
						 * from port i's host (its Tx queues),
						 * i | TALLY_SOURCE_PORT_HOST */
#define  TALLY_SOURCE_PORT_HOST		0x100	/* source_port: sent by the port's host */
#define TALLY_MISC_OUTER_SECOND_VLAN	8	/* 2: prio/cfi/vid of the second outer tag */
#define TALLY_MISC_INNER_SECOND_VLAN	10
#define TALLY_MISC_SECOND_TAGS		12	/* 1: outer_cvlan 7, inner_cvlan 6, outer_svlan 5, inner_svlan 4 */
#define  TALLY_MISC_F_OUTER_SECOND_CVLAN 0x80
#define  TALLY_MISC_F_INNER_SECOND_CVLAN 0x40
#define  TALLY_MISC_F_OUTER_SECOND_SVLAN 0x20
#define  TALLY_MISC_F_INNER_SECOND_SVLAN 0x10
#define TALLY_MISC_FRAG_CLASS		13	/* 1: fragment offset classes, per header stack */
#define  TALLY_MISC_F_OUTER_FRAG_OFF1	0x80	/* outer: fragment offset >= 1 (a later fragment) */
#define  TALLY_MISC_F_OUTER_FRAG_OFF8	0x40	/* outer: fragment offset >= 8 (64 bytes on) */
#define  TALLY_MISC_F_INNER_FRAG_OFF1	0x20
#define  TALLY_MISC_F_INNER_FRAG_OFF8	0x10
#define TALLY_MISC_VXLAN_VNI		20	/* 3 */
#define TALLY_MISC_OUTER_IPV6_FLOW_LABEL 28	/* 4: low 20 bits */
#define TALLY_MISC_INNER_IPV6_FLOW_LABEL 32	/* 4: low 20 bits */
#define TALLY_MISC_OUTER_IPV6_FRAG_NH	56	/* 1: next header of the first IPv6 fragment header */
#define TALLY_MISC_INNER_IPV6_FRAG_NH	57

/* misc3 (section 4) byte offsets: ICMP. */
#define TALLY_MISC3_ICMP_HEADER_DATA	24	/* 4 */
#define TALLY_MISC3_ICMPV6_HEADER_DATA	28	/* 4 */
#define TALLY_MISC3_ICMP_TYPE		32
#define TALLY_MISC3_ICMP_CODE		33
#define TALLY_MISC3_ICMPV6_TYPE		34
#define TALLY_MISC3_ICMPV6_CODE		35

/* Offsets from the start of the key. */
#define TALLY_MK(sec, field)		(TALLY_MS_OFF(sec) + (field))

#define TALLY_VXLAN_UDP_PORT		4789

struct tally_match_key {
	uint8_t b[TALLY_MATCH_KEY_LEN];
} __attribute__((aligned(8)));
TALLY_STATIC_SIZE(struct tally_match_key, 512);

#endif /* TALLY_MATCH_H */
