/*
 * lun_tool: a tiny libiscsi client for the demo and for people poking at a LUN by hand.
 *
 *   lun_tool put URL LBA FILE        write FILE at LBA (WRITE(16); zero-padded to whole blocks)
 *   lun_tool get URL LBA BYTES FILE  read BYTES from LBA (READ(16)) into FILE ("-" = stdout)
 *   lun_tool ident URL               the LU's identity: VPD 0x80 serial and every VPD 0x83
 *                                    designator in hex (iscsi-inq prints binary NAA raw)
 *   lun_tool fill URL                write the whole LU with unique non-zero data, 1 MiB per
 *                                    WRITE(16) (bench/speed.sh prefills before read benchmarks,
 *                                    so that no target serves unwritten space from a shortcut)
 *
 * libiscsi-bin has no dd-like tool, hence this one.  Exit 0 on success, 1 on a SCSI or
 * transport error (printed with the sense), 2 on usage errors.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <iscsi/iscsi.h>
#include <iscsi/scsi-lowlevel.h>

static struct iscsi_context *iscsi;
static int lun;

static int connect_url(const char *url)
{
	struct iscsi_url *u;

	iscsi = iscsi_create_context("iqn.2026-11.org.lunlab:lun-tool");
	if (iscsi == NULL)
		return -1;
	u = iscsi_parse_full_url(iscsi, url);
	if (u == NULL) {
		fprintf(stderr, "bad URL '%s': %s\n", url, iscsi_get_error(iscsi));
		return -1;
	}
	iscsi_set_targetname(iscsi, u->target);
	iscsi_set_session_type(iscsi, ISCSI_SESSION_NORMAL);
	iscsi_set_timeout(iscsi, 60);
	if (iscsi_full_connect_sync(iscsi, u->portal, u->lun) != 0) {
		fprintf(stderr, "login to %s failed: %s\n", url, iscsi_get_error(iscsi));
		iscsi_destroy_url(u);
		return -1;
	}
	lun = u->lun;
	iscsi_destroy_url(u);
	return 0;
}

static int check(struct scsi_task *t, const char *op)
{
	if (t == NULL) {
		fprintf(stderr, "%s: %s\n", op, iscsi_get_error(iscsi));
		return -1;
	}
	if (t->status != SCSI_STATUS_GOOD) {
		fprintf(stderr, "%s: status 0x%02x, sense %x/%02x/%02x\n", op, t->status,
			t->sense.key, (t->sense.ascq >> 8) & 0xff, t->sense.ascq & 0xff);
		scsi_free_scsi_task(t);
		return -1;
	}
	return 0;
}

static int block_size(uint32_t *bs)
{
	struct scsi_task *t = iscsi_readcapacity16_sync(iscsi, lun);
	struct scsi_readcapacity16 *rc;

	if (check(t, "READ CAPACITY(16)") != 0)
		return -1;
	rc = scsi_datain_unmarshall(t);
	if (rc == NULL || rc->block_length == 0) {
		fprintf(stderr, "READ CAPACITY(16): unusable reply\n");
		scsi_free_scsi_task(t);
		return -1;
	}
	*bs = rc->block_length;
	scsi_free_scsi_task(t);
	return 0;
}

static int parse_u64(const char *s, const char *what, uint64_t *out)
{
	char *end = NULL;

	errno = 0;
	*out = strtoull(s, &end, 0);
	if (errno != 0 || end == s || *end != '\0' || s[0] == '-') {
		fprintf(stderr, "%s: not a number: '%s'\n", what, s);
		return -1;
	}
	return 0;
}

static int cmd_put(const char *url, const char *lba_s, const char *path)
{
	uint64_t lba;
	uint32_t bs;
	FILE *f;
	long size;
	size_t padded;
	unsigned char *buf;
	struct scsi_task *t;

	if (parse_u64(lba_s, "LBA", &lba) != 0)
		return 2;
	f = fopen(path, "rb");
	if (f == NULL) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return 2;
	}
	fseek(f, 0, SEEK_END);
	size = ftell(f);
	rewind(f);
	if (size <= 0 || size > 64L * 1024 * 1024) {
		fprintf(stderr, "%s: size %ld not in 1 .. 64 MiB\n", path, size);
		fclose(f);
		return 2;
	}
	if (connect_url(url) != 0 || block_size(&bs) != 0) {
		fclose(f);
		return 1;
	}
	padded = ((size_t)size + bs - 1) / bs * bs;
	buf = calloc(1, padded);
	if (buf == NULL || fread(buf, 1, (size_t)size, f) != (size_t)size) {
		fprintf(stderr, "%s: read failed\n", path);
		fclose(f);
		free(buf);
		return 1;
	}
	fclose(f);
	t = iscsi_write16_sync(iscsi, lun, lba, buf, (uint32_t)padded, (int)bs, 0, 0, 0, 0, 0);
	free(buf);
	if (check(t, "WRITE(16)") != 0)
		return 1;
	scsi_free_scsi_task(t);
	printf("wrote %ld bytes (%zu blocks of %u) at LBA %" PRIu64 "\n", size, padded / bs, bs,
	       lba);
	iscsi_logout_sync(iscsi);
	return 0;
}

static int cmd_get(const char *url, const char *lba_s, const char *bytes_s, const char *path)
{
	uint64_t lba, bytes;
	uint32_t bs;
	size_t padded;
	struct scsi_task *t;
	FILE *f;
	int rc = 0;

	if (parse_u64(lba_s, "LBA", &lba) != 0 || parse_u64(bytes_s, "BYTES", &bytes) != 0)
		return 2;
	if (bytes == 0 || bytes > 64ULL * 1024 * 1024) {
		fprintf(stderr, "BYTES %" PRIu64 " not in 1 .. 64 MiB\n", bytes);
		return 2;
	}
	if (connect_url(url) != 0 || block_size(&bs) != 0)
		return 1;
	padded = ((size_t)bytes + bs - 1) / bs * bs;
	t = iscsi_read16_sync(iscsi, lun, lba, (uint32_t)padded, (int)bs, 0, 0, 0, 0, 0);
	if (check(t, "READ(16)") != 0)
		return 1;
	if ((uint64_t)t->datain.size < bytes) {
		fprintf(stderr, "READ(16): short read, %d bytes\n", t->datain.size);
		scsi_free_scsi_task(t);
		return 1;
	}
	f = strcmp(path, "-") == 0 ? stdout : fopen(path, "wb");
	if (f == NULL || fwrite(t->datain.data, 1, (size_t)bytes, f) != (size_t)bytes) {
		fprintf(stderr, "%s: write failed\n", path);
		rc = 1;
	}
	if (f != NULL && f != stdout)
		fclose(f);
	scsi_free_scsi_task(t);
	if (rc == 0 && f != stdout)
		printf("read %" PRIu64 " bytes at LBA %" PRIu64 " into %s\n", bytes, lba, path);
	iscsi_logout_sync(iscsi);
	return rc;
}

static const char *designator_type_name(int type)
{
	switch (type) {
	case 0: return "vendor specific";
	case 1: return "T10 vendor ID";
	case 2: return "EUI-64";
	case 3: return "NAA";
	case 4: return "relative target port";
	case 5: return "target port group";
	case 6: return "logical unit group";
	case 7: return "MD5 logical unit id";
	case 8: return "SCSI name string";
	default: return "other";
	}
}

static int cmd_ident(const char *url)
{
	struct scsi_task *t;
	const unsigned char *d;
	int len;

	if (connect_url(url) != 0)
		return 1;
	t = iscsi_inquiry_sync(iscsi, lun, 1, 0x80, 255);
	if (check(t, "INQUIRY VPD 0x80") == 0) {
		d = t->datain.data;
		len = t->datain.size >= 4 ? d[3] : 0;
		if (len > t->datain.size - 4)
			len = t->datain.size - 4;
		printf("VPD 0x80 unit serial number: '%.*s'\n", len, (const char *)d + 4);
		scsi_free_scsi_task(t);
	}
	t = iscsi_inquiry_sync(iscsi, lun, 1, 0x83, 1024);
	if (check(t, "INQUIRY VPD 0x83") != 0)
		return 1;
	d = t->datain.data;
	len = t->datain.size;
	if (len >= 4) {
		int page_len = (d[2] << 8 | d[3]) + 4;
		int off = 4;
		if (page_len < len)
			len = page_len;
		printf("VPD 0x83 device identification:\n");
		/* each designation descriptor: 4-byte header, then DESIGNATOR LENGTH bytes */
		while (off + 4 <= len) {
			int dlen = d[off + 3];
			int codeset = d[off] & 0x0f, assoc = (d[off + 1] >> 4) & 3, type = d[off + 1] & 0x0f;
			if (off + 4 + dlen > len) {
				printf("  (truncated descriptor at offset %d)\n", off);
				break;
			}
			printf("  %-20s assoc %d %-6s ", designator_type_name(type), assoc,
			       codeset == 1 ? "binary" : codeset == 2 ? "ascii" : codeset == 3 ? "utf-8" : "?");
			if (codeset == 1) {
				for (int i = 0; i < dlen; i++)
					printf("%02x", d[off + 4 + i]);
			} else {
				printf("'%.*s'", dlen, (const char *)d + off + 4);
			}
			printf("\n");
			off += 4 + dlen;
		}
	}
	scsi_free_scsi_task(t);
	iscsi_logout_sync(iscsi);
	return 0;
}

static int cmd_fill(const char *url)
{
	struct scsi_task *t;
	struct scsi_readcapacity16 *rc;
	uint64_t nblocks, lba = 0;
	uint32_t bs, per;
	unsigned char *buf;

	if (connect_url(url) != 0)
		return 1;
	t = iscsi_readcapacity16_sync(iscsi, lun);
	if (check(t, "READ CAPACITY(16)") != 0)
		return 1;
	rc = scsi_datain_unmarshall(t);
	if (rc == NULL || rc->block_length == 0 || (1024 * 1024) % rc->block_length != 0) {
		fprintf(stderr, "READ CAPACITY(16): unusable reply\n");
		scsi_free_scsi_task(t);
		return 1;
	}
	bs = rc->block_length;
	nblocks = rc->returned_lba + 1;
	scsi_free_scsi_task(t);
	per = 1024 * 1024 / bs;
	buf = malloc(1024 * 1024);
	if (buf == NULL)
		return 1;
	while (lba < nblocks) {
		uint32_t n = nblocks - lba < per ? (uint32_t)(nblocks - lba) : per;
		/* every 8 bytes unique: the LBA-derived word never repeats and is never zero */
		for (uint32_t i = 0; i < n * bs / 8; i++) {
			uint64_t v = (lba * bs / 8 + i) * 0x9e3779b97f4a7c15ULL | 1;
			memcpy(buf + (size_t)i * 8, &v, 8);
		}
		t = iscsi_write16_sync(iscsi, lun, lba, buf, n * bs, (int)bs, 0, 0, 0, 0, 0);
		if (check(t, "WRITE(16)") != 0) {
			free(buf);
			return 1;
		}
		scsi_free_scsi_task(t);
		lba += n;
	}
	free(buf);
	printf("filled %" PRIu64 " blocks of %u bytes\n", nblocks, bs);
	iscsi_logout_sync(iscsi);
	return 0;
}

int main(int argc, char **argv)
{
	int rc = 2;

	if (argc == 5 && strcmp(argv[1], "put") == 0)
		rc = cmd_put(argv[2], argv[3], argv[4]);
	else if (argc == 6 && strcmp(argv[1], "get") == 0)
		rc = cmd_get(argv[2], argv[3], argv[4], argv[5]);
	else if (argc == 3 && strcmp(argv[1], "ident") == 0)
		rc = cmd_ident(argv[2]);
	else if (argc == 3 && strcmp(argv[1], "fill") == 0)
		rc = cmd_fill(argv[2]);
	else
		fprintf(stderr, "usage: %s put URL LBA FILE | get URL LBA BYTES FILE | ident URL | fill URL\n",
			argv[0]);
	if (iscsi != NULL)
		iscsi_destroy_context(iscsi);
	return rc;
}
