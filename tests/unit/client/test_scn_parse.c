/* test_scn_parse.c - scenario files: a good one read into the exact model, and every kind of
 * refusal (YAML syntax, unknown key, wrong type, a reference to nothing, an impossible
 * timeline) as the exact one line FILE:LINE:COLUMN: key: what. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "client/scn_parse.h"

static struct scn_model g_m;

static const char good[] =
	"name: fill\n"                                   /* 1 */
	"seed: 7\n"                                      /* 2 */
	"timeout: 20s\n"                                 /* 3 */
	"arrays:\n"                                      /* 4 */
	"  a:\n"                                         /* 5 */
	"    model: fa420-ac\n"                          /* 6 */
	"    capacity: 64M\n"                            /* 7 */
	"    soft_threshold: 50%\n"                      /* 8 */
	"    time_scale: virtual\n"                      /* 9 */
	"    state_dir: true\n"                          /* 10 */
	"    portals: 2\n"                               /* 11 */
	"    luns:\n"                                    /* 12 */
	"      src: {size: 32M}\n"                       /* 13 */
	"      dst: {size: 32M, block: 4096}\n"          /* 14 */
	"    faults: ['lun=0,op=tur,count=1,status=busy']\n" /* 15 */
	"workloads:\n"                                   /* 16 */
	"  w:\n"                                         /* 17 */
	"    kind: verify\n"                             /* 18 */
	"    lun: a.src\n"                               /* 19 */
	"    size: 1M\n"                                 /* 20 */
	"    bs: 64k\n"                                  /* 21 */
	"  c:\n"                                         /* 22 */
	"    kind: clone\n"                              /* 23 */
	"    lun: src\n"                                 /* 24 */
	"    dest: a.dst\n"                              /* 25 */
	"    template_size: 4M\n"                        /* 26 */
	"    start: 500ms\n"                             /* 27 */
	"timeline:\n"                                    /* 28 */
	"  - at: 1s\n"                                   /* 29 */
	"    fault: lun=0,op=write,sense=space-exhausted\n" /* 30 */
	"    name: full\n"                               /* 31 */
	"  - when: {workload: w, progress: 50%}\n"       /* 32 */
	"    kill: true\n"                               /* 33 */
	"  - at: 3s\n"                                   /* 34 */
	"    restart: true\n"                            /* 35 */
	"  - when: {metric: 'lunlab_array_used_bytes{array=\"a\"}', min: 1000}\n" /* 36 */
	"    fault_off: full\n"                          /* 37 */
	"  - at: 2s\n"                                   /* 38 */
	"    alua: {tpg: 1, state: standby, pref: false, transition: 1.5s}\n" /* 39 */
	"expect:\n"                                      /* 40 */
	"  - {workload: w, fails_with: 07/27/07}\n"      /* 41 */
	"  - {workload: w, verified: true}\n"            /* 42 */
	"  - {workload: c, duration: s, max: 10}\n"      /* 43 */
	"  - {metric: lunlab_array_used_bytes, min: 1, name: used}\n"; /* 44 */

static void good_file(void **state)
{
	char err[512] = "";
	int rc = scn_parse_text("f.yaml", good, strlen(good), &g_m, err, sizeof(err));
	assert_string_equal(err, "");
	assert_int_equal(rc, 0);
	assert_string_equal(g_m.name, "fill");
	assert_int_equal(g_m.seed, 7);
	assert_true(g_m.timeout_s == 20);
	assert_int_equal(g_m.n_arrays, 1);
	const struct scn_array *a = &g_m.arrays[0];
	assert_string_equal(a->model, "fa420-ac");
	assert_int_equal(a->capacity, 64u << 20);
	assert_int_equal(a->soft_threshold, 50);
	assert_string_equal(a->time_scale, "virtual");
	assert_true(a->state_dir);
	assert_int_equal(a->portals, 2);
	assert_int_equal(a->n_luns, 2);
	assert_int_equal(a->luns[1].block, 4096);
	assert_int_equal(a->luns[1].size, 32u << 20);
	assert_int_equal(a->n_faults, 1);
	assert_string_equal(a->faults[0], "lun=0,op=tur,count=1,status=busy");
	assert_int_equal(g_m.n_work, 2);
	assert_int_equal(g_m.work[0].kind, SCN_W_VERIFY);
	assert_int_equal(g_m.work[0].size, 1u << 20);
	assert_int_equal(g_m.work[0].bs, 64u << 10);
	assert_int_equal(g_m.work[1].lun.lun, 0);
	assert_int_equal(g_m.work[1].dest.lun, 1);
	assert_true(g_m.work[1].start_s == 0.5);
	assert_int_equal(g_m.n_events, 5);
	assert_int_equal(g_m.events[0].kind, SCN_E_FAULT);
	assert_int_equal(g_m.events[0].mark.line, 29);
	assert_int_equal(g_m.events[0].mark.col, 5);
	assert_int_equal(g_m.events[1].cond, SCN_C_PROGRESS);
	assert_true(g_m.events[1].min == 0.5);
	assert_int_equal(g_m.events[3].cond, SCN_C_METRIC);
	assert_int_equal(g_m.events[3].ref, 0);
	assert_string_equal(g_m.events[3].metric, "lunlab_array_used_bytes{array=\"a\"}");
	assert_int_equal(g_m.events[4].transition_ms, 1500);
	assert_int_equal(g_m.events[4].pref, 0);
	assert_int_equal(g_m.n_expect, 4);
	assert_string_equal(g_m.expect[0].text, "07/27/07");
	assert_string_equal(g_m.expect[0].name, "workload w fails with 07/27/07");
	assert_true(g_m.expect[2].have_max && g_m.expect[2].max == 10 && !g_m.expect[2].have_min);
	assert_string_equal(g_m.expect[3].name, "used");
	assert_int_equal(g_m.expect[3].array, 0);
}

/* the good file with line n (1-based) replaced by repl ("" deletes it) */
static void with_line(char *out, size_t len, unsigned n, const char *repl)
{
	const char *s = good;
	size_t o = 0;
	for (unsigned line = 1; *s; line++) {
		const char *eol = strchr(s, '\n');
		size_t l = (size_t)(eol - s) + 1;
		if (line == n)
			o += (size_t)snprintf(out + o, len - o, "%s%s", repl, *repl ? "\n" : "");
		else
			o += (size_t)snprintf(out + o, len - o, "%.*s", (int)l, s);
		s += l;
	}
}

static void refused(unsigned line, const char *repl, const char *want)
{
	char text[4096], err[512] = "";
	with_line(text, sizeof(text), line, repl);
	int rc = scn_parse_text("f.yaml", text, strlen(text), &g_m, err, sizeof(err));
	if (!want) { /* accepted after all: a ratio, checked by the caller's reading of g_m */
		if (rc != 0)
			fail_msg("line %u '%s': refused: %s", line, repl, err);
		assert_int_equal(g_m.expect[2].over_work, 1);
		assert_string_equal(g_m.expect[2].over_path, "wall_s");
		assert_string_equal(g_m.expect[2].name, "workload c modeled.duration_s / workload c wall_s");
		return;
	}
	if (rc != -1 || strcmp(err, want))
		fail_msg("line %u '%s':\n  got  '%s'\n  want '%s'", line, repl, err, want);
}

/* host_streams: a number, or session (one stream per initiator session) on a virtual clock */
static void host_streams_session(void **state)
{
	char text[4096], err[512] = "";
	with_line(text, sizeof(text), 9, "    time_scale: virtual\n    host_streams: session");
	if (scn_parse_text("f.yaml", text, strlen(text), &g_m, err, sizeof(err)))
		fail_msg("%s", err);
	assert_true(g_m.arrays[0].host_sessions);
	assert_int_equal(g_m.arrays[0].host_streams, 0);
	with_line(text, sizeof(text), 9, "    time_scale: virtual\n    host_streams: 100");
	assert_int_equal(scn_parse_text("f.yaml", text, strlen(text), &g_m, err, sizeof(err)), 0);
	assert_false(g_m.arrays[0].host_sessions);
	assert_int_equal(g_m.arrays[0].host_streams, 100);
	refused(9, "    time_scale: virtual\n    host_streams: sessions",
		"f.yaml:10:19: arrays.a.host_streams: 'sessions': expected 1..4096 or session");
	refused(9, "    host_streams: session", "f.yaml:6:5: arrays.a: host_streams needs time_scale: virtual");
}

/* clone job: the job a clone samples (--plot-job), and only on a clone */
static void clone_job(void **state)
{
	char text[4096], err[512] = "";
	with_line(text, sizeof(text), 26, "    template_size: 4M\n    job: 11.9g");
	assert_int_equal(scn_parse_text("f.yaml", text, strlen(text), &g_m, err, sizeof(err)), 0);
	assert_int_equal(g_m.work[1].job, (uint64_t)(11.9 * 1073741824.0));
	assert_int_equal(g_m.work[0].job, 0);
	refused(21, "    job: 1g", "f.yaml:21:5: workloads.w.job: not a key of a verify workload (known: kind, start, lun, "
			"bs, size, offset, sync_every, reconnect, seed, read_only, reread_for)");
	refused(26, "    job: lots", "f.yaml:26:10: workloads.c.job: 'lots': expected a size (64M, 4k, 1g)");
}

/* skip_if: a dot path of a workload's JSON report; not on array checks nor run: workloads */
static void skip_if_path(void **state)
{
	char text[4096], err[512] = "";
	with_line(text, sizeof(text), 43, "  - {workload: c, json: modeled.duration_s, max: 10, skip_if: machine_limited}");
	assert_int_equal(scn_parse_text("f.yaml", text, strlen(text), &g_m, err, sizeof(err)), 0);
	assert_string_equal(g_m.expect[2].skip_if, "machine_limited");
	assert_string_equal(g_m.expect[0].skip_if, "");
	refused(44, "  - {metric: lunlab_array_used_bytes, min: 1, skip_if: x}",
		"f.yaml:44:5: expect[3]: skip_if reads a workload's JSON report (clone, scale, drr, verify)");
	refused(43, "  - {workload: c, duration: s, max: 10, skip_if: ''}",
		"f.yaml:43:50: expect[2].skip_if: empty path (a dot path of the workload's JSON report: runs.0.machine_limited)");
}

/* scale warmup: the I/O before the measured window (lunlab-bench scale --warmup) */
static void scale_warmup(void **state)
{
	char text[4096], err[512] = "";
	with_line(text, sizeof(text), 17, "  s: {kind: scale, lun: a.src, vms: 4, bs: 4m, warmup: 1.5s}\n  w:");
	assert_int_equal(scn_parse_text("f.yaml", text, strlen(text), &g_m, err, sizeof(err)), 0);
	assert_int_equal(g_m.work[0].kind, SCN_W_SCALE);
	assert_true(g_m.work[0].warmup_s == 1.5);
	assert_true(g_m.work[1].warmup_s == 0);
	with_line(text, sizeof(text), 17, "  s: {kind: scale, lun: a.src, warmup: soon}\n  w:");
	assert_int_equal(scn_parse_text("f.yaml", text, strlen(text), &g_m, err, sizeof(err)), -1);
	assert_string_equal(err, "f.yaml:17:40: workloads.s.warmup: 'soon': expected a duration (2s, 500ms, 1.5m; at most a day)");
}

/* scale commands: (--count) replaces a window; keep_going; the ratio expectation over: */
static void scale_commands_and_ratio(void **state)
{
	char text[4096], err[512] = "";
	with_line(text, sizeof(text), 17, "  s: {kind: scale, lun: a.src, vms: 4, bs: 4m, commands: 7, keep_going: true}\n  w:");
	assert_int_equal(scn_parse_text("f.yaml", text, strlen(text), &g_m, err, sizeof(err)), 0);
	assert_int_equal(g_m.work[0].commands, 7);
	assert_true(g_m.work[0].keep_going);
	assert_int_equal(g_m.work[1].commands, 0);
	with_line(text, sizeof(text), 17, "  s: {kind: scale, lun: a.src, commands: 7, duration: 2s}\n  w:");
	assert_int_equal(scn_parse_text("f.yaml", text, strlen(text), &g_m, err, sizeof(err)), -1);
	assert_string_equal(err, "f.yaml:17:42: workloads.s: commands replaces duration and warmup (a fixed number of "
				 "commands per VM, no time window): give one or the other");
	refused(21, "    commands: 3", "f.yaml:21:5: workloads.w.commands: not a key of a verify workload (known: kind, "
			"start, lun, bs, size, offset, sync_every, reconnect, seed, read_only, reread_for)");
	refused(43, "  - {workload: c, json: modeled.duration_s, over: {workload: c, json: wall_s}, min: 2, max: 3}", NULL);
	refused(43, "  - {workload: c, duration: s, over: {workload: c, json: wall_s}, max: 3}",
		"f.yaml:43:32: expect[2]: over: divides a json: figure (not duration)");
	refused(43, "  - {workload: c, json: x, over: {workload: c}, max: 3}",
		"f.yaml:43:34: expect[2].over: needs workload and json (the figure to divide by)");
	refused(43, "  - {workload: c, json: x, over: {workload: nope, json: y}, max: 3}",
		"f.yaml:43:45: expect[2].over.workload: 'nope': no such workload");
}

static void yaml_syntax(void **state)
{
	refused(7, "    capacity: [64M", "f.yaml:8:19: yaml: did not find expected ',' or ']' while parsing a flow sequence");
	refused(19, "\tlun: a.src", "f.yaml:19:1: yaml: found a tab character that violates indentation while scanning a plain scalar");
}

static void unknown_keys(void **state)
{
	refused(7, "    capacty: 64M", "f.yaml:7:5: arrays.a.capacty: unknown key (known: url, api, api_user, model, profile, "
			"capacity, soft_threshold, time_scale, host_streams, state_dir, portals, tpgs, luns, volumes, faults, alua)");
	refused(1, "nmae: fill", "f.yaml:1:1: nmae: unknown key (known: name, seed, timeout, arrays, workloads, timeline, expect)");
	refused(21, "    chunk: 64k", "f.yaml:21:5: workloads.w.chunk: not a key of a verify workload (known: kind, start, lun, "
			"bs, size, offset, sync_every, reconnect, seed, read_only, reread_for)");
	refused(33, "    kil: true", "f.yaml:33:5: timeline[1].kil: unknown key (known: at, when, array, name, fault, fault_off, "
			"release, faults_clear, portal_down, portal_up, alua, kill, restart, pause, start_workload, api, volume, snapshot, resize, "
			"refresh, capacity)");
	refused(14, "      dst: {size: 32M, blok: 4096}", "f.yaml:14:24: arrays.a.luns.dst.blok: unknown key (known: size, block)");
	refused(3, "seed: 8", "f.yaml:3:1: seed: duplicate key (first at line 2)");
}

static void wrong_types(void **state)
{
	refused(11, "    portals: two", "f.yaml:11:14: arrays.a.portals: 'two': expected a whole number");
	refused(11, "    portals: 9", "f.yaml:11:14: arrays.a.portals: 9: out of range 1..4");
	refused(7, "    capacity: [1, 2]", "f.yaml:7:15: arrays.a.capacity: expected a string, got a sequence");
	refused(20, "    size: lots", "f.yaml:20:11: workloads.w.size: 'lots': expected a size (64M, 4k, 1g)");
	refused(29, "  - at: soon", "f.yaml:29:9: timeline[0].at: 'soon': expected a duration (2s, 500ms, 1.5m; at most a day)");
	refused(10, "    state_dir: maybe", "f.yaml:10:16: arrays.a.state_dir: 'maybe': expected true or false");
	refused(41, "  - {workload: w, fails_with: 7/27/7}",
		"f.yaml:41:31: expect[0].fails_with: '7/27/7': expected a sense KK/AA/QQ in hex (07/27/07)");
	refused(18, "    kind: fio", "f.yaml:18:11: workloads.w.kind: 'fio': expected verify, clone, scale, drr or run");
	refused(15, "    faults: lun=0", "f.yaml:15:13: arrays.a.faults: expected a sequence of fault rules, got a scalar");
}

static void dangling_references(void **state)
{
	refused(19, "    lun: a.nope", "f.yaml:19:10: workloads.w.lun: 'a.nope': array a has no LUN 'nope'");
	refused(19, "    lun: b.src", "f.yaml:19:10: workloads.w.lun: 'b.src': no array 'b'");
	refused(32, "  - when: {workload: x, progress: 50%}", "f.yaml:32:22: timeline[1].when.workload: 'x': no such workload");
	refused(37, "    fault_off: fool", "f.yaml:37:16: timeline[3].fault_off: 'fool': no fault named so earlier in the timeline");
	refused(37, "    start_workload: c", "f.yaml:37:21: timeline[3].start_workload: workload c starts at a time; write start: event in it");
	refused(32, "  - when: {after: nothing, delay: 1s}", "f.yaml:32:19: timeline[1].when.after: 'nothing': no event named so earlier in the timeline");
	refused(27, "    start: event", "f.yaml:27:12: workloads.c.start: no start_workload: c event in the timeline");
	refused(42, "  - {workload: v, verified: true}", "f.yaml:42:16: expect[1].workload: 'v': no such workload");
	refused(36, "  - when: {metric: x, min: 1}\n    array: b", "f.yaml:37:12: timeline[3].array: 'b': no such array");
}

/* release: NAME lets go what the hold rule of fault event NAME holds (POST .../release): it
 * names an earlier fault, and one whose SPEC holds; clone mode: odx passes through */
static void release_and_odx(void **state)
{
	static const char text[] =
		"arrays:\n  a: {luns: {src: {size: 32M}, dst: {size: 32M}}}\n"            /* 1, 2 */
		"workloads:\n  c: {kind: clone, lun: src, dest: dst, mode: odx, start: event}\n" /* 3, 4 */
		"timeline:\n"                                                            /* 5 */
		"  - {at: 0s, fault: 'op=write-using-token, every=3,count=1, hold', name: h}\n" /* 6 */
		"  - {when: {after: h}, start_workload: c}\n"                            /* 7 */
		"  - {when: {metric: 'lunlab_fault_hits_total{action=\"hold\"}', min: 1}, portal_down: 1, name: d}\n"
		"  - {when: {after: d}, release: h}\n"                                   /* 9 */
		"expect:\n  - {workload: c, finished: true}\n";
	char err[512] = "";
	int rc = scn_parse_text("r.yaml", text, strlen(text), &g_m, err, sizeof(err));
	assert_string_equal(err, "");
	assert_int_equal(rc, 0);
	assert_string_equal(g_m.work[0].mode, "odx");
	assert_int_equal(g_m.n_events, 4);
	assert_int_equal(g_m.events[3].kind, SCN_E_RELEASE);
	assert_int_equal(g_m.events[3].ref, 0);
	assert_int_equal(g_m.events[3].mark.line, 9);

	/* the good file's fault (line 30) holds nothing; a name that is no fault */
	refused(37, "    release: full",
		"f.yaml:37:14: timeline[3].release: 'full': its rule holds nothing (no hold in "
		"'lun=0,op=write,sense=space-exhausted'): release lets held commands go");
	refused(37, "    release: fool", "f.yaml:37:14: timeline[3].release: 'fool': no fault named so earlier in the timeline");
	refused(37, "    release: [full]", "f.yaml:37:14: timeline[3].release: expected a string, got a sequence");
	refused(30, "    fault: lun=0,op=write,sense=space-exhausted\n    release: full",
		"f.yaml:31:5: timeline[0].release: one action per event (this one has fault too)");
	/* a rule that is not a hold but says hold in another key's value is no hold */
	refused(30, "    fault: 'lun=0,op=write,sense=space-exhausted,initiator=iqn.x:hold'\n    name: full\n"
		    "  - at: 1s\n    release: full",
		"f.yaml:33:14: timeline[1].release: 'full': its rule holds nothing (no hold in "
		"'lun=0,op=write,sense=space-exhausted,initiator=iqn.x:hold'): release lets held commands go");
}

static void impossible_timeline(void **state)
{
	refused(32, "  - at: 3.5s", "f.yaml:34:5: timeline[2]: restart of array a with no kill before it");
	refused(35, "    kill: true", "f.yaml:34:5: timeline[2]: kill of array a while it is already killed (no restart between)");
	refused(29, "  - at: 25s", "f.yaml:29:5: timeline[0]: at 25s is not before the scenario's timeout (20s)");
	refused(39, "    alua: {tpg: 3, state: standby}", "f.yaml:39:5: alua: array a has 2 portal group(s)");
	refused(6, "    model: x1\n    alua: ['tpg=2,state=standby']",
		"f.yaml:6:5: arrays.a: alua: states at start need an array that reports ALUA (model: fa420-ac or tpgs: implicit)");
	refused(6, "    model: x2", "f.yaml:39:5: alua: array a reports no ALUA (model: fa420-ac or tpgs: implicit)");
	refused(10, "    state_dir: false", "f.yaml:35:5: restart: array a has no state_dir: a restart would find it empty");
	refused(32, "  - when: {workload: c, progress: 50%}",
		"f.yaml:32:11: timeline[1].when: workload c: progress is known for verify workloads only (use finished: true)");
	refused(33, "    pause: 0s", "f.yaml:33:12: timeline[1].pause: must be above 0");
	refused(29, "  - at: 1s\n    portal_down: 1", "f.yaml:31:5: timeline[0].fault: one action per event (this one has portal_down too)");
	refused(27, "    start: 30s", "f.yaml:27:12: workloads.c.start: 30s is not before the scenario's timeout (20s)");
	refused(26, "    template_size: 20M", "f.yaml:23:5: workloads.c: 2 clones of 20971520 bytes do not fit on LUN dst (33554432 bytes)");
}

static void api_events(void **state)
{
	refused(37, "    api: {method: PATCH, path: /api/lunlab/faults}",
		"f.yaml:37:19: timeline[3].api.method: 'PATCH': expected GET, POST, PUT or DELETE");
	refused(37, "    api: {method: POST, path: /api/lunlab/faults, body: '{\"spec\": '}",
		"f.yaml:37:57: timeline[3].api.body: not JSON");
	refused(37, "    api: {method: GET, path: api/lunlab/faults}",
		"f.yaml:37:30: timeline[3].api.path: 'api/lunlab/faults': expected a path on the API (/api/..., /metrics.json), no spaces");
	refused(36, "  - when: {api: /api/lunlab/faults}",
		"f.yaml:36:11: timeline[3].when: api: PATH goes with match: REGEX (what its answer must contain)");
	refused(44, "  - {api: /api/lunlab/faults, match: '('}",
		"f.yaml:44:38: expect[3].match: '(': not a POSIX extended regular expression");
	refused(44, "  - {workload: w, api: /api/lunlab/faults, match: x}", "f.yaml:44:5: expect[3]: api is the array's, not a workload's");
}

/* volume:, snapshot:, resize: become the API request they stand for, checked when read */
static void volume_actions(void **state)
{
	char text[4096], err[512] = "";
	with_line(text, sizeof(text), 37, "    volume: {name: scratch, size: 64M}");
	assert_int_equal(scn_parse_text("f.yaml", text, strlen(text), &g_m, err, sizeof(err)), 0);
	assert_int_equal(g_m.events[3].kind, SCN_E_API);
	assert_string_equal(g_m.events[3].method, "POST");
	assert_string_equal(g_m.events[3].path, "/api/json/v2/types/volumes");
	assert_string_equal(g_m.events[3].body, "{\"vol-name\": \"scratch\", \"vol-size\": \"65536k\", \"cluster-id\": \"a\"}");
	with_line(text, sizeof(text), 37, "    snapshot: {volume: vms_template, name: nightly, readonly: true}");
	assert_int_equal(scn_parse_text("f.yaml", text, strlen(text), &g_m, err, sizeof(err)), 0);
	assert_string_equal(g_m.events[3].path, "/api/json/v2/types/snapshots");
	assert_string_equal(g_m.events[3].body, "{\"volume-list\": [\"vms_template\"], \"snapshot-set-name\": \"nightly\", "
						"\"snap-suffix\": \"nightly\", \"snapshot-type\": \"readonly\"}");
	with_line(text, sizeof(text), 37, "    resize: {volume: v1, size: 32M}");
	assert_int_equal(scn_parse_text("f.yaml", text, strlen(text), &g_m, err, sizeof(err)), 0);
	assert_string_equal(g_m.events[3].method, "PUT");
	assert_string_equal(g_m.events[3].path, "/api/json/v2/types/volumes?name=v1");
	assert_string_equal(g_m.events[3].body, "{\"vol-size\": \"32768k\"}");
	/* an existing target: its first cluster (the runner does not know its names) */
	static const char ext[] = "arrays:\n  e: {url: 'iscsi://127.0.0.1:3260/iqn.x:t', api: 'https://127.0.0.1:8443', "
				  "luns: {d: {size: 16M}}}\n"
				  "workloads:\n  w: {kind: verify, lun: d}\n"
				  "timeline:\n  - {at: 0s, volume: {name: v1, size: 1M}}\n"
				  "expect:\n  - {workload: w, finished: true}\n";
	assert_int_equal(scn_parse_text("f.yaml", ext, strlen(ext), &g_m, err, sizeof(err)), 0);
	assert_string_equal(g_m.events[0].body, "{\"vol-name\": \"v1\", \"vol-size\": \"1024k\"}");
	refused(37, "    snapshot: {volume: v1}", "f.yaml:37:15: timeline[3].snapshot: needs volume and name");
	refused(37, "    resize: {volume: 'v\"1', size: 1M}",
		"f.yaml:37:22: timeline[3].resize.volume: 'v\"1': a volume or snapshot name here is 1..63 of a-z 0-9 _");
	refused(37, "    volume: {name: v1, size: 1M, lun: 3}", "f.yaml:37:34: timeline[3].volume.lun: unknown key (known: name, size)");
	refused(37, "    resize: {volume: v1, size: 1000}", "f.yaml:37:32: timeline[3].resize.size: must be a multiple of 1k");
}

/* refresh: and capacity: become the API request they stand for */
static void refresh_capacity_actions(void **state)
{
	char text[4096], err[512] = "";
	with_line(text, sizeof(text), 37, "    refresh: {volume: db, from: db.nightly}");
	assert_int_equal(scn_parse_text("f.yaml", text, strlen(text), &g_m, err, sizeof(err)), 0);
	assert_int_equal(g_m.events[3].kind, SCN_E_API);
	assert_string_equal(g_m.events[3].method, "POST");
	assert_string_equal(g_m.events[3].path, "/api/json/v2/types/snapshots");
	assert_string_equal(g_m.events[3].body, "{\"from-volume-id\": \"db.nightly\", \"to-volume-id\": \"db\", "
						"\"no-backup\": false}");
	with_line(text, sizeof(text), 37, "    refresh: {volume: db, from: db2, backup: false}");
	assert_int_equal(scn_parse_text("f.yaml", text, strlen(text), &g_m, err, sizeof(err)), 0);
	assert_string_equal(g_m.events[3].body, "{\"from-volume-id\": \"db2\", \"to-volume-id\": \"db\", "
						"\"no-backup\": true}");
	with_line(text, sizeof(text), 37, "    capacity: {size: 16M, soft_threshold: 25%}");
	assert_int_equal(scn_parse_text("f.yaml", text, strlen(text), &g_m, err, sizeof(err)), 0);
	assert_string_equal(g_m.events[3].method, "PUT");
	assert_string_equal(g_m.events[3].path, "/api/lunlab/arrays/a");
	assert_string_equal(g_m.events[3].body, "{\"capacity\": 16777216, \"soft-threshold\": 25}");
	with_line(text, sizeof(text), 37, "    capacity: {size: 2g}");
	assert_int_equal(scn_parse_text("f.yaml", text, strlen(text), &g_m, err, sizeof(err)), 0);
	assert_string_equal(g_m.events[3].body, "{\"capacity\": 2147483648}");
	with_line(text, sizeof(text), 37, "    capacity: {soft_threshold: 90}");
	assert_int_equal(scn_parse_text("f.yaml", text, strlen(text), &g_m, err, sizeof(err)), 0);
	assert_string_equal(g_m.events[3].body, "{\"soft-threshold\": 90}");
	refused(37, "    refresh: {volume: db}", "f.yaml:37:14: timeline[3].refresh: needs volume and from");
	refused(37, "    refresh: {volume: db.x, from: db}",
		"f.yaml:37:23: timeline[3].refresh.volume: 'db.x': a volume name here is 1..63 of a-z 0-9 _");
	refused(37, "    refresh: {volume: db, from: 'a\"b'}",
		"f.yaml:37:33: timeline[3].refresh.from: 'a\"b': a volume name here is 1..63 of a-z 0-9 _ "
		"(and . in a snapshot's VOLUME.NAME)");
	refused(37, "    refresh: {volume: db, from: x, suffix: y}",
		"f.yaml:37:36: timeline[3].refresh.suffix: unknown key (known: volume, from, backup)");
	refused(37, "    capacity: {size: 512k}", "f.yaml:37:22: timeline[3].capacity.size: 524288: at least 1M");
	refused(37, "    capacity: {soft_threshold: 101}",
		"f.yaml:37:32: timeline[3].capacity.soft_threshold: '101': expected a percentage 0..100");
	refused(37, "    capacity: {}", "f.yaml:37:15: timeline[3].capacity: needs size, soft_threshold or both");
	static const char ext[] = "arrays:\n  e: {url: 'iscsi://127.0.0.1:3260/iqn.x:t', api: 'https://127.0.0.1:8443', "
				  "luns: {d: {size: 16M}}}\n"
				  "workloads:\n  w: {kind: verify, lun: d}\n"
				  "timeline:\n  - {at: 0s, capacity: {size: 1G}}\n"
				  "expect:\n  - {workload: w, finished: true}\n";
	assert_int_equal(scn_parse_text("f.yaml", ext, strlen(ext), &g_m, err, sizeof(err)), -1);
	assert_string_equal(err, "f.yaml:6:14: capacity: array e is an existing target (url:): its array's name is not "
				 "known here; use an api: action (PUT /api/lunlab/arrays/NAME)");
}

/* clone mode: snapshot names the array (the runner makes the template volume), not a LUN */
static void snapshot_clone(void **state)
{
	static const char two[] = "arrays:\n  a: {luns: {d: {size: 16M}}}\n  b: {luns: {d: {size: 16M}}}\n"
				  "workloads:\n  s: {kind: clone, mode: snapshot, array: b, clones: 3}\n"
				  "expect:\n  - {workload: s, finished: true}\n";
	char err[512] = "";
	assert_int_equal(scn_parse_text("f.yaml", two, strlen(two), &g_m, err, sizeof(err)), 0);
	assert_string_equal(g_m.work[0].mode, "snapshot");
	assert_int_equal(g_m.work[0].lun.array, 1);
	assert_int_equal(g_m.work[0].lun.lun, -1);
	refused(23, "    kind: clone\n    mode: snapshot",
		"f.yaml:23:5: workloads.c: mode: snapshot clones a volume the runner makes through the API: name the array (array: NAME), not lun or dest");
	refused(24, "    array: a", "f.yaml:24:12: workloads.c: array: is for mode: snapshot (other clones name their lun)");
	refused(24, "    lun: src\n    array: a", "f.yaml:25:12: workloads.c: array: is for mode: snapshot (other clones name their lun)");
	refused(23, "    kind: clone\n    mode: snap", "f.yaml:24:11: workloads.c.mode: 'snap': expected auto, xcopy, odx, software or snapshot");
}

/* volumes: XMS volumes the runner makes through the API, named by workloads like LUNs; a
 * read-only verify stream with its own seed and reread_for */
static void api_volumes(void **state)
{
	static const char vf[] = "arrays:\n  a:\n    luns: {boot: {size: 1M}}\n    volumes:\n"
				 "      prod: {size: 8M}\n      gold: {size: 8M}\n"
				 "workloads:\n  r: {kind: verify, lun: prod, size: 4M, bs: 256k, read_only: true, reread_for: 30s, seed: 3}\n"
				 "  w: {kind: verify, lun: a.gold, size: 4M}\n"
				 "expect:\n  - {workload: r, verified: true}\n  - {workload: w, verified: true}\n";
	char err[512] = "", text[1024];
	assert_int_equal(scn_parse_text("f.yaml", vf, strlen(vf), &g_m, err, sizeof(err)), 0);
	const struct scn_array *a = &g_m.arrays[0];
	assert_int_equal(a->n_luns, 3);
	assert_false(a->luns[0].volume);
	assert_true(a->luns[1].volume);
	assert_string_equal(a->luns[1].name, "prod");
	assert_int_equal(a->luns[1].size, 8u << 20);
	assert_int_equal(a->luns[1].block, 512);
	assert_int_equal(g_m.work[0].lun.lun, 1);
	assert_int_equal(g_m.work[1].lun.lun, 2);
	assert_true(g_m.work[0].read_only && g_m.work[0].own_seed);
	assert_int_equal(g_m.work[0].seed, 3);
	assert_true(g_m.work[0].reread_s == 30);
	assert_false(g_m.work[1].read_only || g_m.work[1].own_seed);
	assert_string_equal(g_m.expect[0].name, "workload r: the region holds the seed's data");
	assert_string_equal(g_m.expect[1].name, "workload w: acknowledged data verified");
	static const struct { const char *from, *to, *want; } bad[] = {
		{ "gold: {size: 8M}", "boot: {size: 8M}",
		  "f.yaml:6:7: arrays.a.volumes.boot: 'boot' is already a LUN of this array (LUNs and volumes share their names)" },
		{ "gold: {size: 8M}", "gold: {size: 8M, block: 4096}", "f.yaml:6:24: arrays.a.volumes.gold.block: unknown key (known: size)" },
		{ "gold: {size: 8M}", "gold: {size: 8200k}", "f.yaml:6:13: arrays.a.volumes.gold: size 8396800: a volume's size is a multiple of 1M" },
		{ "read_only: true, ", "", "f.yaml:8:64: workloads.r: reread_for is for a read_only stream (a writer reads back what it wrote, once)" },
		{ "seed: 3}", "seed: -3}", "f.yaml:8:92: workloads.r.seed: '-3': expected a whole number" },
		{ "    luns: {boot: {size: 1M}}\n", "    url: iscsi://127.0.0.1/iqn.x\n    luns: {boot: {size: 1M}}\n",
		  "f.yaml:5:5: arrays.a: 'volumes' describes an array the runner starts; this one has url: (an existing target)" },
		{ "lun: prod,", "lun: nope,", "f.yaml:8:26: workloads.r.lun: 'nope': array a has no LUN 'nope'" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *at = strstr(vf, bad[i].from);
		assert_non_null(at);
		snprintf(text, sizeof(text), "%.*s%s%s", (int)(at - vf), vf, bad[i].to, at + strlen(bad[i].from));
		err[0] = 0;
		if (scn_parse_text("f.yaml", text, strlen(text), &g_m, err, sizeof(err)) != -1 || strcmp(err, bad[i].want))
			fail_msg("case %zu:\n  got  '%s'\n  want '%s'", i, err, bad[i].want);
	}
}

static void expectation_checks(void **state)
{
	refused(43, "  - {workload: c, duration: s}", "f.yaml:43:5: expect[2]: duration needs min:, max: or both");
	refused(43, "  - {workload: c, verified: true}", "f.yaml:43:19: expect[2].verified: workload c is a clone workload; verified is for verify workloads");
	refused(43, "  - {workload: c, output: '('}", "f.yaml:43:27: expect[2].output: '(': not a POSIX extended regular expression");
	refused(43, "  - {workload: c}", "f.yaml:43:5: expect[2]: missing the check (one of finished, fails_with, verified, saw_sense, duration, json, exit, output, metric, api)");
}

static void values(void **state)
{
	double d;
	unsigned s;
	assert_int_equal(scn_parse_duration("500ms", &d), 0);
	assert_true(d == 0.5);
	assert_int_equal(scn_parse_duration("1.5m", &d), 0);
	assert_true(d == 90);
	assert_int_equal(scn_parse_duration("3", &d), 0);
	assert_true(d == 3);
	assert_int_equal(scn_parse_duration("-1s", &d), -1);
	assert_int_equal(scn_parse_duration("2h", &d), -1);
	assert_int_equal(scn_parse_sense("07/27/07", &s), 0);
	assert_int_equal(s, 0x072707);
	assert_int_equal(scn_parse_sense("0b/44/00", &s), 0);
	assert_int_equal(s, 0x0b4400);
	assert_int_equal(scn_parse_sense("17/27/07", &s), -1);
	assert_int_equal(scn_parse_sense("07/27/0", &s), -1);
	assert_int_equal(scn_parse_sense("07-27-07", &s), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(good_file),
		cmocka_unit_test(yaml_syntax),
		cmocka_unit_test(clone_job),
		cmocka_unit_test(host_streams_session),
		cmocka_unit_test(skip_if_path),
		cmocka_unit_test(scale_warmup),
		cmocka_unit_test(scale_commands_and_ratio),
		cmocka_unit_test(volume_actions),
		cmocka_unit_test(refresh_capacity_actions),
		cmocka_unit_test(snapshot_clone),
		cmocka_unit_test(api_volumes),
		cmocka_unit_test(unknown_keys),
		cmocka_unit_test(wrong_types),
		cmocka_unit_test(dangling_references),
		cmocka_unit_test(impossible_timeline),
		cmocka_unit_test(release_and_odx),
		cmocka_unit_test(api_events),
		cmocka_unit_test(expectation_checks),
		cmocka_unit_test(values),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
