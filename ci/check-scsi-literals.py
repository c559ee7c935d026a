#!/usr/bin/env python3
"""check-scsi-literals.py - no SCSI number outside the vocabulary.

SCSI opcodes, sense keys, ASC/ASCQ pairs and statuses have names in include/lunlab/scsi_vocab.h;
the code says SCSI_OP_WRITE_10, not 0x2a, so a grep for a command finds every user of it and a
reader never decodes a number.  This script finds the bare numbers that crept back:

  opcode-compare  cdb[0] / op / opcode compared with a hex literal
  opcode-case     a hex case label in a switch on cdb[0] / op / opcode
  opcode-build    a CDB's byte 0 set to a hex literal (cdb[0] = 0x28, cdb[] = { 0x28, ... })
  sense-triple    a sense builder called with hex ASC/ASCQ (or key/ASC) bytes
  sense-define    a private #define / enum of a sense key, ASC or ASCQ number
  sa-build        a multiplexed opcode's CDB with a numeric service action ({ SCSI_OP_MAINTENANCE_IN, 0x0c })
  sa-compare      a service action compared with a number (sa == 0x0a)
  sense-compare   a sense key / ASC / ASCQ compared with a number (key == 0x05)
  sense-case      a hex case label in a switch on a sense key
  sense-pair      libtcmu's tcmu_sense_set_data with a hex key or ASC/ASCQ
  status-set      a status stored or passed to the iSCSI answer as a number
  status-define   a private name for a status number (ST_GOOD 0x00)
  opcode-define   a private name for a vocabulary opcode (OP_INQUIRY = 0x12)
  status-compare  a status compared with CHECK CONDITION / BUSY / RESERVATION CONFLICT /
                  TASK SET FULL as a number

Comments and string literals are ignored (a comment holding "scsi-literals: not SCSI" and a reason
exempts its line: a number that only looks like SCSI), and an opcode number is flagged only when the
vocabulary has it (a test's vendor opcode 0xc0 stays a number).  Files that may hold the numbers are listed in ALLOWED
below, each with its reason.  Usage:
  check-scsi-literals.py [ROOT]     check ROOT (default: the source tree); exit 1 on a finding
  check-scsi-literals.py --count    print the number of findings, exit 0
  check-scsi-literals.py --selftest plant each kind of literal in a scratch tree, prove it is
                                    caught and its named form is not
"""
import os
import re
import sys
import tempfile

DIRS = ("handlers", "target", "client", "bench", "include", "scsi", "tests")

# path (relative to the root) -> reason.  A directory entry ends in "/".
ALLOWED = {
    "include/lunlab/scsi_vocab.h": "the vocabulary itself: where the numbers are defined",
    "handlers/scsi/opcodes.c": "the opcode table: each row's CDB usage data starts with the "
                               "opcode byte as RSOC reports it on the wire",
    "tests/fuzz/": "fuzz seeds and harnesses feed raw CDB bytes on purpose",
    "tests/unit/tcmu/test_trace.c": "checks the trace's names against the wire numbers "
                                    "(the point is the number-to-name mapping)",
    "tests/unit/tcmu/test_check_symbols.c": "not SCSI: symbol lists",
}

HEX = r"0x[0-9a-fA-F]{1,2}\b"
VOCAB = "include/lunlab/scsi_vocab.h"


def vocab_opcodes(root):
    """The opcode values and names the vocabulary defines: only those are flagged as opcodes,
    so a test's deliberately unknown or vendor opcode (0xc0) stays a number."""
    try:
        with open(os.path.join(root, VOCAB), encoding="utf-8") as f:
            text = f.read().split("#define SCSI_SERVICE_ACTION_LIST")[0]
    except OSError:
        text = ""
    pairs = re.findall(r"X\((\w+), (0x[0-9a-fA-F]+),", text)
    return {int(v, 16) for _, v in pairs}, {n for n, _ in pairs}
RULES = [
    ("opcode-compare", re.compile(
        r"(?:\bcdb\s*\[\s*0\s*\]|\bop(?:code)?\b|->op(?:code)?\b|\.op(?:code)?\b)\s*[!=]=\s*" + HEX)),
    ("opcode-build", re.compile(r"\bcdb\w*\s*\[\s*0\s*\]\s*=\s*" + HEX)),
    ("opcode-build", re.compile(r"\b\w*cdb\w*\s*\[\s*\w*\s*\]\s*=\s*\{\s*" + HEX)),
    # an array of a CDB's size whose first byte, on the same line, is a vocabulary opcode
    # (0x00 aside: a zeroed buffer): uint8_t r16[16] = { 0x88 }
    ("opcode-build", re.compile(r"\b\w+[ \t]*\[[ \t]*(?:6|10|12|16|32)[ \t]*\][ \t]*=[ \t]*\{[ \t]*"
                                r"0x(?!00\b)[0-9a-fA-F]{2}\b")),
    ("sense-triple", re.compile(
        r"\b\w*sense\w*\s*\([^;]*?(?:\b(?:SCSI_)?SK_\w+|" + HEX + r")\s*,\s*" + HEX + r"\s*,\s*" + HEX)),
    # any call or table row carrying KEY, ASC, ASCQ as numbers (a key is 0x1..0xf)
    ("sense-triple", re.compile(
        r"(?:\b\w+\s*\(|\{\s*\"[^\"]*\"\s*,)[^;]*?(?:\b(?:SCSI_)?SK_\w+|\b0x0?[1-9a-fA-F]\b)\s*,\s*"
        + HEX + r"\s*,\s*" + HEX)),
    ("sense-define", re.compile(r"#\s*define\s+(?:SK|ASCQ?)_\w+\s+0x")),
    ("sense-define", re.compile(r"\bSK_\w+\s*=\s*0x")),
    ("sense-pair", re.compile(r"\btcmu_sense_set_data\s*\([^,]+,\s*(?:0x|\d)")),
    ("sense-pair", re.compile(r"\btcmu_sense_set_data\s*\([^,]+,[^,]+,\s*0x")),
    ("status-compare", re.compile(r"\bstatus\s*[!=]=\s*0x(?:0?2|0?8|18|28)\b")),
    # a service action compared with a number: sa == 0x0a, (cdb[1] & 0x1f) != 0x12
    ("sa-compare", re.compile(r"(?:\bsa\b|\(\s*cdb\s*\[\s*1\s*\]\s*&\s*(?:0x1f|SCSI_SA_MASK)\s*\))\s*[!=]=\s*"
                              + HEX)),
    # a multiplexed opcode's CDB built with its service action as a number
    ("sa-build", re.compile(r"\{\s*SCSI_OP_(?:MAINTENANCE_(?:IN|OUT)|SERVICE_ACTION_(?:IN|OUT)_1[26]|THIRD_PARTY_COPY_"
                            r"(?:IN|OUT)|PERSISTENT_RESERVE_(?:IN|OUT))\s*,\s*0x")),
    # a sense key, ASC or ASCQ compared with a number: key == 0x05, st.asc == 0x24
    ("sense-compare", re.compile(r"\b(?:\w+_)?(?:key|asc|ascq)\s*[!=]=\s*0x[0-9a-fA-F]{1,2}\b")),
    # a status stored or passed as a number: ans->status = 0x02, complete_locally(c, ic, 0x02, ...)
    ("status-set", re.compile(r"\b(?:\w+_)?status\s*=\s*0x(?:0?2|0?8|18|28|40)\b")),
    ("status-set", re.compile(r"\b(?:complete_locally|scsi_cmd_answer)\s*\([^,;]+,[^,;]+,\s*0x")),
    # libtcmu-style table rows: { KEY, ASC<<8|ASCQ, ... }
    ("sense-pair", re.compile(r"\{\s*0x0?[1-9a-fA-F]\s*,\s*0x[0-9a-fA-F]{4}\b")),
    # a private name for a status: ST_GOOD 0x00, STATUS_BUSY = 0x08
    ("status-define", re.compile(r"(?:#\s*define\s+\b(?:ST|STATUS)_\w+\s+|\b(?:ST|STATUS)_\w+\s*=\s*)"
                                 r"0x(?:0?0|0?2|0?8|18|28|40)\b")),
]
OPCODE_RULES = {"opcode-compare", "opcode-build"}
# a private name for an opcode the vocabulary has (OP_INQUIRY = 0x12); the name is checked
# against the vocabulary, so an iSCSI PDU opcode (OP_SCSI_CMD) is not taken for one
OP_DEFINE = re.compile(r"(?:#\s*define\s+\bOP_(\w+)\s+|\bOP_(\w+)\s*=\s*)0x[0-9a-fA-F]{1,2}\b")
SWITCH = re.compile(r"\bswitch\s*\(\s*([^)]*(?:\bcdb\s*\[\s*0\s*\]|\bop(?:code)?\b)[^)]*)\)")
KEY_SWITCH = re.compile(r"\bswitch\s*\(\s*[^)]*\b(?:\w+_)?key\s*\)")
CASE_HEX = re.compile(r"\bcase\s+" + HEX + r"\s*:")


# a line that carries a number which only looks like a SCSI one (a mode page laid out like a CDB)
# says so in a comment holding this marker and the reason
MARKER = "scsi-literals: not SCSI"


def strip_comments_and_strings(text):
    """Blank out comments, string and char literals, keeping newlines so line numbers hold."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            out.append(c + re.sub(r"[^\n]", " ", text[i + 1:j - 1]) + c if j - i >= 2 else text[i:j])
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def switch_bodies(code, rx=SWITCH):
    """(start, end) offsets of the bodies of switches on cdb[0] / op / opcode (or rx)."""
    for m in rx.finditer(code):
        i = code.find("{", m.end())
        if i < 0:
            continue
        depth, j = 0, i
        while j < len(code):
            if code[j] == "{":
                depth += 1
            elif code[j] == "}":
                depth -= 1
                if depth == 0:
                    break
            j += 1
        yield i, j


def literal_is_opcode(text, opcodes):
    """Does the hex literal the opcode rule matched (the last one in the match) name a
    vocabulary opcode?"""
    return int(re.findall(r"0x([0-9a-fA-F]{1,2})\b", text)[-1], 16) in opcodes


def check_file(path, rel, opcodes, opnames):
    with open(path, encoding="utf-8", errors="replace") as f:
        text = f.read()
    raw = text.split("\n")
    code = strip_comments_and_strings(text)
    found = []
    lines = code.split("\n")
    # a call may wrap: look at each statement-ish chunk line by line, joining a line that
    # ends inside parentheses with the next one
    for lineno, line in enumerate(lines, 1):
        if MARKER in raw[lineno - 1]:
            continue
        joined = line
        k = lineno
        while joined.count("(") > joined.count(")") and k < len(lines) and k - lineno < 3:
            joined += " " + lines[k].strip()
            k += 1
        for name, rx in RULES:
            m = rx.search(joined)
            if m and (name not in OPCODE_RULES or literal_is_opcode(m.group(0), opcodes)):
                found.append((rel, lineno, name, line.strip()))
                break
        m = OP_DEFINE.search(line)
        if m and (m.group(1) or m.group(2)) in opnames:
            found.append((rel, lineno, "opcode-define", line.strip()))
    for start, end in switch_bodies(code):
        for m in CASE_HEX.finditer(code, start, end):
            if not literal_is_opcode(m.group(0), opcodes) or MARKER in raw[code.count("\n", 0, m.start())]:
                continue
            lineno = code.count("\n", 0, m.start()) + 1
            found.append((rel, lineno, "opcode-case", lines[lineno - 1].strip()))
    for start, end in switch_bodies(code, KEY_SWITCH):
        for m in CASE_HEX.finditer(code, start, end):
            lineno = code.count("\n", 0, m.start()) + 1
            found.append((rel, lineno, "sense-case", lines[lineno - 1].strip()))
    return found


def allowed(rel):
    return any(rel == a or (a.endswith("/") and rel.startswith(a)) for a in ALLOWED)


def scan(root, vocab_root=None):
    opcodes, opnames = vocab_opcodes(vocab_root or root)
    findings = []
    for d in DIRS:
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, d)):
            dirnames.sort()
            for fn in sorted(filenames):
                if not fn.endswith((".c", ".h")):
                    continue
                path = os.path.join(dirpath, fn)
                rel = os.path.relpath(path, root)
                if not allowed(rel):
                    findings += check_file(path, rel, opcodes, opnames)
    return sorted(set(findings))


PLANTED = [  # (the rule that must catch it, a body planted in a function)
    ("opcode-compare", "if (cdb[0] == 0x2a)\n\treturn 1;\n"),
    ("opcode-case", "switch (cdb[0]) {\ncase 0x28:\n\treturn 1;\n}\n"),
    ("opcode-build", "cdb[0] = 0x28;\n"),
    ("opcode-build", "uint8_t r16[16] = { 0x88 };\n"),
    ("sense-triple", "return sense_set(cmd, SK_ILLEGAL_REQUEST, 0x24, 0x00);\n"),
    ("sense-pair", "tcmu_sense_set_data(buf, 0x5, 0x2000);\n"),
    ("sense-define", "#define ASC_INVALID_PARAM 0x26\n"),
    ("status-compare", "if (status == 0x02)\n\treturn 1;\n"),
    ("status-define", "#define ST_CHECK 0x02\n"),
    ("status-set", "ans->status = 0x02;\n"),
    ("sense-compare", "if (st->key == 0x05 && st->asc == 0x20)\n\treturn 1;\n"),
    ("sa-build", "uint8_t c[12] = { SCSI_OP_MAINTENANCE_IN, 0x0c };\n"),
    ("sa-compare", "if ((cdb[1] & 0x1f) == 0x0a)\n\treturn 1;\n"),
    ("sense-case", "switch (key) {\ncase 0x06:\n\treturn 1;\n}\n"),
    ("opcode-define", "enum { OP_INQUIRY = 0x12 };\n"),
]
NAMED = """/* a comment may say 0x2a and 05/24/00: cdb[0] == 0x2a */
int f(const unsigned char *cdb, struct scsi_cmd *cmd, int status)
{
	const char *s = "cdb[0] == 0x2a";
	switch (cdb[0]) {
	case SCSI_OP_READ_10:
		break;
	}
	switch (sense_key) {
	case SCSI_SK_NOT_READY:
		break;
	}
	if (scsi_asc_pair(asc, ascq) == SCSI_ASC_LU_BECOMING_READY)
		return 0;
	static const uint8_t mode[12] = { 0x0a, 10 }; /* control page (scsi-literals: not SCSI) */
	uint8_t zero[16] = { 0x00 };
	switch (page) {
	case 0x83:
		break;
	}
	if (cdb[0] == SCSI_OP_WRITE_10 || status == SCSI_STATUS_CHECK_CONDITION)
		return sense_set(cmd, SCSI_SK_ILLEGAL_REQUEST, SCSI_ASC_INVALID_FIELD_IN_CDB);
	if (cdb[0] == 0xc0) /* a vendor opcode: not in the vocabulary, stays a number */
		return 0;
	return sense_invalid_cdb_field(cmd, 2, 0x07 & 1);
}
#define OP_SCSI_CMD 0x01

"""


HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")


def selftest():
    ok = True
    with tempfile.TemporaryDirectory() as root:
        os.makedirs(os.path.join(root, "target"))
        clean = os.path.join(root, "target", "named.c")
        with open(clean, "w") as f:
            f.write(NAMED)
        got = scan(root, HERE)
        if got:
            print("selftest: the named form was flagged: %s" % got)
            ok = False
        for rule, body in PLANTED:
            planted = os.path.join(root, "target", "planted.c")
            with open(planted, "w") as f:
                f.write("void g(void)\n{\n" + body + "}\n")
            got = scan(root, HERE)
            if not any(r == rule for _, _, r, _ in got):
                print("selftest: planted %s not caught (got %s)" % (rule, got))
                ok = False
            # the same file in an allowed place is not flagged
            os.makedirs(os.path.join(root, "tests", "fuzz"), exist_ok=True)
            os.replace(planted, os.path.join(root, "tests", "fuzz", "planted.c"))
            if scan(root, HERE):
                print("selftest: an allow-listed file was flagged (%s)" % rule)
                ok = False
            os.remove(os.path.join(root, "tests", "fuzz", "planted.c"))
    print("selftest: %s" % ("ok" if ok else "FAILED"))
    return 0 if ok else 1


def main(argv):
    if "--selftest" in argv:
        return selftest()
    count = "--count" in argv
    args = [a for a in argv if not a.startswith("--")]
    root = args[0] if args else HERE
    findings = scan(root)
    if count:
        print(len(findings))
        return 0
    for rel, lineno, rule, text in findings:
        print("%s:%d: %s: %s" % (rel, lineno, rule, text))
    if findings:
        print("check-scsi-literals: %d bare SCSI number(s); use the names in "
              "include/lunlab/scsi_vocab.h (or allow-list the file in %s with a reason)"
              % (len(findings), os.path.basename(__file__)))
        return 1
    print("check-scsi-literals: no bare SCSI numbers")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
