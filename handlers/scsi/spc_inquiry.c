/* spc_inquiry.c — INQUIRY (SPC-4 6.6): the standard data and the VPD pages
 * lunlab reports.  Every page is built whole in a local buffer and then
 * truncated to the ALLOCATION LENGTH (and to the data-in buffer), never the
 * other way round, so the length fields always describe the full page. */
#include <string.h>

#include "handlers/array/volume.h"
#include "handlers/copy/copy.h"
#include "lunlab/be.h"
#include "handlers/scsi/scsi.h"
#include "handlers/scsi/sense.h"

#define VENDOR_ID "LUNLAB"
#define PRODUCT_REV "0100"
/* identity=xtremio (lu_config.h): an XtremIO's T10 vendor and product, as
 * Linux's multipath-tools hwtable (`multipath -t`: vendor "XtremIO",
 * product "XtremApp") and REX-Ray's XtremIO driver (it looks for a SCSI
 * device whose sysfs vendor is "XtremIO") match them; docs/identity.md */
#define XTREMIO_VENDOR_ID "XtremIO"
#define XTREMIO_PRODUCT_ID "XtremApp"
#define PAGE_MAX 1024

/* product identification per built-in profile; others get "lunlab <name>" */
static const struct {
	const char *profile;
	const char *product;
} products[] = {
	{ "x1", "XtremIO-X1 emu" },
	{ "x2", "XtremIO-X2 emu" },
	{ "fa420", "FA-420 emu" },
	{ "fa420-ac", "FA-420 AC emu" },
	{ "unlimited", "lunlab RAM LU" },
};

const char *spc_vendor_id(const struct lunlab_dev *d)
{
	return d->xtremio_identity ? XTREMIO_VENDOR_ID : VENDOR_ID;
}

const char *spc_product_id(const struct lunlab_dev *d)
{
	if (d->xtremio_identity)
		return XTREMIO_PRODUCT_ID;
	for (size_t i = 0; i < sizeof(products) / sizeof(products[0]); i++)
		if (strcmp(d->model_name, products[i].profile) == 0)
			return products[i].product;
	return "lunlab LU";
}

static void put_ascii(uint8_t *dst, size_t width, const char *s)
{
	size_t n = strlen(s);
	memset(dst, ' ', width);
	memcpy(dst, s, n < width ? n : width);
}

static size_t standard_page(const struct lunlab_dev *d, uint8_t *b)
{
	static const uint16_t versions[] = {
		0x00a0, /* SAM-5 */
		0x0960, /* iSCSI */
		0x0460, /* SPC-4 */
		0x04c0, /* SBC-3 */
	};
	const size_t len = 96;

	memset(b, 0, len);
	b[0] = 0x00;           /* qualifier 0, direct access block device */
	b[2] = 0x06;           /* SPC-4 */
	b[3] = 0x12;           /* HISUP, response data format 2 */
	b[4] = (uint8_t)(len - 5);
	b[5] = 0x08;           /* 3PC: EXTENDED COPY supported; TPGS 0 (no ALUA) */
	b[7] = 0x02;           /* CMDQUE */
	put_ascii(b + 8, 8, spc_vendor_id(d));
	put_ascii(b + 16, 16, spc_product_id(d));
	put_ascii(b + 32, 4, PRODUCT_REV);
	for (size_t i = 0; i < sizeof(versions) / sizeof(versions[0]); i++)
		put_be16(b + 58 + 2 * i, versions[i]);
	return len;
}

static const uint8_t vpd_pages[] = { 0x00, 0x80, 0x83, 0x8f, 0xb0, 0xb1, 0xb2 };

static size_t vpd_supported(uint8_t *b)
{
	b[0] = 0;
	b[1] = 0x00;
	put_be16(b + 2, sizeof(vpd_pages));
	memcpy(b + 4, vpd_pages, sizeof(vpd_pages));
	return 4 + sizeof(vpd_pages);
}

static size_t vpd_serial(const struct lunlab_dev *d, uint8_t *b)
{
	size_t n = strnlen(d->serial, sizeof(d->serial));

	b[0] = 0;
	b[1] = 0x80;
	put_be16(b + 2, (uint16_t)n);
	memcpy(b + 4, d->serial, n);
	return 4 + n;
}

/* Device identification: only logical unit designators (the target adds
 * no port designators here: lunlab has one target port and no ALUA). */
static size_t vpd_devid(const struct lunlab_dev *d, uint8_t *b)
{
	size_t p = 4;
	size_t sn = strnlen(d->serial, sizeof(d->serial));

	b[0] = 0;
	b[1] = 0x83;
	/* NAA 6, binary */
	b[p + 0] = 0x01;       /* protocol id 0, code set binary */
	b[p + 1] = 0x03;       /* PIV 0, association LU, type NAA */
	b[p + 2] = 0;
	b[p + 3] = 16;
	memcpy(b + p + 4, d->naa, 16);
	p += 20;
	/* T10 vendor id: vendor (8 bytes) + unit serial, ASCII */
	b[p + 0] = 0x02;       /* code set ASCII */
	b[p + 1] = 0x01;       /* association LU, type T10 vendor id */
	b[p + 2] = 0;
	b[p + 3] = (uint8_t)(8 + sn);
	put_ascii(b + p + 4, 8, spc_vendor_id(d));
	memcpy(b + p + 12, d->serial, sn);
	p += 12 + sn;
	put_be16(b + 2, (uint16_t)(p - 4));
	return p;
}

static size_t vpd_block_limits(const struct lunlab_dev *d, uint8_t *b)
{
	uint32_t gran = scsi_opt_gran(d);

	memset(b, 0, 64);
	b[1] = 0xb0;
	put_be16(b + 2, 0x3c);
	b[4] = 0x00;                                   /* WSNZ 0: WRITE SAME 0 blocks = to the end */
	b[5] = SCSI_MAX_CAW_BLOCKS;                    /* MAXIMUM COMPARE AND WRITE LENGTH */
	put_be16(b + 6, (uint16_t)(gran > 0xffff ? 0xffff : gran)); /* OPTIMAL TRANSFER LENGTH GRANULARITY */
	put_be32(b + 8, d->max_xfer_len);              /* MAXIMUM TRANSFER LENGTH */
	put_be32(b + 12, d->max_xfer_len);             /* OPTIMAL TRANSFER LENGTH */
	put_be32(b + 20, SCSI_MAX_UNMAP_LBA_COUNT);
	put_be32(b + 24, SCSI_MAX_UNMAP_DESCRIPTORS);
	put_be32(b + 28, gran);                        /* OPTIMAL UNMAP GRANULARITY */
	put_be32(b + 32, 0x80000000u);                 /* UGAVALID, alignment 0 */
	put_be64(b + 36, scsi_max_write_same(d));
	put_be32(b + 44, scsi_max_atomic_blocks(d));   /* MAXIMUM ATOMIC TRANSFER LENGTH */
	/* 48-51 ATOMIC ALIGNMENT 0, 52-55 ATOMIC TRANSFER LENGTH GRANULARITY 0,
	 * 56-63 atomic boundaries 0: WRITE ATOMIC(16) needs none of them */
	return 64;
}

static size_t vpd_characteristics(uint8_t *b)
{
	memset(b, 0, 64);
	b[1] = 0xb1;
	put_be16(b + 2, 0x3c);
	put_be16(b + 4, 0x0001);                       /* non-rotating medium (flash array) */
	return 64;
}

/* Logical block provisioning: thin, UNMAP and WRITE SAME (10/16) with UNMAP
 * all deallocate, and unmapped blocks read as zeros (LBPRZ).  Thresholds
 * are supported when the array has a capacity: the soft threshold is the
 * one descriptor of mode page 1Ch/02h, counted in threshold sets. */
static size_t vpd_provisioning(const struct lunlab_dev *d, uint8_t *b)
{
	memset(b, 0, 8);
	b[1] = 0xb2;
	put_be16(b + 2, 4);
	b[4] = scsi_threshold_exponent(d);             /* THRESHOLD EXPONENT: a set = 2^n LBAs */
	b[5] = 0x80 | 0x40 | 0x20 | 0x04;              /* LBPU LBPWS LBPWS10, LBPRZ=001b; ANC_SUP 0, DP 0 */
	b[6] = 0x02;                                   /* MINIMUM PERCENTAGE 0, provisioning type: thin */
	b[7] = 0;                                      /* THRESHOLD PERCENTAGE 0: no percentage thresholds */
	return 8;
}

int spc_inquiry(struct scsi_cmd *cmd)
{
	const uint8_t *cdb = cmd->cdb;
	struct lunlab_dev *d = cmd->dev;
	uint8_t page[PAGE_MAX];
	size_t len;
	uint16_t alloc = get_be16(cdb + 3);

	memset(page, 0, sizeof(page));
	if (!(cdb[1] & 0x01)) {
		if (cdb[2] != 0)
			return sense_invalid_cdb_field(cmd, 2, -1); /* page code without EVPD */
		len = standard_page(d, page);
	} else {
		switch (cdb[2]) {
		case 0x00: len = vpd_supported(page); break;
		case 0x80: len = vpd_serial(d, page); break;
		case 0x83: len = vpd_devid(d, page); break;
		case 0x8f: len = copy_vpd_8f(d, page, sizeof(page)); break;
		case 0xb0: len = vpd_block_limits(d, page); break;
		case 0xb1: len = vpd_characteristics(page); break;
		case 0xb2: len = vpd_provisioning(d, page); break;
		default: return sense_invalid_cdb_field(cmd, 2, -1);
		}
		if (len > sizeof(page))
			len = sizeof(page);
	}
	if (len > alloc)
		len = alloc;
	cmd->bytes_moved = scsi_datain(cmd, page, len);
	return TCMU_STS_OK;
}
