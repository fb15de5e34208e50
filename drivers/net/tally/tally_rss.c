/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RSS of a port: the hash key, types and redirection table the application
 * sets (rss_hash_update, reta_update), kept in the adapter and programmed
 * into the device at start and, while the port runs, at once.
 */
#include <string.h>

#include "tally_flow.h"
#include "tally_logs.h"
#include "tally_pmd.h"

void
tally_reta_default(struct tally_adapter *ad, uint16_t nb_rxq)
{
	unsigned int i;

	for (i = 0; i < TALLY_RSS_RETA_SIZE; i++)
		ad->reta[i] = nb_rxq ? i % nb_rxq : 0;
}

int
tally_rss_program(struct rte_eth_dev *dev)
{
	struct tally_adapter *ad = tally_adapter(dev);
	int rc;

	tally_hal_rss_set_key(&ad->hal, ad->rss_key);
	rc = tally_hal_rss_set_reta(&ad->hal, ad->reta);
	if (rc != 0) {
		TALLY_DRV_LOG(ERR, "port %u: RETA names a queue >= %u",
			      dev->data->port_id, ad->hal.nb_rxq);
		return rc;
	}
	tally_hal_rss_set_hf(&ad->hal, tally_rss_hf_to_dev(ad->rss_hf));
	return 0;
}

int
tally_rss_hash_update(struct rte_eth_dev *dev, struct rte_eth_rss_conf *conf)
{
	struct tally_adapter *ad = tally_adapter(dev);

	if (conf->rss_hf & ~TALLY_PMD_RSS_HF)
		return -EINVAL;
	if (conf->rss_key != NULL && conf->rss_key_len != TALLY_RSS_KEY_LEN)
		return -EINVAL;
	if (conf->rss_key != NULL)
		memcpy(ad->rss_key, conf->rss_key, TALLY_RSS_KEY_LEN);
	ad->rss_hf = conf->rss_hf;
	if (ad->started) {
		tally_hal_rss_set_key(&ad->hal, ad->rss_key);
		tally_hal_rss_set_hf(&ad->hal, tally_rss_hf_to_dev(ad->rss_hf));
	}
	return 0;
}

int
tally_rss_hash_conf_get(struct rte_eth_dev *dev, struct rte_eth_rss_conf *conf)
{
	struct tally_adapter *ad = tally_adapter(dev);

	if (conf->rss_key != NULL) {
		if (conf->rss_key_len < TALLY_RSS_KEY_LEN)
			return -EINVAL;
		memcpy(conf->rss_key, ad->rss_key, TALLY_RSS_KEY_LEN);
	}
	conf->rss_key_len = TALLY_RSS_KEY_LEN;
	conf->rss_hf = ad->rss_hf;
	return 0;
}

int
tally_reta_update(struct rte_eth_dev *dev,
		  struct rte_eth_rss_reta_entry64 *reta, uint16_t size)
{
	struct tally_adapter *ad = tally_adapter(dev);
	uint8_t next[TALLY_RSS_RETA_SIZE];
	unsigned int i;

	if (size != TALLY_RSS_RETA_SIZE)
		return -EINVAL;
	memcpy(next, ad->reta, sizeof(next));
	for (i = 0; i < size; i++) {
		const struct rte_eth_rss_reta_entry64 *e =
			&reta[i / RTE_ETH_RETA_GROUP_SIZE];
		unsigned int j = i % RTE_ETH_RETA_GROUP_SIZE;

		if (!(e->mask & (1ull << j)))
			continue;
		if (e->reta[j] >= ad->max_rxq)
			return -EINVAL;
		next[i] = (uint8_t)e->reta[j];
	}
	memcpy(ad->reta, next, sizeof(next));
	ad->reta_user = true;
	if (ad->started)
		return tally_hal_rss_set_reta(&ad->hal, ad->reta);
	return 0;
}

int
tally_reta_query(struct rte_eth_dev *dev,
		 struct rte_eth_rss_reta_entry64 *reta, uint16_t size)
{
	struct tally_adapter *ad = tally_adapter(dev);
	unsigned int i;

	if (size != TALLY_RSS_RETA_SIZE)
		return -EINVAL;
	for (i = 0; i < size; i++) {
		struct rte_eth_rss_reta_entry64 *e =
			&reta[i / RTE_ETH_RETA_GROUP_SIZE];
		unsigned int j = i % RTE_ETH_RETA_GROUP_SIZE;

		if (e->mask & (1ull << j))
			e->reta[j] = ad->reta[i];
	}
	return 0;
}
