/* alua_check.c — ALUA as libiscsi sees it through two portal groups:
 * fault_run.sh (mode alua) starts lunlab-target with portal group 1
 * (PORTAL1) and 2 (PORTAL2) and
 *   LUN 0 model=fa420-ac (implicit ALUA; prefers group 1)
 *   LUN 1 model=fa420-ac,tpgs=both (prefers group 2)
 *   LUN 2 model=unlimited (no ALUA)
 *   LUN 3/4/5 model=fa420-ac with --alua: group 2 standby / unavailable / transitioning
 * and runs  alua_check PORTAL1 PORTAL2 IQN.  Checks: the TPGS field, the
 * VPD 0x83 port designators of each portal, REPORT TARGET PORT GROUPS
 * byte for byte, the sense of every command kind in each state (TEST UNIT
 * READY included), SET TARGET PORT GROUPS (refused without explicit ALUA,
 * its errors, its unit attention for the other session only). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "lunlab/scsi_vocab.h"
#include "check_util.h"

#define INI "iqn.2026-11.org.lunlab:alua-check"

static const char *g_iqn;

static struct outcome inquiry(struct iscsi_context *i, int lun, int evpd, int page, int alloc)
{
	uint8_t cdb[6] = { SCSI_OP_INQUIRY, (uint8_t)evpd, (uint8_t)page, (uint8_t)(alloc >> 8), (uint8_t)alloc, 0 };
	return raw_cdb(i, lun, cdb, 6, SCSI_XFER_READ, alloc, NULL);
}

static struct outcome rtpg(struct iscsi_context *i, int lun, bool ext, int alloc)
{
	uint8_t cdb[12] = { SCSI_OP_MAINTENANCE_IN, (uint8_t)(0x0a | (ext ? 0x20 : 0)), 0, 0, 0, 0,
			    (uint8_t)(alloc >> 24), (uint8_t)(alloc >> 16), (uint8_t)(alloc >> 8), (uint8_t)alloc, 0, 0 };
	return raw_cdb(i, lun, cdb, 12, SCSI_XFER_READ, alloc, NULL);
}

/* SET TARGET PORT GROUPS with n descriptors (state, group); len overrides
 * the parameter list length when >= 0 */
static struct outcome stpg(struct iscsi_context *i, int lun, const uint8_t (*d)[2], int n, int len)
{
	uint8_t list[4 + 4 * 8], cdb[12] = { SCSI_OP_MAINTENANCE_OUT, SCSI_SA_SET_TARGET_PORT_GROUPS };
	int pll = len >= 0 ? len : 4 + 4 * n;

	memset(list, 0, sizeof(list));
	for (int k = 0; k < n; k++) {
		list[4 + 4 * k] = d[k][0];
		list[4 + 4 * k + 3] = d[k][1];
	}
	cdb[9] = (uint8_t)pll;
	return raw_cdb(i, lun, cdb, 12, pll ? SCSI_XFER_WRITE : SCSI_XFER_NONE, pll, list);
}

static struct outcome tur(struct iscsi_context *i, int lun)
{
	return outcome_of(iscsi_testunitready_sync(i, lun));
}

static void tpgs_field(struct iscsi_context *p1)
{
	static const int want[] = { 1, 3, 0 };

	for (int lun = 0; lun < 3; lun++) {
		struct outcome o = inquiry(p1, lun, 0, 0, 96);
		int tpgs = o.data_len > 5 ? (o.data[5] >> 4) & 3 : -1;
		check(o.status == ST_GOOD && tpgs == want[lun], "LUN %d standard INQUIRY: TPGS %d (got %d)", lun, want[lun],
		      tpgs);
	}
}

/* VPD 0x83 ends with the relative target port and target port group designators */
static void designators(struct iscsi_context *i, const char *via, int tpg)
{
	struct outcome o = inquiry(i, 0, 1, 0x83, 255);
	int len = o.data_len >= 4 ? 4 + (o.data[2] << 8 | o.data[3]) : 0;
	const uint8_t want[16] = { 0x51, 0x94, 0, 4, 0, 0, 0, (uint8_t)tpg, 0x51, 0x95, 0, 4, 0, 0, 0, (uint8_t)tpg };

	check(o.status == ST_GOOD && len == o.data_len && len >= 16 && memcmp(o.data + len - 16, want, 16) == 0,
	      "LUN 0 VPD 0x83 through %s: RELATIVE TARGET PORT %d and TARGET PORT GROUP %d designators (page %d bytes)", via,
	      tpg, tpg, len);
	o = inquiry(i, 2, 1, 0x83, 255);
	len = o.data_len;
	check(o.status == ST_GOOD && len >= 16 && o.data[len - 16 + 1] != 0x94 && o.data[len - 8 + 1] != 0x95,
	      "LUN 2 (no ALUA) VPD 0x83 through %s: no port designators", via);
}

static void vpd83_truncated(struct iscsi_context *i)
{
	struct outcome full = inquiry(i, 0, 1, 0x83, 255), cut = inquiry(i, 0, 1, 0x83, 4);

	check(full.status == ST_GOOD && cut.status == ST_GOOD && cut.data_len == 4 &&
	      memcmp(cut.data, full.data, 4) == 0,
	      "VPD 0x83 with ALLOCATION LENGTH 4: the header alone, PAGE LENGTH counting the designators (%d)",
	      cut.data[2] << 8 | cut.data[3]);
}

static void report(struct iscsi_context *i)
{
	static const uint8_t lun0[32] = {
		0, 0, 0, 28, 0x10, 0, 0, 0,                               /* extended header */
		0x80, 0x8f, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1,                 /* group 1: PREF, AO */
		0x01, 0x8f, 0, 2, 0, 0, 0, 1, 0, 0, 0, 2,                 /* group 2: ANO */
	};
	struct outcome o = rtpg(i, 0, true, 255);

	check(o.status == ST_GOOD && o.data_len == 32 && memcmp(o.data, lun0, 32) == 0,
	      "REPORT TARGET PORT GROUPS (extended) of LUN 0: group 1 PREF active/optimized, group 2 active/non-optimized, "
	      "one port each (%d bytes)", o.data_len);
	o = rtpg(i, 0, false, 255);
	check(o.status == ST_GOOD && o.data_len == 28 && o.data[3] == 24 && memcmp(o.data + 4, lun0 + 8, 24) == 0,
	      "  ... the same in the length-only format (28 bytes)");
	o = rtpg(i, 0, false, 4);
	check(o.status == ST_GOOD && o.data_len == 4 && o.data[3] == 24, "  ... ALLOCATION LENGTH 4: RETURN DATA LENGTH 24");
	o = rtpg(i, 1, false, 255);
	check(o.status == ST_GOOD && o.data_len == 28 && o.data[4] == 0x01 && o.data[16] == 0x80,
	      "LUN 1 prefers group 2: group 1 ANO (%02x), group 2 PREF AO (%02x)", o.data[4], o.data[16]);
	o = rtpg(i, 3, false, 255);
	check(o.status == ST_GOOD && o.data[4] == 0x01 && o.data[16] == 0x82 && o.data[4 + 12 + 5] == 0x02,
	      "LUN 3 after --alua: group 2 PREF standby, STATUS CODE 02h altered implicitly (%02x, %02x)", o.data[16],
	      o.data[21]);
	o = rtpg(i, 2, false, 255);
	check(o.status == ST_CHECK && o.sense == 0x052000, "LUN 2 (no ALUA): REPORT TARGET PORT GROUPS is the handler's, "
	      "05/20/00 (got %06x)", o.sense);
}

/* commands in each state, through portal group 2 */
static void states(struct iscsi_context *p1, struct iscsi_context *p2)
{
	uint8_t rc10[10] = { SCSI_OP_READ_CAPACITY_10 }, rsense[6] = { SCSI_OP_REQUEST_SENSE, 0, 0, 0, 18, 0 };
	uint8_t ms6[6] = { SCSI_OP_MODE_SENSE_6, 0x08, 0x3f, 0, 255, 0 };
	static const struct {
		int lun, ascq;
		const char *name;
	} s[] = { { 3, 0x0b, "standby" }, { 4, 0x0c, "unavailable" }, { 5, 0x0a, "transitioning" } };
	struct outcome o;

	for (int k = 0; k < 3; k++) {
		int want = 0x020400 | s[k].ascq, lun = s[k].lun;
		o = tur(p2, lun);
		check(o.status == ST_CHECK && o.sense == want, "%s: TEST UNIT READY 02/04/%02X (got %06x)", s[k].name,
		      s[k].ascq, o.sense);
		o = outcome_of(iscsi_read10_sync(p2, lun, 0, 512, 512, 0, 0, 0, 0, 0));
		check(o.status == ST_CHECK && o.sense == want, "%s: READ(10) 02/04/%02X", s[k].name, s[k].ascq);
		o = inquiry(p2, lun, 0, 0, 96);
		check(o.status == ST_GOOD, "%s: INQUIRY GOOD", s[k].name);
		o = rtpg(p2, lun, false, 255);
		check(o.status == ST_GOOD, "%s: REPORT TARGET PORT GROUPS GOOD", s[k].name);
		o = raw_cdb(p2, lun, rsense, 6, SCSI_XFER_READ, 18, NULL);
		check(o.status == ST_GOOD, "%s: REQUEST SENSE GOOD", s[k].name);
		o = raw_cdb(p2, lun, rc10, 10, SCSI_XFER_READ, 8, NULL);
		check(k == 0 ? o.status == ST_GOOD : (o.status == ST_CHECK && o.sense == want),
		      "%s: READ CAPACITY(10) %s", s[k].name, k == 0 ? "GOOD (standby: hosts size the path)" : "refused");
		o = raw_cdb(p2, lun, ms6, 6, SCSI_XFER_READ, 255, NULL);
		check(k == 0 ? o.status == ST_GOOD : (o.status == ST_CHECK && o.sense == want), "%s: MODE SENSE(6) %s",
		      s[k].name, k == 0 ? "GOOD" : "refused");
		/* through group 1 (active/non-optimized) the LU serves */
		o = tur(p1, lun);
		check(o.status == ST_GOOD, "  ... the same LU through portal group 1 (ANO): TEST UNIT READY GOOD");
	}
	uint8_t data[512];
	memset(data, 0x5a, sizeof(data));
	o = outcome_of(iscsi_write10_sync(p2, 0, 10, data, 512, 512, 0, 0, 0, 0, 0));
	check(o.status == ST_GOOD, "LUN 0 through group 2 (active/non-optimized): WRITE GOOD");
	o = outcome_of(iscsi_read10_sync(p1, 0, 10, 512, 512, 0, 0, 0, 0, 0));
	check(o.status == ST_GOOD && o.data_len == 512 && memcmp(o.data, data, 512) == 0,
	      "  ... read back through group 1 (active/optimized)");
}

static void set_groups(struct iscsi_context *p1, struct iscsi_context *p2)
{
	static const uint8_t ao1_s2[2][2] = { { 0x0, 1 }, { 0x2, 2 } }, t1[1][2] = { { 0xf, 1 } },
			     bad_group[1][2] = { { 0x0, 9 } }, ao2[1][2] = { { 0x0, 2 } };
	struct outcome o;

	o = stpg(p1, 0, ao1_s2, 2, -1);
	check(o.status == ST_CHECK && o.sense == 0x052000, "SET TARGET PORT GROUPS on LUN 0 (implicit ALUA only): 05/20/00 "
	      "(got %06x)", o.sense);
	o = stpg(p1, 1, t1, 1, -1);
	check(o.status == ST_CHECK && o.sense == 0x052600, "STPG asking for transitioning: 05/26/00 (got %06x)", o.sense);
	o = stpg(p1, 1, bad_group, 1, -1);
	check(o.status == ST_CHECK && o.sense == 0x052600, "STPG naming group 9: 05/26/00 (got %06x)", o.sense);
	o = stpg(p1, 1, ao1_s2, 2, 6);
	check(o.status == ST_CHECK && o.sense == 0x051a00, "STPG with PARAMETER LIST LENGTH 6: 05/1A/00 (got %06x)", o.sense);
	o = stpg(p1, 1, ao1_s2, 0, 0);
	check(o.status == ST_GOOD, "STPG with PARAMETER LIST LENGTH 0: GOOD, nothing changes");
	o = tur(p2, 1);
	check(o.status == ST_GOOD, "  ... (no unit attention for the other session either)");

	o = stpg(p1, 1, ao1_s2, 2, -1);
	check(o.status == ST_GOOD, "STPG on LUN 1 through group 1: group 1 active/optimized, group 2 standby: GOOD");
	o = tur(p1, 1);
	check(o.status == ST_GOOD, "  ... the session that sent it: no unit attention, GOOD");
	o = tur(p2, 1);
	check(o.status == ST_CHECK && o.sense == 0x062a06,
	      "  ... the other session: UNIT ATTENTION 06/2A/06 ASYMMETRIC ACCESS STATE CHANGED (got %06x)", o.sense);
	o = tur(p2, 1);
	check(o.status == ST_CHECK && o.sense == 0x02040b, "  ... then its path is standby: 02/04/0B (got %06x)", o.sense);
	o = rtpg(p2, 1, false, 255);
	check(o.status == ST_GOOD && o.data[4] == 0x00 && o.data[9] == 0x01 && o.data[16] == 0x82 && o.data[21] == 0x01,
	      "  ... REPORT TARGET PORT GROUPS: group 1 AO, group 2 PREF standby, both STATUS CODE 01h (explicit)");
	o = stpg(p2, 1, ao2, 1, -1);
	check(o.status == ST_GOOD, "STPG through the standby group itself (allowed in standby): group 2 back to AO");
	o = tur(p1, 1);
	check(o.status == ST_CHECK && o.sense == 0x062a06, "  ... now group 1's session gets 06/2A/06");
	o = tur(p2, 1);
	check(o.status == ST_GOOD, "  ... and group 2 serves again");
}

int main(int argc, char **argv)
{
	struct iscsi_context *p1, *p2;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc != 4) {
		fprintf(stderr, "usage: %s PORTAL1 PORTAL2 IQN\n", argv[0]);
		return 2;
	}
	g_iqn = argv[3];
	/* libiscsi's connect sends TEST UNIT READY: to LUN 2, which has no ALUA */
	p1 = session(argv[1], g_iqn, INI, 2, true);
	p2 = session(argv[2], g_iqn, INI, 2, true);
	if (!p1 || !p2) {
		printf("FAIL: login\n");
		return 1;
	}
	tpgs_field(p1);
	designators(p1, "portal group 1", 1);
	designators(p2, "portal group 2", 2);
	vpd83_truncated(p1);
	report(p1);
	states(p1, p2);
	set_groups(p1, p2);
	session_end(p1);
	session_end(p2);
	printf("%s: %d check(s) failed\n", g_failed ? "FAIL" : "ok", g_failed);
	return g_failed ? 1 : 0;
}
