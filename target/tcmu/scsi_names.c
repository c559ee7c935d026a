/* scsi_names.c — decoding tables for --trace: opcode names (SPC-4, SBC-3,
 * with the service actions of the multiplexed opcodes), status names,
 * sense keys and the ASC/ASCQ a block target and its initiators meet. */
#include <stdbool.h>

#include "target/tcmu/scsi_names.h"

static const char *const opcode_names[256] = {
	[0x00] = "TEST UNIT READY",
	[0x01] = "REZERO UNIT",
	[0x03] = "REQUEST SENSE",
	[0x04] = "FORMAT UNIT",
	[0x07] = "REASSIGN BLOCKS",
	[0x08] = "READ(6)",
	[0x0a] = "WRITE(6)",
	[0x0b] = "SEEK(6)",
	[0x12] = "INQUIRY",
	[0x15] = "MODE SELECT(6)",
	[0x16] = "RESERVE(6)",
	[0x17] = "RELEASE(6)",
	[0x1a] = "MODE SENSE(6)",
	[0x1b] = "START STOP UNIT",
	[0x1c] = "RECEIVE DIAGNOSTIC RESULTS",
	[0x1d] = "SEND DIAGNOSTIC",
	[0x1e] = "PREVENT ALLOW MEDIUM REMOVAL",
	[0x25] = "READ CAPACITY(10)",
	[0x28] = "READ(10)",
	[0x2a] = "WRITE(10)",
	[0x2b] = "SEEK(10)",
	[0x2e] = "WRITE AND VERIFY(10)",
	[0x2f] = "VERIFY(10)",
	[0x34] = "PRE-FETCH(10)",
	[0x35] = "SYNCHRONIZE CACHE(10)",
	[0x37] = "READ DEFECT DATA(10)",
	[0x3b] = "WRITE BUFFER",
	[0x3c] = "READ BUFFER(10)",
	[0x3e] = "READ LONG(10)",
	[0x3f] = "WRITE LONG(10)",
	[0x41] = "WRITE SAME(10)",
	[0x42] = "UNMAP",
	[0x48] = "SANITIZE",
	[0x4c] = "LOG SELECT",
	[0x4d] = "LOG SENSE",
	[0x55] = "MODE SELECT(10)",
	[0x56] = "RESERVE(10)",
	[0x57] = "RELEASE(10)",
	[0x5a] = "MODE SENSE(10)",
	[0x5e] = "PERSISTENT RESERVE IN",
	[0x5f] = "PERSISTENT RESERVE OUT",
	[0x7f] = "VARIABLE LENGTH CDB",
	[0x83] = "THIRD-PARTY COPY OUT",
	[0x84] = "THIRD-PARTY COPY IN",
	[0x86] = "ACCESS CONTROL IN",
	[0x87] = "ACCESS CONTROL OUT",
	[0x88] = "READ(16)",
	[0x89] = "COMPARE AND WRITE",
	[0x8a] = "WRITE(16)",
	[0x8c] = "READ ATTRIBUTE",
	[0x8d] = "WRITE ATTRIBUTE",
	[0x8e] = "WRITE AND VERIFY(16)",
	[0x8f] = "VERIFY(16)",
	[0x90] = "PRE-FETCH(16)",
	[0x91] = "SYNCHRONIZE CACHE(16)",
	[0x93] = "WRITE SAME(16)",
	[0x9b] = "READ BUFFER(16)",
	[0x9e] = "SERVICE ACTION IN(16)",
	[0x9f] = "SERVICE ACTION OUT(16)",
	[0xa0] = "REPORT LUNS",
	[0xa2] = "SECURITY PROTOCOL IN",
	[0xa3] = "MAINTENANCE IN",
	[0xa4] = "MAINTENANCE OUT",
	[0xa8] = "READ(12)",
	[0xaa] = "WRITE(12)",
	[0xae] = "WRITE AND VERIFY(12)",
	[0xaf] = "VERIFY(12)",
	[0xb5] = "SECURITY PROTOCOL OUT",
	[0xb7] = "READ DEFECT DATA(12)",
};

struct sa_name {
	uint8_t opcode;
	uint16_t sa;
	const char *name;
};

/* service actions: 0x9E/0x9F/0xA3/0xA4/0x83/0x84/0x5E/0x5F use byte 1 bits
 * 4..0; 0x7F uses bytes 8..9 */
static const struct sa_name sa_names[] = {
	{ 0x9e, 0x10, "READ CAPACITY(16)" },
	{ 0x9e, 0x11, "READ LONG(16)" },
	{ 0x9e, 0x12, "GET LBA STATUS" },
	{ 0x9e, 0x13, "REPORT REFERRALS" },
	{ 0x9f, 0x11, "WRITE LONG(16)" },
	{ 0xa3, 0x05, "REPORT IDENTIFYING INFORMATION" },
	{ 0xa3, 0x0a, "REPORT TARGET PORT GROUPS" },
	{ 0xa3, 0x0b, "REPORT ALIASES" },
	{ 0xa3, 0x0c, "REPORT SUPPORTED OPERATION CODES" },
	{ 0xa3, 0x0d, "REPORT SUPPORTED TASK MANAGEMENT FUNCTIONS" },
	{ 0xa3, 0x0e, "REPORT PRIORITY" },
	{ 0xa3, 0x0f, "REPORT TIMESTAMP" },
	{ 0xa4, 0x06, "SET IDENTIFYING INFORMATION" },
	{ 0xa4, 0x0a, "SET TARGET PORT GROUPS" },
	{ 0xa4, 0x0b, "CHANGE ALIASES" },
	{ 0xa4, 0x0e, "SET PRIORITY" },
	{ 0xa4, 0x0f, "SET TIMESTAMP" },
	{ 0x83, 0x00, "EXTENDED COPY(LID1)" },
	{ 0x83, 0x01, "EXTENDED COPY(LID4)" },
	{ 0x83, 0x10, "POPULATE TOKEN" },
	{ 0x83, 0x11, "WRITE USING TOKEN" },
	{ 0x83, 0x1c, "COPY OPERATION ABORT" },
	{ 0x84, 0x00, "RECEIVE COPY STATUS(LID1)" },
	{ 0x84, 0x01, "RECEIVE COPY DATA(LID1)" },
	{ 0x84, 0x03, "RECEIVE COPY OPERATING PARAMETERS" },
	{ 0x84, 0x04, "RECEIVE COPY FAILURE DETAILS(LID1)" },
	{ 0x84, 0x05, "RECEIVE COPY STATUS(LID4)" },
	{ 0x84, 0x06, "RECEIVE COPY DATA(LID4)" },
	{ 0x84, 0x07, "RECEIVE ROD TOKEN INFORMATION" },
	{ 0x84, 0x08, "REPORT ALL ROD TOKENS" },
	{ 0x5e, 0x00, "PERSISTENT RESERVE IN: READ KEYS" },
	{ 0x5e, 0x01, "PERSISTENT RESERVE IN: READ RESERVATION" },
	{ 0x5e, 0x02, "PERSISTENT RESERVE IN: REPORT CAPABILITIES" },
	{ 0x5e, 0x03, "PERSISTENT RESERVE IN: READ FULL STATUS" },
	{ 0x5f, 0x00, "PERSISTENT RESERVE OUT: REGISTER" },
	{ 0x5f, 0x01, "PERSISTENT RESERVE OUT: RESERVE" },
	{ 0x5f, 0x02, "PERSISTENT RESERVE OUT: RELEASE" },
	{ 0x5f, 0x03, "PERSISTENT RESERVE OUT: CLEAR" },
	{ 0x5f, 0x04, "PERSISTENT RESERVE OUT: PREEMPT" },
	{ 0x5f, 0x05, "PERSISTENT RESERVE OUT: PREEMPT AND ABORT" },
	{ 0x5f, 0x06, "PERSISTENT RESERVE OUT: REGISTER AND IGNORE EXISTING KEY" },
	{ 0x5f, 0x07, "PERSISTENT RESERVE OUT: REGISTER AND MOVE" },
	{ 0x7f, 0x0009, "READ(32)" },
	{ 0x7f, 0x000a, "VERIFY(32)" },
	{ 0x7f, 0x000b, "WRITE(32)" },
	{ 0x7f, 0x000c, "WRITE AND VERIFY(32)" },
	{ 0x7f, 0x000d, "WRITE SAME(32)" },
};

static bool has_service_action(uint8_t op)
{
	switch (op) {
	case 0x5e: case 0x5f: case 0x7f: case 0x83: case 0x84:
	case 0x9e: case 0x9f: case 0xa3: case 0xa4:
		return true;
	default:
		return false;
	}
}

const char *scsi_opcode_name(const uint8_t *cdb, size_t cdb_len)
{
	if (!cdb || cdb_len < 1)
		return NULL;
	uint8_t op = cdb[0];

	if (has_service_action(op)) {
		uint16_t sa;

		if (op == 0x7f) {
			if (cdb_len < 10)
				return opcode_names[op];
			sa = (uint16_t)(cdb[8] << 8 | cdb[9]);
		} else {
			if (cdb_len < 2)
				return opcode_names[op];
			sa = cdb[1] & 0x1f;
		}
		for (size_t i = 0; i < sizeof(sa_names) / sizeof(sa_names[0]); i++)
			if (sa_names[i].opcode == op && sa_names[i].sa == sa)
				return sa_names[i].name;
	}
	return opcode_names[op];
}

enum scsi_cdb_shape scsi_opcode_shape(uint8_t op)
{
	switch (op) {
	case 0x08: case 0x0a:                       /* READ/WRITE(6) */
	case 0x28: case 0x2a: case 0x2e: case 0x2f: /* READ/WRITE/W&V/VERIFY(10) */
	case 0x34: case 0x35: case 0x41:            /* PRE-FETCH, SYNC CACHE, WRITE SAME(10) */
	case 0x88: case 0x8a: case 0x8e: case 0x8f: /* (16) */
	case 0x90: case 0x91: case 0x93:
	case 0xa8: case 0xaa: case 0xae: case 0xaf: /* (12) */
		return SHAPE_LBA_BLOCKS;
	default:
		return SHAPE_OTHER;
	}
}

const char *scsi_status_name(uint8_t status)
{
	switch (status) {
	case 0x00: return "GOOD";
	case 0x02: return "CHECK CONDITION";
	case 0x04: return "CONDITION MET";
	case 0x08: return "BUSY";
	case 0x18: return "RESERVATION CONFLICT";
	case 0x28: return "TASK SET FULL";
	case 0x30: return "ACA ACTIVE";
	case 0x40: return "TASK ABORTED";
	default: return NULL;
	}
}

const char *scsi_sense_key_name(uint8_t key)
{
	static const char *const keys[16] = {
		"NO SENSE", "RECOVERED ERROR", "NOT READY", "MEDIUM ERROR",
		"HARDWARE ERROR", "ILLEGAL REQUEST", "UNIT ATTENTION", "DATA PROTECT",
		"BLANK CHECK", "VENDOR SPECIFIC", "COPY ABORTED", "ABORTED COMMAND",
		NULL, "VOLUME OVERFLOW", "MISCOMPARE", "COMPLETED",
	};

	return key < 16 ? keys[key] : NULL;
}

struct asc_name {
	uint8_t asc, ascq;
	const char *name;
};

static const struct asc_name asc_names[] = {
	{ 0x00, 0x00, "NO ADDITIONAL SENSE INFORMATION" },
	{ 0x00, 0x16, "OPERATION IN PROGRESS" },
	{ 0x04, 0x00, "LOGICAL UNIT NOT READY, CAUSE NOT REPORTABLE" },
	{ 0x04, 0x01, "LOGICAL UNIT IS IN PROCESS OF BECOMING READY" },
	{ 0x04, 0x02, "LOGICAL UNIT NOT READY, INITIALIZING COMMAND REQUIRED" },
	{ 0x04, 0x03, "LOGICAL UNIT NOT READY, MANUAL INTERVENTION REQUIRED" },
	{ 0x04, 0x04, "LOGICAL UNIT NOT READY, FORMAT IN PROGRESS" },
	{ 0x04, 0x0a, "LOGICAL UNIT NOT ACCESSIBLE, ASYMMETRIC ACCESS STATE TRANSITION" },
	{ 0x04, 0x0b, "LOGICAL UNIT NOT ACCESSIBLE, TARGET PORT IN STANDBY STATE" },
	{ 0x04, 0x0c, "LOGICAL UNIT NOT ACCESSIBLE, TARGET PORT IN UNAVAILABLE STATE" },
	{ 0x08, 0x00, "LOGICAL UNIT COMMUNICATION FAILURE" },
	{ 0x0c, 0x00, "WRITE ERROR" },
	{ 0x0d, 0x00, "ERROR DETECTED BY THIRD PARTY TEMPORARY INITIATOR" },
	{ 0x0d, 0x01, "THIRD PARTY DEVICE FAILURE" },
	{ 0x0d, 0x02, "COPY TARGET DEVICE NOT REACHABLE" },
	{ 0x0d, 0x03, "INCORRECT COPY TARGET DEVICE TYPE" },
	{ 0x0d, 0x04, "COPY TARGET DEVICE DATA UNDERRUN" },
	{ 0x0d, 0x05, "COPY TARGET DEVICE DATA OVERRUN" },
	{ 0x10, 0x01, "LOGICAL BLOCK GUARD CHECK FAILED" },
	{ 0x11, 0x00, "UNRECOVERED READ ERROR" },
	{ 0x1a, 0x00, "PARAMETER LIST LENGTH ERROR" },
	{ 0x1d, 0x00, "MISCOMPARE DURING VERIFY OPERATION" },
	{ 0x20, 0x00, "INVALID COMMAND OPERATION CODE" },
	{ 0x21, 0x00, "LOGICAL BLOCK ADDRESS OUT OF RANGE" },
	{ 0x24, 0x00, "INVALID FIELD IN CDB" },
	{ 0x25, 0x00, "LOGICAL UNIT NOT SUPPORTED" },
	{ 0x26, 0x00, "INVALID FIELD IN PARAMETER LIST" },
	{ 0x26, 0x01, "PARAMETER NOT SUPPORTED" },
	{ 0x26, 0x02, "PARAMETER VALUE INVALID" },
	{ 0x26, 0x04, "INVALID RELEASE OF PERSISTENT RESERVATION" },
	{ 0x26, 0x06, "TOO MANY TARGET DESCRIPTORS" },
	{ 0x26, 0x07, "UNSUPPORTED TARGET DESCRIPTOR TYPE CODE" },
	{ 0x26, 0x08, "TOO MANY SEGMENT DESCRIPTORS" },
	{ 0x26, 0x09, "UNSUPPORTED SEGMENT DESCRIPTOR TYPE CODE" },
	{ 0x26, 0x0a, "UNEXPECTED INEXACT SEGMENT" },
	{ 0x26, 0x0b, "INLINE DATA LENGTH EXCEEDED" },
	{ 0x26, 0x0c, "INVALID OPERATION FOR COPY SOURCE OR DESTINATION" },
	{ 0x26, 0x0d, "COPY SEGMENT GRANULARITY VIOLATION" },
	{ 0x27, 0x00, "WRITE PROTECTED" },
	{ 0x28, 0x00, "NOT READY TO READY CHANGE, MEDIUM MAY HAVE CHANGED" },
	{ 0x29, 0x00, "POWER ON, RESET, OR BUS DEVICE RESET OCCURRED" },
	{ 0x29, 0x01, "POWER ON OCCURRED" },
	{ 0x29, 0x02, "SCSI BUS RESET OCCURRED" },
	{ 0x29, 0x03, "BUS DEVICE RESET FUNCTION OCCURRED" },
	{ 0x29, 0x07, "I_T NEXUS LOSS OCCURRED" },
	{ 0x2a, 0x01, "MODE PARAMETERS CHANGED" },
	{ 0x2a, 0x03, "RESERVATIONS PREEMPTED" },
	{ 0x2a, 0x04, "RESERVATIONS RELEASED" },
	{ 0x2a, 0x05, "REGISTRATIONS PREEMPTED" },
	{ 0x2a, 0x06, "ASYMMETRIC ACCESS STATE CHANGED" },
	{ 0x2a, 0x07, "IMPLICIT ASYMMETRIC ACCESS STATE TRANSITION FAILED" },
	{ 0x2a, 0x09, "CAPACITY DATA HAS CHANGED" },
	{ 0x2c, 0x00, "COMMAND SEQUENCE ERROR" },
	{ 0x2f, 0x00, "COMMANDS CLEARED BY ANOTHER INITIATOR" },
	{ 0x30, 0x05, "CANNOT WRITE MEDIUM - INCOMPATIBLE FORMAT" },
	{ 0x31, 0x00, "MEDIUM FORMAT CORRUPTED" },
	{ 0x35, 0x00, "ENCLOSURE SERVICES FAILURE" },
	{ 0x38, 0x07, "THIN PROVISIONING SOFT THRESHOLD REACHED" },
	{ 0x39, 0x00, "SAVING PARAMETERS NOT SUPPORTED" },
	{ 0x3a, 0x00, "MEDIUM NOT PRESENT" },
	{ 0x3f, 0x0e, "REPORTED LUNS DATA HAS CHANGED" },
	{ 0x44, 0x00, "INTERNAL TARGET FAILURE" },
	{ 0x47, 0x00, "SCSI PARITY ERROR" },
	{ 0x47, 0x05, "PROTOCOL SERVICE CRC ERROR" },
	{ 0x49, 0x00, "INVALID MESSAGE ERROR" },
	{ 0x4b, 0x00, "DATA PHASE ERROR" },
	{ 0x4b, 0x04, "NAK RECEIVED" },
	{ 0x4e, 0x00, "OVERLAPPED COMMANDS ATTEMPTED" },
	{ 0x55, 0x03, "INSUFFICIENT RESOURCES" },
	{ 0x55, 0x06, "INSUFFICIENT REGISTRATION RESOURCES" },
	{ 0x55, 0x0c, "INSUFFICIENT RESOURCES TO CREATE ROD" },
	{ 0x55, 0x0d, "INSUFFICIENT ZONE RESOURCES" },
	{ 0x67, 0x0a, "SET TARGET PORT GROUPS COMMAND FAILED" },
};

const char *scsi_asc_name(uint8_t asc, uint8_t ascq)
{
	for (size_t i = 0; i < sizeof(asc_names) / sizeof(asc_names[0]); i++)
		if (asc_names[i].asc == asc && asc_names[i].ascq == ascq)
			return asc_names[i].name;
	return NULL;
}
