/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Rule placement: which matcher a rule goes to.
 *
 * TCP and UDP ports are separate key fields, so a rule set with the same
 * port masks for TCP and UDP would need two matchers per mask, and a frame
 * that matches neither probes both. tally_steer_merge_ports() widens a
 * rule's mask so both land in one matcher:
 *
 * For each L2-L4 section (outer, and the inner headers of a VXLAN payload),
 * a rule whose ip_protocol is fully masked and equal to TCP (6) or UDP (17),
 * and which masks ports of that protocol only, also gets the other
 * protocol's port fields masked - source with the source port mask,
 * destination with the destination one - with value 0. The device's parser
 * fills only the ports of the protocol it found (tally_model_parse.c), so in
 * every key whose ip_protocol is TCP the UDP ports are 0 and vice versa: the
 * widened rule matches exactly the frames the original matched. A TCP rule
 * and a UDP rule with the same port masks then have the same mask.
 *
 * Only the choice of matcher changes. Rules that become neighbours in one
 * matcher cannot both match a frame (their ip_protocol values differ), so
 * no frame changes its verdict because of the merge, except the order
 * between matchers of equal priority, which changes with the set of
 * matchers (the DPDK flow API leaves overlapping rules of equal priority
 * undefined).
 */
#ifndef TALLY_STEER_PLACE_H
#define TALLY_STEER_PLACE_H

#include <stdbool.h>

#include <tally/tally_match.h>

/* Widen mask (and zero value in the new bits) as above. True if changed. */
bool tally_steer_merge_ports(struct tally_match_key *mask,
			     struct tally_match_key *value);

#endif /* TALLY_STEER_PLACE_H */
