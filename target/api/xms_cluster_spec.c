/* xms_cluster_spec.c — see xms_cluster_spec.h. */
#include "target/api/xms_cluster_spec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool word_ok(const char *s, size_t max)
{
	size_t n = strlen(s);

	return n > 0 && n <= max &&
	       strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.") == n;
}

static int mode(const char *v)
{
	return strcmp(v, "disabled") == 0 ? 0 : strcmp(v, "initiator") == 0 ? 1 : strcmp(v, "mutual") == 0 ? 2 : -1;
}

bool xms_cluster_spec_parse(const char *spec, struct xms_cluster_spec *c, char *err, size_t errlen)
{
	char *copy = strdup(spec), *save = NULL, *tok;
	size_t kl = 0;
	bool ok = false;

	memset(c, 0, sizeof(*c));
	snprintf(c->name, sizeof(c->name), "%s", XMS_CLUSTER_DEFAULT_NAME);
	c->lb_size = 512;
	if (!copy) {
		snprintf(err, errlen, "out of memory");
		return false;
	}
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '='), *k = tok, *v;
		if (!eq || eq == tok) {
			snprintf(err, errlen, "'%.64s' is not key=value", tok);
			goto out;
		}
		*eq = '\0';
		v = eq + 1;
		if (!word_ok(k, 32)) {
			snprintf(err, errlen, "'%.32s': not a key name (letters, digits, _ - .)", k);
			goto out;
		}
		if (strchr(v, ';') || !*v) {
			snprintf(err, errlen, "%s: want a value without ';'", k);
			goto out;
		}
		if (strcmp(k, "name") == 0) {
			if (!word_ok(v, sizeof(c->name) - 1)) {
				snprintf(err, errlen, "name '%.64s': want 1..63 of letters, digits, _ - .", v);
				goto out;
			}
			snprintf(c->name, sizeof(c->name), "%s", v);
		} else if (strcmp(k, "block") == 0) {
			if (strcmp(v, "512") != 0 && strcmp(v, "4096") != 0) {
				snprintf(err, errlen, "block '%.16s': want 512 or 4096", v);
				goto out;
			}
			c->lb_size = (uint32_t)atoi(v);
		} else if (strcmp(k, "chap_authentication") == 0 || strcmp(k, "chap_discovery") == 0) {
			int m = mode(v);
			if (m < 0) {
				snprintf(err, errlen, "%s '%.16s': want disabled, initiator or mutual", k, v);
				goto out;
			}
			if (k[5] == 'a')
				c->chap_auth = m;
			else
				c->chap_discovery = m;
		} else if (strcmp(k, "max_volumes") == 0 || strcmp(k, "max_snapshots_per_volume") == 0) {
			char *end;
			unsigned long n = strtoul(v, &end, 10);
			if (*v < '1' || *v > '9' || *end || n > 65536) {
				snprintf(err, errlen, "%s '%.16s': want 1..65536", k, v);
				goto out;
			}
			if (k[4] == 'v')
				c->max_volumes = (uint32_t)n;
			else
				c->max_snaps_per_vol = (uint32_t)n;
		} else if (strcmp(k, "array") == 0 || strcmp(k, "volume") == 0 || strcmp(k, "readonly") == 0 ||
			   strcmp(k, "serial") == 0 || strcmp(k, "size") == 0 || strcmp(k, "handler") == 0) {
			snprintf(err, errlen, "%s: not a cluster key (the cluster's volumes set it themselves)", k);
			goto out;
		} else {
			int n = snprintf(c->keys + kl, sizeof(c->keys) - kl, "%s%s=%s", kl ? ";" : "", k, v);
			if (n < 0 || (size_t)n >= sizeof(c->keys) - kl) {
				snprintf(err, errlen, "too many keys");
				goto out;
			}
			kl += (size_t)n;
		}
	}
	ok = true;
out:
	free(copy);
	return ok;
}
