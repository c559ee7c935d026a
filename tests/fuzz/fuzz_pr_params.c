/* fuzz_pr_params.c — libFuzzer target for the reservation commands the LU
 * layer parses itself (target/lu/pr*.c, scsi2_reserve.c): PERSISTENT
 * RESERVE OUT parameter lists and CDBs, PERSISTENT RESERVE IN CDBs
 * (service action, allocation length), RESERVE/RELEASE, and the gate, as a
 * sequence of commands from four initiator ports against one LU.
 *
 * Input: records of [port byte (bits 0-1 the port, bit 7 its session ends
 * first, bit 6 a LUN reset first)][10-byte CDB][length byte n][n bytes of
 * Data-Out]; for PERSISTENT RESERVE IN no bytes follow and the Data-In
 * buffer has 3 * n bytes.  The last record may be short (what is there is
 * used).  After
 * each command the answer must be well formed: a status the LU layer can
 * give, sense only with CHECK CONDITION, no more Data-In than room. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "target/core/ua_queue.h"
#include "target/lu/pr.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint8_t isids[4][6] = {
		{ 0x80, 0, 0, 0, 0, 1 }, { 0x80, 0, 0, 0, 0, 2 }, { 0x40, 1, 2, 3, 4, 5 }, { 0, 0, 0, 0, 0, 0 },
	};
	static const char *names[4] = {
		"iqn.2026-11.org.lunlab.fuzz:a", "iqn.2026-11.org.lunlab.fuzz:a",
		"iqn.2026-11.org.lunlab.fuzz:b", "",
	};
	struct pr_port ports[4];
	struct ua_queue *ua = ua_queue_new();
	struct pr_state *st = pr_state_new(ua);
	size_t off = 0;

	if (!st)
		return 0;
	for (int i = 0; i < 4; i++)
		pr_port_set(&ports[i], names[i], isids[i]);
	while (off < size) {
		uint8_t pb = data[off++];
		const struct pr_port *p = &ports[pb & 3];
		uint8_t cdb[16] = { 0 };
		size_t n = size - off < 10 ? size - off : 10, plen = 0;
		uint8_t room[3 * 255];
		uint8_t *param = NULL;
		struct pr_answer ans;

		/* port byte bit 7: that port's session ends first; bit 6: LUN reset */
		if (pb & 0x80)
			pr_nexus_lost(st, p, 7);
		if (pb & 0x40)
			pr_lun_reset(st);
		memcpy(cdb, data + off, n);
		off += n;
		if (off < size) {
			plen = data[off++];
			if (cdb[0] == 0x5e)
				plen *= 3; /* Data-In room, nothing follows */
			else if (plen > size - off)
				plen = size - off;
		}
		/* exactly plen bytes on the heap, so ASan sees any overread */
		if (plen && cdb[0] != 0x5e) {
			param = malloc(plen);
			if (!param)
				break;
			memcpy(param, data + off, plen);
		}
		if (cdb[0] != 0x5e)
			off += plen;
		if (!pr_gate(st, cdb, sizeof(cdb), p, room, sizeof(room), &ans)) {
			if (pr_owns_opcode(cdb[0])) {
				if (cdb[0] == 0x5e)
					pr_execute(st, cdb, sizeof(cdb), p, 7, room, plen, &ans);
				else
					pr_execute(st, cdb, sizeof(cdb), p, 7, param, plen, &ans);
			} else {
				ans.status = 0;
				ans.sense_len = 0;
				ans.data_len = 0;
				ans.n_abort = 0;
			}
		}
		free(param);
		if (ans.status != 0x00 && ans.status != 0x02 && ans.status != SCSI_STAT_RESERVATION_CONFLICT)
			abort();
		if ((ans.status == 0x02) != (ans.sense_len == 18))
			abort();
		if (ans.data_len > sizeof(room) || ans.n_abort > PR_REGS_MAX)
			abort();
		if (cdb[0] == 0x5e && ans.data_len > plen)
			abort();
		if (pr_registrations(st) > PR_REGS_MAX)
			abort();
	}
	pr_state_free(st);
	ua_queue_free(ua);
	return 0;
}
