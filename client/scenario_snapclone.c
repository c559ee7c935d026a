/* scenario_snapclone.c - clone --mode snapshot: the XMS way to clone a VM.  The template is
 * written to the LU of URL (a volume made through the management API), then each clone is
 * one POST snapshots of that volume (a regular, writable snapshot: an instant metadata copy
 * in the array).  Measured: each call's latency, the clones' logical bytes per second, and
 * the cluster's capacity figures before and after (a snapshot adds no physical space).
 * --verify maps every clone to lunlab-bench's initiator through the API and reads it back;
 * the clones (and what --verify created) are deleted at the end unless --keep-clones. */
#include "lunlab/cdb_decode.h"
#include "lunlab/scsi_vocab.h"
#include "client/scenarios.h"

#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "client/conn.h"
#include "client/latency.h"
#include "client/readback.h"
#include "client/scsi_query.h"
#include "client/stream_write.h"
#include "client/synthetic_image.h"
#include "client/xfer_limit.h"
#include "client/xms_client.h"

static int fill_template(void *arg, uint64_t offset, uint8_t *buf, size_t len)
{
	const struct bench_opts *o = arg;

	template_fill(o->template_content, o->seed, offset, buf, len);
	return 0;
}

/* the LU's unit serial number (VPD 80h): lunlab's API volumes carry their GUID there */
static int serial_of(struct bench_conn *c, char *out, size_t cap, char *err, size_t errlen)
{
	uint8_t page[260];
	int n = q_inquiry(c, 0x80, page, sizeof(page));
	size_t len, start = 0;

	if (n < 4 || (len = (size_t)(page[2] << 8 | page[3])) == 0 || (size_t)n < 4 + len) {
		snprintf(err, errlen, "the LU reports no unit serial number (VPD 80h)");
		return -1;
	}
	while (start < len && page[4 + start] == ' ')
		start++;
	while (len > start && page[4 + len - 1] == ' ')
		len--;
	if (len - start >= cap || len == start) {
		snprintf(err, errlen, "the LU's unit serial number is empty or too long");
		return -1;
	}
	memcpy(out, page + 4 + start, len - start);
	out[len - start] = '\0';
	return 0;
}

/* iscsi://.../IQN/LUN with another LUN */
static int url_with_lun(const char *url, uint64_t lun, char *out, size_t cap)
{
	const char *slash = strrchr(url, '/');

	if (!slash || slash == url)
		return -1;
	return snprintf(out, cap, "%.*s/%llu", (int)(slash - url), url, (unsigned long long)lun) < (int)cap ? 0 : -1;
}

static long api_delete(struct xms_client *xc, const char *type, uint64_t index)
{
	char path[96], err[256];
	struct json_object *a = NULL;
	long st;

	snprintf(path, sizeof(path), "%s/%llu", type, (unsigned long long)index);
	st = xms_client_request(xc, "DELETE", path, NULL, &a, err, sizeof(err));
	json_object_put(a);
	return st;
}

/* read the first, middle and last MiB of clone c through a LUN map to our initiator */
struct verifier {
	uint64_t ig, initiator;      /* made by us (0: found) */
	char ig_name[96];
};

static int find_or_make_initiator(struct xms_client *xc, const struct bench_opts *o, struct verifier *v,
				  char *err, size_t errlen)
{
	struct json_object *a = NULL, *l, *b, *ig;
	char path[512], *esc = xms_client_escape(xc, o->initiator);
	long st;

	snprintf(path, sizeof(path), "initiators?full=1&prop=ig-id&filter=port-address:eq:%s", esc ? esc : "");
	free(esc);
	if (xms_client_request(xc, "GET", path, NULL, &a, err, errlen) != 200)
		return -1;
	l = json_object_object_get_ex(a, "initiators", &l) && json_object_is_type(l, json_type_array) ? l : NULL;
	if (l && json_object_array_length(l) == 1 &&
	    json_object_object_get_ex(json_object_array_get_idx(l, 0), "ig-id", &ig) &&
	    json_object_is_type(ig, json_type_array) && json_object_array_length(ig) == 3 &&
	    json_object_is_type(json_object_array_get_idx(ig, 1), json_type_string)) {
		snprintf(v->ig_name, sizeof(v->ig_name), "%s", json_object_get_string(json_object_array_get_idx(ig, 1)));
		json_object_put(a);
		return 0;
	}
	json_object_put(a);
	snprintf(v->ig_name, sizeof(v->ig_name), "lunlab-bench-%ld", (long)getpid());
	b = json_object_new_object();
	json_object_object_add(b, "ig-name", json_object_new_string(v->ig_name));
	st = xms_client_request(xc, "POST", "initiator-groups", b, &a, err, errlen);
	json_object_put(b);
	if (st != 201 || xms_client_created_index(a, &v->ig)) {
		json_object_put(a);
		return -1;
	}
	json_object_put(a);
	b = json_object_new_object();
	json_object_object_add(b, "initiator-name", json_object_new_string(o->initiator));
	json_object_object_add(b, "port-address", json_object_new_string(o->initiator));
	json_object_object_add(b, "ig-id", json_object_new_string(v->ig_name));
	st = xms_client_request(xc, "POST", "initiators", b, &a, err, errlen);
	json_object_put(b);
	if (st != 201 || xms_client_created_index(a, &v->initiator)) {
		json_object_put(a);
		return -1;
	}
	json_object_put(a);
	return 0;
}

static int verify_one(struct xms_client *xc, const struct bench_opts *o, const struct verifier *v, uint64_t clone,
		      struct snapclone_result *r, char *err, size_t errlen)
{
	struct json_object *b = json_object_new_object(), *a = NULL, *c, *lun;
	char path[96], url[1024];
	uint64_t map = 0, lunnr;
	struct bench_conn conn;
	uint8_t *got = NULL, *want = NULL;
	int ret = -1;
	long st;

	json_object_object_add(b, "vol-id", json_object_new_int64((int64_t)clone));
	json_object_object_add(b, "ig-id", json_object_new_string(v->ig_name));
	st = xms_client_request(xc, "POST", "lun-maps", b, &a, err, errlen);
	json_object_put(b);
	if (st != 201 || xms_client_created_index(a, &map)) {
		json_object_put(a);
		return -1;
	}
	json_object_put(a);
	snprintf(path, sizeof(path), "lun-maps/%llu", (unsigned long long)map);
	if (xms_client_request(xc, "GET", path, NULL, &a, err, errlen) != 200 ||
	    !json_object_object_get_ex(a, "content", &c) || !json_object_object_get_ex(c, "lun", &lun) ||
	    !json_object_is_type(lun, json_type_int)) {
		json_object_put(a);
		snprintf(err, errlen, "--verify: the LUN map of clone %llu has no LUN", (unsigned long long)clone);
		goto unmap;
	}
	lunnr = (uint64_t)json_object_get_int64(lun);
	json_object_put(a);
	if (url_with_lun(o->url, lunnr, url, sizeof(url)) || conn_open(url, o->initiator, &conn, err, errlen))
		goto unmap;
	uint64_t piece = o->template_size < (1u << 20) ? o->template_size : (1u << 20);
	piece -= piece % conn.block_size;
	piece -= piece % SYNTH_BLOCK_SIZE;
	got = malloc(piece ? piece : 1);
	want = malloc(piece ? piece : 1);
	if (!got || !want || !piece) {
		snprintf(err, errlen, "--verify: no room to compare");
		goto close;
	}
	uint64_t offs[3] = { 0, (o->template_size / 2) - (o->template_size / 2) % SYNTH_BLOCK_SIZE,
			     o->template_size - piece };
	for (int k = 0; k < 3; k++) {
		uint64_t off = offs[k] + piece > o->template_size ? o->template_size - piece : offs[k];
		uint64_t lba = off / conn.block_size;
		uint32_t blocks = (uint32_t)(piece / conn.block_size);
		uint8_t cdb[16];
		struct cmd_status cs;

		(void)cdb_build(cdb, sizeof(cdb), SCSI_OP_READ_16, 0, lba, blocks); /* READ(16): always fits */
		if (conn_cmd(&conn, cdb, 16, 1, NULL, 0, got, piece, &cs) || cs.status || cs.got != piece) {
			snprintf(err, errlen, "--verify: READ(16) of clone %llu at LBA %llu failed (status %d)",
				 (unsigned long long)clone, (unsigned long long)lba, cs.status);
			goto close;
		}
		template_fill(o->template_content, o->seed, off, want, piece);
		if (memcmp(got, want, piece)) {
			snprintf(err, errlen, "--verify: clone %llu differs from the template near byte %llu",
				 (unsigned long long)clone, (unsigned long long)off);
			goto close;
		}
		r->verified_bytes += piece;
	}
	ret = 0;
close:
	conn_stats_add(&r->conn, &conn.stats);
	conn_close(&conn);
unmap:
	free(got);
	free(want);
	if (map && api_delete(xc, "lun-maps", map) != 200 && ret == 0) {
		snprintf(err, errlen, "--verify: could not remove the LUN map of clone %llu", (unsigned long long)clone);
		ret = -1;
	}
	return ret;
}

int scenario_snapclone(const struct bench_opts *o, struct snapclone_result *r, char *err, size_t errlen)
{
	struct xms_client xc;
	struct bench_conn c;
	char serial[128], cluster[64];
	uint64_t *sets = NULL, *clones = NULL;
	struct lat_samples lat;
	struct verifier v;
	int ret = -1;

	memset(r, 0, sizeof(*r));
	memset(&lat, 0, sizeof(lat));
	memset(&v, 0, sizeof(v));
	r->clones = o->clones;
	r->template_size = o->template_size;
	if (xms_client_open(&xc, o->api_url, o->api_user, o->api_cacert, o->api_insecure, err, errlen))
		return -1;
	if (conn_open(o->url, o->initiator, &c, err, errlen)) {
		xms_client_close(&xc);
		return -1;
	}
	if (o->template_size % c.block_size || o->template_size / c.block_size > c.num_blocks) {
		snprintf(err, errlen, "--template-size %llu: not a whole number of %u-byte blocks within the LU",
			 (unsigned long long)o->template_size, c.block_size);
		goto out;
	}
	if (serial_of(&c, serial, sizeof(serial), err, errlen) ||
	    xms_client_volume_by_serial(&xc, serial, r->volume, sizeof(r->volume), &r->volume_index, cluster,
					sizeof(cluster), err, errlen))
		goto out;
	if (!o->skip_template) {
		struct stream_write_args wa = {
			.start_lba = 0, .total_bytes = o->template_size, .io_bytes = 1u << 20, .qd = 8,
			.fill = fill_template, .fill_arg = (void *)o, .label = "writing template", .quiet = o->quiet,
		};
		if (o->template_size < wa.io_bytes)
			wa.io_bytes = (uint32_t)o->template_size;
		if (stream_write(&c, &wa, err, errlen))
			goto out;
		/* A session was lost and logged in again: the snapshots copy the template only if
		 * what the target acknowledged before the loss is still there (a target that came back
		 * empty fails the run, as clone and drr do). */
		if (c.stats.reconnects && readback_check(&c, 0, o->template_size, fill_template, (void *)o, 16,
							 &r->readback_bytes, err, errlen))
			goto out;
	}
	if (xms_client_cluster(&xc, cluster, &r->before, err, errlen))
		goto out;
	sets = calloc(o->clones ? o->clones : 1, sizeof(*sets));
	clones = calloc(o->clones ? o->clones : 1, sizeof(*clones));
	if (!sets || !clones) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	double t0 = now_s();
	for (unsigned i = 0; i < o->clones; i++) {
		struct json_object *b = json_object_new_object(), *list = json_object_new_array(), *a = NULL, *ss;
		char name[160], path[200];
		uint64_t t = now_ns();
		long st;

		snprintf(name, sizeof(name), "lunlab-bench.%ld.%u", (long)getpid(), i);
		json_object_array_add(list, json_object_new_string(r->volume));
		json_object_object_add(b, "volume-list", list);
		json_object_object_add(b, "snapshot-set-name", json_object_new_string(name));
		json_object_object_add(b, "snap-suffix", json_object_new_string(name));
		json_object_object_add(b, "snapshot-type", json_object_new_string("regular"));
		st = xms_client_request(&xc, "POST", "snapshots", b, &a, err, errlen);
		json_object_put(b);
		if (st != 201 || xms_client_created_index(a, &clones[i])) {
			json_object_put(a);
			if (st == 201)
				snprintf(err, errlen, "POST snapshots: the answer names no snapshot");
			goto cleanup;
		}
		json_object_put(a);
		lat_add(&lat, now_ns() - t);
		r->made++;
		/* the set, to delete it (and its snapshot) at the end */
		snprintf(path, sizeof(path), "snapshot-sets?name=%s", name); /* [A-Za-z0-9.]: no escaping */
		if (xms_client_request(&xc, "GET", path, NULL, &a, err, errlen) != 200 ||
		    !json_object_object_get_ex(a, "content", &ss) ||
		    !json_object_object_get_ex(ss, "index", &ss) || !json_object_is_type(ss, json_type_int)) {
			json_object_put(a);
			snprintf(err, errlen, "GET snapshot-sets: snapshot set %s not found after its POST", name);
			goto cleanup;
		}
		sets[i] = (uint64_t)json_object_get_int64(ss);
		json_object_put(a);
	}
	r->wall_s = now_s() - t0;
	r->lat_mean_ms = lat_mean_ms(&lat);
	r->lat_p50_ms = lat_percentile_ms(&lat, 50);
	r->lat_p90_ms = lat_percentile_ms(&lat, 90);
	r->lat_max_ms = lat_percentile_ms(&lat, 100);
	r->bytes_cloned = (uint64_t)o->clones * o->template_size;
	if (xms_client_cluster(&xc, cluster, &r->after, err, errlen))
		goto cleanup;
	if (o->verify) {
		if (find_or_make_initiator(&xc, o, &v, err, errlen))
			goto cleanup;
		for (unsigned i = 0; i < o->clones; i++)
			if (verify_one(&xc, o, &v, clones[i], r, err, errlen))
				goto cleanup;
		r->verified = true;
	}
	ret = 0;
cleanup:
	if (!o->keep_clones || ret) {
		for (unsigned i = 0; i < r->made; i++)
			if (sets[i] && api_delete(&xc, "snapshot-sets", sets[i]) != 200 && ret == 0) {
				snprintf(err, errlen, "could not delete snapshot set %llu", (unsigned long long)sets[i]);
				ret = -1;
			}
		r->kept = false;
	} else {
		r->kept = true;
	}
	if (v.initiator)
		api_delete(&xc, "initiators", v.initiator);
	if (v.ig)
		api_delete(&xc, "initiator-groups", v.ig);
out:
	free(sets);
	free(clones);
	lat_free(&lat);
	conn_stats_add(&r->conn, &c.stats);
	conn_close(&c);
	xms_client_close(&xc);
	return ret;
}
