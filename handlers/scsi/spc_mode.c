/* spc_mode.c — MODE SENSE (6)/(10) and MODE SELECT (6)/(10), SPC-4 6.11-6.14,
 * with the caching (08h) and control (0Ah) pages, and SBC-4's Logical Block
 * Provisioning page (1Ch/02h, a subpage: reported, not changeable) when the
 * array has a capacity.
 *
 * Each page is described once by four images: current (built from the LU's
 * state), default, saved, and a changeable mask.  MODE SENSE returns the
 * image the PC field asks for; MODE SELECT accepts a page only if every bit
 * outside the changeable mask equals the current value, and applies the
 * changeable bits.  Changeable: caching WCE, control SWP.
 *
 * Saved values exist where the LU's array is kept in a state directory
 * (docs/persistence.md): pages then carry PS=1, MODE SELECT with SP=1 saves
 * what it sets (durably, before it completes) and MODE SENSE PC=3 returns
 * it; at a start the current values are the saved ones (SPC-4 6.13).  With
 * SP=0 only the current values change, as SPC-4 says.  In memory nothing
 * can be saved: PC=3 gets 05/39/00, SP=1 05/24/00. */
#include <string.h>

#include "handlers/array/array_admin.h"
#include "handlers/array/array_state.h"
#include "handlers/array/store_db.h"
#include "lunlab/be.h"
#include "lunlab/scsi_vocab.h"
#include "handlers/scsi/scsi.h"
#include "handlers/scsi/sense.h"

enum { PC_CURRENT = 0, PC_CHANGEABLE = 1, PC_DEFAULT = 2, PC_SAVED = 3 };

#define CACHING_PAGE 0x08
#define CACHING_LEN 20
#define CONTROL_PAGE 0x0a
#define CONTROL_LEN 12
#define LBP_PAGE 0x1c
#define LBP_SUBPAGE 0x02
#define LBP_LEN 24 /* 16-byte header + one threshold descriptor */
#define ALL_PAGES 0x3f
#define ALL_SUBPAGES 0xff

/* Can this LU save mode pages (a state directory)? */
static bool savable(struct scsi_lu *lu)
{
	return lu->dev.array && lu->dev.vol && array_persistent(lu->dev.array);
}

static uint32_t saved_flags(struct scsi_lu *lu)
{
	return savable(lu) ? array_volume_flags(lu->dev.vol) : 0;
}

static void caching_page(struct scsi_lu *lu, int pc, uint8_t *p)
{
	memset(p, 0, CACHING_LEN);
	p[0] = CACHING_PAGE | (savable(lu) ? 0x80 : 0);           /* PS */
	p[1] = CACHING_LEN - 2;
	switch (pc) {
	case PC_CHANGEABLE: p[2] = 0x04; break;                   /* WCE */
	case PC_DEFAULT: p[2] = 0x04; break;                      /* write cache on */
	case PC_SAVED: p[2] = saved_flags(lu) & STORE_VOL_WCE_OFF ? 0 : 0x04; break;
	default: p[2] = atomic_load(&lu->wce) ? 0x04 : 0; break;
	}
}

static void control_page(struct scsi_lu *lu, int pc, uint8_t *p)
{
	memset(p, 0, CONTROL_LEN);
	p[0] = CONTROL_PAGE | (savable(lu) ? 0x80 : 0);           /* PS */
	p[1] = CONTROL_LEN - 2;
	if (pc == PC_CHANGEABLE) {
		p[4] = 0x08;                                      /* SWP */
		return;
	}
	/* TST 0 (one task set), D_SENSE 0 (fixed sense only), GLTSD 1 (no log
	 * parameters saved), QUEUE ALGORITHM MODIFIER 1 (unrestricted reordering),
	 * QERR 0, TAS 1 (aborted commands of other nexuses get TASK ABORTED). */
	p[2] = 0x02;
	p[3] = 0x10;
	if ((pc == PC_CURRENT && atomic_load(&lu->swp)) || (pc == PC_SAVED && (saved_flags(lu) & STORE_VOL_SWP)))
		p[4] = 0x08;
	p[5] = 0x40;
	put_be16(p + 8, 0xffff);                                  /* busy timeout: unlimited */
}

/* Logical Block Provisioning (SBC-4 6.5.x): SITUA 0 (the unit attention
 * goes to every I_T nexus), one threshold descriptor: the array's soft
 * threshold as an armed decreasing threshold on the available LBA mapping
 * resources (log page 0Ch code 0001h), its count in threshold sets.  Nothing
 * is changeable: the threshold is set with the LUN key soft_threshold= or the
 * array-control interface (then 06/2A/01 MODE PARAMETERS CHANGED, ua.h). */
static void lbp_page(struct scsi_lu *lu, int pc, uint8_t *p)
{
	struct array_space sp;

	memset(p, 0, LBP_LEN);
	p[0] = 0x40 | LBP_PAGE;                                   /* SPF */
	p[1] = LBP_SUBPAGE;
	put_be16(p + 2, LBP_LEN - 4);
	if (pc == PC_CHANGEABLE)
		return;
	memset(&sp, 0, sizeof(sp));
	if (lu->dev.array)
		array_get_space(lu->dev.array, &sp);
	uint8_t *t = p + 16;
	uint64_t set = scsi_threshold_set_bytes(&lu->dev);
	uint64_t count = sp.capacity_bytes > sp.soft_threshold_bytes
				 ? (sp.capacity_bytes - sp.soft_threshold_bytes) / set
				 : 0;
	t[0] = sp.soft_threshold_bytes ? 0x80 : 0;                /* ENABLED; type 000b soft; arming 000b decreasing */
	t[1] = 0x01;                                              /* THRESHOLD RESOURCE: available LBA mapping */
	put_be32(t + 4, count > 0xffffffffu ? 0xffffffffu : (uint32_t)count);
}

/* The page exists when thresholds do (the array has a capacity). */
static bool lbp_present(struct scsi_lu *lu)
{
	return scsi_threshold_exponent(&lu->dev) != 0;
}

typedef void (*page_fn)(struct scsi_lu *lu, int pc, uint8_t *p);
static const struct {
	uint8_t code;
	uint8_t sub;
	uint8_t len;
	page_fn build;
	bool (*present)(struct scsi_lu *lu); /* NULL: always */
} pages[] = {
	{ CACHING_PAGE, 0, CACHING_LEN, caching_page, NULL },
	{ CONTROL_PAGE, 0, CONTROL_LEN, control_page, NULL },
	{ LBP_PAGE, LBP_SUBPAGE, LBP_LEN, lbp_page, lbp_present },
};
#define NPAGES (sizeof(pages) / sizeof(pages[0]))

int spc_mode_sense(struct scsi_cmd *cmd)
{
	const uint8_t *cdb = cmd->cdb;
	struct lunlab_dev *d = cmd->dev;
	struct scsi_lu *lu = scsi_lu(d);
	bool ten = cdb[0] == SCSI_OP_MODE_SENSE_10;
	bool dbd = cdb[1] & 0x08;
	bool llbaa = ten && (cdb[1] & 0x10);
	int pc = cdb[2] >> 6;
	uint8_t code = cdb[2] & 0x3f, sub = cdb[3];
	struct cdb_info ci;
	uint8_t buf[256];
	size_t hdr = ten ? 8 : 4, p;
	bool found = false;

	scsi_cdb_decode(cmd, &ci);
	uint32_t alloc = ci.length;
	if (pc == PC_SAVED && !savable(lu))
		return sense_set(cmd, SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_SAVING_PARAMETERS_NOT_SUPPORTED);

	memset(buf, 0, sizeof(buf));
	p = hdr;
	if (!dbd) {
		uint64_t n = d->num_lbas;
		if (llbaa) {                                      /* long LBA block descriptor */
			put_be64(buf + p, n);
			put_be32(buf + p + 12, d->block_size);
			p += 16;
		} else {
			put_be32(buf + p, n > 0xffffffffu ? 0xffffffffu : (uint32_t)n);
			put_be24(buf + p + 5, d->block_size);
			p += 8;
		}
	}
	size_t bdl = p - hdr;
	bool code_known = code == ALL_PAGES;
	for (size_t i = 0; i < NPAGES; i++) {
		if (pages[i].present && !pages[i].present(lu))
			continue;
		if (code != ALL_PAGES && code != pages[i].code)
			continue;
		code_known = true;
		/* subpage FFh: the page(s) and all their subpages; else an exact match */
		if (sub != ALL_SUBPAGES && sub != pages[i].sub)
			continue;
		pages[i].build(lu, pc, buf + p);
		p += pages[i].len;
		found = true;
	}
	if (!found)
		return code_known ? sense_invalid_cdb_field(cmd, 3, -1) : sense_invalid_cdb_field(cmd, 2, 5);

	/* header: device-specific parameter WP (SWP) and DPOFUA */
	uint8_t dsp = 0x10 | (scsi_write_protected(&lu->dev) ? 0x80 : 0);
	if (ten) {
		put_be16(buf, (uint16_t)(p - 2));
		buf[3] = dsp;
		buf[4] = llbaa && !dbd ? 0x01 : 0;
		put_be16(buf + 6, (uint16_t)bdl);
	} else {
		buf[0] = (uint8_t)(p - 1);
		buf[2] = dsp;
		buf[3] = (uint8_t)bdl;
	}
	if (p > alloc)
		p = alloc;
	cmd->bytes_moved = scsi_datain(cmd, buf, p);
	return TCMU_STS_OK;
}

/* Check one page of a MODE SELECT parameter list at offset off, and apply it
 * if apply is set (the list is checked whole before anything is applied).
 * Applying also collects the page's values as volume flags (fmask: which,
 * fval: their values), saved by the caller when SP is set. */
static int select_page(struct scsi_cmd *cmd, const uint8_t *pg, size_t off, size_t avail, size_t *used, bool apply,
		       uint32_t *fmask, uint32_t *fval)
{
	struct scsi_lu *lu = scsi_lu(cmd->dev);
	uint8_t cur[64], mask[64];

	if (avail < 2)
		return sense_set(cmd, SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_PARAMETER_LIST_LENGTH_ERROR);
	if (pg[0] & 0x40)                                          /* SPF: no subpages here */
		return sense_invalid_field(cmd, SCSI_ASC_INVALID_FIELD_IN_PARAM_LIST, false, (uint16_t)off, 6);
	uint8_t code = pg[0] & 0x3f;
	size_t i;
	for (i = 0; i < NPAGES; i++)
		if (pages[i].code == code && pages[i].sub == 0)
			break;
	if (i == NPAGES)
		return sense_invalid_field(cmd, SCSI_ASC_INVALID_FIELD_IN_PARAM_LIST, false, (uint16_t)off, 5);
	size_t len = pages[i].len;
	if (pg[1] != len - 2)
		return sense_invalid_field(cmd, SCSI_ASC_INVALID_FIELD_IN_PARAM_LIST, false, (uint16_t)(off + 1), -1);
	if (avail < len)
		return sense_set(cmd, SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_PARAMETER_LIST_LENGTH_ERROR);
	pages[i].build(lu, PC_CURRENT, cur);
	pages[i].build(lu, PC_CHANGEABLE, mask);
	/* byte 0 carries PS (reserved in MODE SELECT), compare from byte 2 on */
	for (size_t b = 2; b < len; b++) {
		uint8_t diff = (uint8_t)((pg[b] ^ cur[b]) & ~mask[b]);
		if (diff) {
			int bit = 7;
			while (!(diff & (1u << bit)))
				bit--;
			return sense_invalid_field(cmd, SCSI_ASC_INVALID_FIELD_IN_PARAM_LIST, false, (uint16_t)(off + b), bit);
		}
	}
	*used = len;
	if (!apply)
		return TCMU_STS_OK;
	if (code == CACHING_PAGE) {
		bool wce = pg[2] & 0x04;
		atomic_store(&lu->wce, wce);
		lu->dev.write_cache = wce;
		*fmask |= STORE_VOL_WCE_OFF;
		*fval |= wce ? 0 : STORE_VOL_WCE_OFF;
	} else if (code == CONTROL_PAGE) {
		atomic_store(&lu->swp, (pg[4] & 0x08) != 0);
		*fmask |= STORE_VOL_SWP;
		*fval |= pg[4] & 0x08 ? STORE_VOL_SWP : 0;
	}
	return TCMU_STS_OK;
}

int spc_mode_select(struct scsi_cmd *cmd)
{
	const uint8_t *cdb = cmd->cdb;
	bool ten = cdb[0] == SCSI_OP_MODE_SELECT_10;
	struct cdb_info ci;
	size_t hdr = ten ? 8 : 4;
	uint8_t buf[512];

	bool save = cdb[1] & 0x01;
	uint32_t mask = 0, val = 0;

	scsi_cdb_decode(cmd, &ci);
	uint32_t plen = ci.length;

	if (!(cdb[1] & 0x10))                                      /* PF=0: vendor format, none here */
		return sense_invalid_cdb_field(cmd, 1, 4);
	if (save && !savable(scsi_lu(cmd->dev)))                   /* SP: nothing can be saved in memory */
		return sense_invalid_cdb_field(cmd, 1, 0);
	if (plen == 0)
		return TCMU_STS_OK;
	if (plen < hdr || plen > sizeof(buf))
		return sense_set(cmd, SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_PARAMETER_LIST_LENGTH_ERROR);
	int rc = cdb_check_param_list(cmd, plen, ci.layout->len_off);
	if (rc != TCMU_STS_OK)
		return rc;
	scsi_dataout(cmd, buf, plen);
	cmd->bytes_moved = plen;

	size_t bdl = ten ? get_be16(buf + 6) : buf[3];
	bool longlba = ten && (buf[4] & 0x01);
	size_t bd_size = longlba ? 16 : 8;
	if (bdl % bd_size || hdr + bdl > plen)
		return sense_invalid_field(cmd, SCSI_ASC_INVALID_FIELD_IN_PARAM_LIST, false, ten ? 6 : 3, -1);
	/* a block descriptor may only restate the block length lunlab has */
	for (size_t o = hdr; o < hdr + bdl; o += bd_size) {
		uint32_t bl = longlba ? get_be32(buf + o + 12) : get_be24(buf + o + 5);
		if (bl != cmd->dev->block_size)
			return sense_invalid_field(cmd, SCSI_ASC_INVALID_FIELD_IN_PARAM_LIST, false,
						   (uint16_t)(o + (longlba ? 12 : 5)), -1);
	}
	for (int apply = 0; apply <= 1; apply++) {
		for (size_t o = hdr + bdl; o < plen;) {
			size_t used = 0;
			rc = select_page(cmd, buf + o, o, plen - o, &used, apply, &mask, &val);
			if (rc != TCMU_STS_OK)
				return rc;
			o += used;
		}
	}
	/* SP=1: the values set are saved, durably, before GOOD */
	if (save && mask && array_volume_set_flags(cmd->dev->vol, mask, val) != 0)
		return sense_set(cmd, SCSI_SK_HARDWARE_ERROR, SCSI_ASC_INTERNAL_TARGET_FAILURE);
	return TCMU_STS_OK;
}
