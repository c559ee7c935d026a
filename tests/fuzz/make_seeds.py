#!/usr/bin/env python3
"""make_seeds.py — writes the seed corpora of the fuzz targets
(tests/fuzz/corpus/<target>/).  Every seed is a valid input built by hand from
the standards (RFC 7143 PDUs, SBC/SPC CDBs and parameter lists, the profile
format of models/profiles), so the fuzzers start from deep inside each parser.
Run from anywhere: python3 tests/fuzz/make_seeds.py.  The output is committed;
rerun only when a format changes."""
import base64
import hashlib
import os
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
OUT = os.path.join(HERE, "corpus")
IQN = "iqn.2026-11.org.lunlab:fuzz"   # fuzz_iscsi_rx.c's target name
INI = "iqn.2026-11.org.lunlab:fuzzer"


def write(target, name, data):
    d = os.path.join(OUT, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(bytes(data))


# ---------------------------------------------------------------- iSCSI PDUs
def pad4(b):
    return b + b"\0" * ((4 - len(b) % 4) % 4)


def bhs(op, flags, data=b"", lun=0, itt=1, f20=0, f24=0, f28=0, f32=0, f36=0, f40=0, ahs=b"", imm=False):
    h = bytearray(48)
    h[0] = op | (0x40 if imm else 0)
    h[1] = flags
    h[4] = len(ahs) // 4
    h[5:8] = struct.pack(">I", len(data))[1:]
    h[8:16] = struct.pack(">Q", lun)
    struct.pack_into(">IIIIIII", h, 16, itt, f20, f24, f28, f32, f36, f40)
    return bytes(h) + ahs + pad4(data)


def kv(*pairs):
    return b"".join(f"{k}={v}".encode() + b"\0" for k, v in pairs)


def login(csg, nsg, text, transit=True, cont=False, itt=1, cmdsn=1, tsih=0):
    flags = (0x80 if transit else 0) | (0x40 if cont else 0) | (csg << 2) | (nsg if transit else 0)
    p = bytearray(bhs(0x03, flags, text, itt=itt, f24=cmdsn, imm=True))
    p[8:14] = b"\x80\x12\x34\x56\x00\x00"      # ISID
    p[14:16] = struct.pack(">H", tsih)
    return bytes(p)


def scsi_cmd(cdb, cmdsn, itt, edtl=0, read=False, write=False, data=b"", lun=0, ahs=b""):
    flags = 0x80 | (0x40 if read else 0) | (0x20 if write else 0) | 0x01   # F, R/W, simple
    c = bytes(cdb[:16]).ljust(16, b"\0")
    p = bytearray(bhs(0x01, flags, data, lun=lun << 48 if lun else 0, itt=itt, f20=edtl, f24=cmdsn, ahs=ahs))
    p[32:48] = c
    return bytes(p)


def iscsi_seeds():
    t = "fuzz-iscsi-rx"
    sec = kv(("InitiatorName", INI), ("SessionType", "Normal"), ("TargetName", IQN), ("AuthMethod", "None"))
    ops = kv(("HeaderDigest", "CRC32C,None"), ("DataDigest", "CRC32C,None"), ("MaxRecvDataSegmentLength", 262144),
             ("MaxBurstLength", 16776192), ("FirstBurstLength", 262144), ("ImmediateData", "Yes"),
             ("InitialR2T", "No"), ("MaxOutstandingR2T", 1), ("DefaultTime2Wait", 2),
             ("DefaultTime2Retain", 0), ("ErrorRecoveryLevel", 0), ("MaxConnections", 1),
             ("DataPDUInOrder", "Yes"), ("DataSequenceInOrder", "Yes"), ("X-com.example.Unknown", "1"))
    # mode 0: the whole login from the security stage, as libiscsi does it
    write(t, "login-security-operational", b"\0" + login(0, 1, sec) + login(1, 3, ops, cmdsn=1))
    # login text split over two PDUs with the C bit
    write(t, "login-continue", b"\0" + login(1, 3, sec[:20], transit=False, cont=True) + login(1, 3, sec[20:] + ops))
    write(t, "login-bad-target", b"\0" + login(1, 3, kv(("InitiatorName", INI), ("TargetName", "iqn.x:nope"))))
    # mode 1: canned login, then full feature phase PDUs
    ffp = b""
    ffp += bhs(0x00, 0x80, b"ping", itt=2, f20=0xffffffff, f24=1, imm=True)                    # NOP-Out
    ffp += scsi_cmd([0x12, 0, 0, 0, 96, 0], 1, 3, edtl=96, read=True)                         # INQUIRY
    ffp += scsi_cmd([0x00] * 6, 2, 4)                                                         # TEST UNIT READY
    ffp += scsi_cmd([0xa0, 0, 0, 0, 0, 0, 0, 0, 0x10, 0, 0, 0], 3, 5, edtl=4096, read=True)  # REPORT LUNS
    ffp += scsi_cmd([0x03, 0, 0, 0, 18, 0], 4, 6, edtl=18, read=True, lun=3)                  # REQUEST SENSE, no LU
    ffp += bhs(0x04, 0x80, kv(("SendTargets", "All")), itt=7, f20=0xffffffff, f24=5)          # Text
    ffp += bhs(0x02, 0x80 | 1, itt=8, f20=3, f24=6, f32=1, imm=True)                         # TMF ABORT TASK
    ffp += bhs(0x02, 0x80 | 5, itt=9, f20=0xffffffff, f24=6, imm=True)                       # TMF LUN RESET
    ffp += bhs(0x06, 0x80, itt=10, f24=6, imm=True)                                           # Logout
    write(t, "ffp-mixed", b"\x01" + ffp)
    # WRITE(10) of 2 blocks: 512 bytes immediate, the rest as unsolicited Data-Out
    w = scsi_cmd([0x2a, 0, 0, 0, 0, 0, 0, 0, 2, 0], 1, 0x11, edtl=1024, write=True, data=b"\xa5" * 512)
    w += bhs(0x05, 0x80, b"\x5a" * 512, itt=0x11, f20=0xffffffff, f36=0, f40=512)
    write(t, "ffp-write-dataout", b"\x01" + w)
    # a 32-byte CDB: 16 in the BHS, 16 more in an extended-CDB AHS (type 1)
    ahs = struct.pack(">HBB", 17, 1, 0) + bytes(range(16)) + b"\0" * 3   # alen counts the reserved byte
    ahs = ahs[:20]
    write(t, "ffp-extended-cdb", b"\x01" + scsi_cmd([0x7f, 0, 0, 0, 0, 0, 0, 0x18, 0x00, 0x09], 1, 0x21,
                                                  edtl=0, ahs=ahs))
    # mode 3: canned discovery login, SendTargets, logout
    write(t, "discovery-sendtargets", b"\x03" + bhs(0x04, 0x80, kv(("SendTargets", "All")), itt=2,
                                                  f20=0xffffffff, f24=1) + bhs(0x06, 0x80, itt=3, f24=2, imm=True))

    t = "fuzz-iscsi-text"
    write(t, "login-keys", b"\0" + sec + ops)
    write(t, "discovery-keys", b"\x01" + kv(("InitiatorName", INI), ("SessionType", "Discovery"),
                                         ("HeaderDigest", "None"), ("MaxRecvDataSegmentLength", "0x2000")))
    write(t, "bhs-login-as-text", b"\0" + login(1, 3, ops))
    write(t, "out-of-range", b"\0" + kv(("MaxBurstLength", 99999999999), ("MaxOutstandingR2T", 0),
                                       ("ErrorRecoveryLevel", 2), ("FirstBurstLength", 512)))


# ---------------------------------------------------------------- SCSI
def naa_of(serial):
    """handlers/scsi/naa.c, so EXTENDED COPY seeds name the fuzz LU."""
    M = (1 << 64) - 1

    def fnv(s, basis):
        h = basis
        for b in s:
            h = ((h ^ b) * 0x100000001b3) & M
        return h

    def mix(z):
        z = ((z ^ (z >> 30)) * 0xbf58476d1ce4e5b9) & M
        z = ((z ^ (z >> 27)) * 0x94d049bb133111eb) & M
        return z ^ (z >> 31)
    s = serial.encode()
    n = len(s)
    vsi = mix(fnv(s, 0xcbf29ce484222325)) & 0xfffffffff
    ext = mix(fnv(s, 0x84222325cbf29ce4 ^ n))
    cid = 0x0A4C55
    naa = bytearray(16)
    naa[0] = 0x60 | ((cid >> 20) & 0x0f)
    naa[1] = (cid >> 12) & 0xff
    naa[2] = (cid >> 4) & 0xff
    naa[3] = ((cid & 0x0f) << 4) | (vsi >> 32)
    naa[4:8] = struct.pack(">I", vsi & 0xffffffff)
    naa[8:16] = struct.pack(">Q", ext)
    return bytes(naa)


def unmap_list(ranges):
    descs = b"".join(struct.pack(">QI4x", lba, n) for lba, n in ranges)
    return struct.pack(">HH4x", 6 + len(descs), len(descs)) + descs


def odx_pt_list(ranges, timeout=0, rtv=False):
    descs = b"".join(struct.pack(">QI4x", lba, n) for lba, n in ranges)
    hdr = struct.pack(">HBxII2xH", 14 + len(descs), 2 if rtv else 0, timeout, 0x00800000 if rtv else 0,
                      len(descs))
    return hdr + descs


def odx_wut_list(ranges, token, offset=0, flags=0):
    descs = b"".join(struct.pack(">QI4x", lba, n) for lba, n in ranges)
    hdr = struct.pack(">HB5xQ", 534 + len(descs), flags, offset) + token + bytes(6) + struct.pack(">H", len(descs))
    return hdr + descs


def xcopy_list(segs, naa, list_id=1):
    tgt = bytearray(32)
    tgt[0] = 0xE4
    tgt[4] = 0x01
    tgt[5] = 0x03
    tgt[7] = 16
    tgt[8:24] = naa
    tgt[29:32] = struct.pack(">I", 512)[1:]
    sd = b""
    for si, di, n, s, d in segs:
        sd += struct.pack(">BBHHH2xHQQ", 0x02, 0, 0x18, si, di, n, s, d)
    hdr = struct.pack(">BBH4xII", list_id, 0, len(tgt), len(sd), 0)
    return hdr + bytes(tgt) + sd


def caching_page(wce):
    p = bytearray(20)
    p[0], p[1], p[2] = 0x08, 18, 0x04 if wce else 0
    return bytes(p)


def control_page(swp):
    p = bytearray(12)
    p[0], p[1], p[2], p[3], p[4], p[5] = 0x0a, 10, 0x02, 0x10, 0x08 if swp else 0, 0x40
    p[8:10] = b"\xff\xff"
    return bytes(p)


def calib_seeds():
    # lunlab-bench calibrate's decoders: byte 0 = 0 LOG SENSE page, 1 VPD B0h; and scale's
    # 2 page 32h (each session's modeled figures)
    t = "fuzz-calib-pages"

    def param(code, value, length=8):
        return struct.pack(">HBB", code, 0x03, length) + value.to_bytes(length, "big")

    def page(code, params):
        body = b"".join(params)
        return bytes([code, 0]) + struct.pack(">H", len(body)) + body
    # 0Ch: available, used (dedicated), de-duplicated and compressed counts + SCOPE
    lbp = page(0x0c, [param(0x0001, (4096 << 32) | (2 << 24)), param(0x0002, (1024 << 32) | (1 << 24)),
                      param(0x0100, (256 << 32) | (2 << 24)), param(0x0101, (128 << 32) | (2 << 24))])
    write(t, "lbp-counts", b"\0" + lbp)
    write(t, "lbp-short-param", b"\0" + page(0x0c, [param(0x0100, 7, 4)]))
    write(t, "telemetry-virtual", b"\0" + page(0x31, [param(0x0002, 5), param(0x000a, 4), param(0x000b, 1)]))
    b0 = bytearray(64)
    b0[1] = 0xb0
    b0[3] = 0x3c
    struct.pack_into(">I", b0, 8, 8192)
    struct.pack_into(">I", b0, 20, 1 << 21)
    struct.pack_into(">Q", b0, 36, 1 << 24)
    write(t, "vpd-b0", b"\1" + bytes(b0))
    write(t, "vpd-b0-short", b"\1" + bytes(b0[:16]))
    sess = [struct.pack(">HBB", i, 0x03, 56) + struct.pack(">7Q", 10 + i, 2, 2 << 20, 1 << 20, 0, 1000 + i, 5000 + i)
            for i in range(2)]
    body = b"".join(sess)
    write(t, "sessions", b"\2" + bytes([0x32, 0]) + struct.pack(">H", len(body)) + body)


def scsi_seeds():
    t = "fuzz-scsi-dispatch"

    def cdb(*b):
        return bytes(b).ljust(32, b"\0")
    write(t, "inquiry", cdb(0x12, 0, 0, 0, 0xff, 0) + b"\0" * 255)
    write(t, "inquiry-vpd83", cdb(0x12, 1, 0x83, 0, 0xff, 0) + b"\0" * 255)
    write(t, "inquiry-vpdb0", cdb(0x12, 1, 0xb0, 0, 0x40, 0) + b"\0" * 64)
    write(t, "read-capacity16", cdb(0x9e, 0x10, *[0] * 8, 0, 0, 0, 32, 0, 0) + b"\0" * 32)
    write(t, "read10", cdb(0x28, 0, 0, 0, 0, 8, 0, 0, 2, 0) + b"\0" * 1024)
    write(t, "write10", cdb(0x2a, 0, 0, 0, 0, 8, 0, 0, 2, 0) + bytes(range(256)) * 4)
    write(t, "write16", cdb(0x8a, 0, *[0] * 7, 16, 0, 0, 0, 1, 0, 0) + b"\x11" * 512)
    write(t, "write-same16-unmap", cdb(0x93, 0x08, *[0] * 7, 32, 0, 0, 0, 8, 0, 0) + b"\0" * 512)
    write(t, "compare-and-write", cdb(0x89, 0, *[0] * 7, 8, 0, 0, 0, 1, 0, 0) + b"\0" * 1024)
    write(t, "unmap", cdb(0x42, 0, 0, 0, 0, 0, 0, 0, 24, 0) + unmap_list([(0, 8)]))
    write(t, "mode-sense10-all", cdb(0x5a, 0, 0x3f, 0, 0, 0, 0, 0x01, 0, 0) + b"\0" * 256)
    write(t, "mode-select10-caching", cdb(0x55, 0x10, 0, 0, 0, 0, 0, 0, 28, 0) + b"\0" * 8 + caching_page(True))
    write(t, "log-sense", cdb(0x4d, 0, 0x40, 0, 0, 0, 0, 0x01, 0, 0) + b"\0" * 256)
    # LOG SELECT with a parameter list: page 31h parameter 000Ah (virtual clock host streams)
    write(t, "log-select-host-streams", cdb(0x4c, 0, 0x40, 0, 0, 0, 0, 0, 16, 0)
          + bytes([0x31, 0, 0, 12, 0, 0x0a, 0x03, 8]) + struct.pack(">Q", 4))
    write(t, "rsoc-all", cdb(0xa3, 0x0c, 0, 0, 0, 0, 0, 0, 0x10, 0, 0, 0) + b"\0" * 4096)
    write(t, "get-lba-status", cdb(0x9e, 0x12, *[0] * 8, 0, 0, 0x01, 0, 0, 0) + b"\0" * 256)
    write(t, "sync-cache10", cdb(0x35, 0, 0, 0, 0, 0, 0, 0, 0, 0))
    write(t, "verify16-bytchk", cdb(0x8f, 0x02, *[0] * 7, 8, 0, 0, 0, 1, 0, 0) + b"\0" * 512)
    write(t, "request-sense", cdb(0x03, 0, 0, 0, 18, 0) + b"\0" * 18)
    write(t, "receive-copy-results", cdb(0x84, 0x03, *[0] * 8, 0, 0, 1, 0, 0, 0) + b"\0" * 256)
    # ODX: POPULATE TOKEN list 1 of LBA 0+64, RRTI of list 1, WRITE USING TOKEN of the zero token
    write(t, "populate-token", cdb(0x83, 0x10, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 32, 0, 0)
          + odx_pt_list([(0, 64)]))
    write(t, "rrti", cdb(0x84, 0x07, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0x02, 0x38, 0, 0) + b"\0" * 568)
    write(t, "write-using-zero-token", cdb(0x83, 0x11, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0x02, 0x28, 0, 0)
          + odx_wut_list([(128, 64)], struct.pack(">I", 0xFFFF0001) + bytes(508)))
    # READ DEFECT DATA(10)/(12): REQ_PLIST + REQ_GLIST, short block (0) and
    # physical sector (5) formats; the 12-byte one with an address index
    write(t, "read-defect-data10", cdb(0x37, 0, 0x18, 0, 0, 0, 0, 0x01, 0x00, 0) + b"\0" * 256)
    write(t, "read-defect-data10-phys", cdb(0x37, 0, 0x1d, 0, 0, 0, 0, 0, 4, 0) + b"\0" * 4)
    write(t, "read-defect-data12", cdb(0xb7, 0x1d, 0, 0, 0, 2, 0, 0, 0x01, 0, 0, 0) + b"\0" * 256)
    # ORWRITE(16): 2 blocks at LBA 24 ORed into what is there
    write(t, "orwrite16", cdb(0x8b, 0, *[0] * 7, 24, 0, 0, 0, 2, 0, 0) + bytes([0x81]) * 1024)
    # WRITE ATOMIC(16): bytes 10-11 ATOMIC BOUNDARY (must be 0), 12-13 length
    write(t, "write-atomic16", cdb(0x9c, 0, *[0] * 7, 40, 0, 0, 0, 4, 0, 0) + b"\x3c" * 2048)
    write(t, "write-atomic16-boundary", cdb(0x9c, 0x08, *[0] * 7, 40, 0, 8, 0, 4, 0, 0) + b"\x3c" * 2048)
    # thin provisioning (the fuzz LU's array has a capacity and a soft threshold):
    # VPD B2, mode page 1Ch/02h and every subpage, log page 0Ch, descriptor REQUEST SENSE
    write(t, "inquiry-vpdb2", cdb(0x12, 1, 0xb2, 0, 0x40, 0) + b"\0" * 64)
    write(t, "mode-sense6-lbp", cdb(0x1a, 0, 0x1c, 0x02, 0xff, 0) + b"\0" * 255)
    write(t, "mode-sense10-all-subpages", cdb(0x5a, 0, 0x3f, 0xff, 0, 0, 0, 0x01, 0, 0) + b"\0" * 256)
    write(t, "log-sense-lbp", cdb(0x4d, 0, 0x4c, 0, 0, 0, 0, 0x01, 0, 0) + b"\0" * 256)
    write(t, "request-sense-desc", cdb(0x03, 0x01, 0, 0, 8, 0) + b"\0" * 8)

    t = "fuzz-scsi-unmap"
    write(t, "one-range", unmap_list([(0, 8)]))
    write(t, "three-ranges", unmap_list([(0, 1), (100, 32), (2040, 8)]))
    write(t, "out-of-range", unmap_list([(2047, 2)]))
    write(t, "empty", unmap_list([]))

    t = "fuzz-scsi-mode-select"
    hdr10 = b"\0" * 8
    hdr6 = b"\0" * 4
    bd = struct.pack(">II", 2048, 512)                         # block descriptor: blocks, length
    write(t, "ms10-caching", b"\x10" + hdr10 + caching_page(False))
    write(t, "ms10-control-swp", b"\x10" + hdr10 + control_page(True))
    write(t, "ms10-both-bd", b"\x10" + hdr10[:6] + b"\0\x08" + bd + caching_page(True) + control_page(False))
    write(t, "ms6-caching", b"\x11" + hdr6 + caching_page(True))
    write(t, "ms6-control-bd", b"\x11" + hdr6[:3] + b"\x08" + bd + control_page(False))

    naa = naa_of("fuzz-serial-1")
    for t in ("fuzz-scsi-xcopy", "fuzz-xcopy-parse"):
        write(t, "one-segment", xcopy_list([(0, 0, 8, 0, 64)], naa))
        write(t, "two-segments", xcopy_list([(0, 0, 16, 128, 512), (0, 0, 1, 2047, 0)], naa, list_id=2))
        write(t, "overlap", xcopy_list([(0, 0, 32, 0, 16)], naa, list_id=3))
    # fuzz-odx-parse: selector byte (even: POPULATE TOKEN, odd: WRITE USING TOKEN), then the list
    write("fuzz-odx-parse", "pt-one-range", b"\x00" + odx_pt_list([(0, 64)]))
    write("fuzz-odx-parse", "pt-three-ranges-rtv", b"\x00" + odx_pt_list([(0, 8), (100, 0), (4096, 2048)],
                                                                          timeout=30, rtv=True))
    token = struct.pack(">I2xH", 0x00800000, 0x01F8) + bytes(range(256)) + bytes(248)
    write("fuzz-odx-parse", "wut-one-range", b"\x01" + odx_wut_list([(1024, 64)], token))
    write("fuzz-odx-parse", "wut-offset-del", b"\x01" + odx_wut_list([(0, 8), (64, 8)], token, offset=4, flags=3))
    zero = struct.pack(">I", 0xFFFF0001) + bytes(508)
    write("fuzz-odx-parse", "wut-zero-token", b"\x03" + odx_wut_list([(0, 128)], zero))


def cdb_decode_seeds():
    """fuzz-cdb-decode: the CDBs of fuzz-scsi-dispatch's seeds alone, at their opcode's
    length (group code) and one byte short of it."""
    src = os.path.join(OUT, "fuzz-scsi-dispatch")
    for name in sorted(os.listdir(src)):
        with open(os.path.join(src, name), "rb") as f:
            cdb = f.read(32)
        n = {0: 6, 1: 10, 2: 10, 4: 16, 5: 12}.get(cdb[0] >> 5, 32)
        write("fuzz-cdb-decode", name, cdb[:n])
        write("fuzz-cdb-decode", name + "-short", cdb[:n - 1])


# ---------------------------------------------------------------- access control
# fuzz_iscsi_login_chap.c's fixed challenge and credentials
CHAP_ID = 42
CHAP_CHALLENGE = bytes(i * 0x11 for i in range(16))
SECRETS = {"alice": b"alicesecret123", "bob": b"bobsecret12345"}
TARGET_SECRET = b"targetsecret99"


def chap_response(ident, secret, challenge):
    """RFC 1994: MD5(identifier || secret || challenge)."""
    return hashlib.md5(bytes([ident]) + secret + challenge).digest()


def auth_file_seeds():
    t = "fuzz-auth-file"
    good = (b"# lunlab access control\n"
            b"chap alice alicesecret123\n"
            b"chap\tbob\tbobsecret12345\r\n"
            b"\n"
            b"mutual lunlab targetsecret99\n"
            b"allow iqn.2026-11.org.lunlab:fuzzer\n"
            b"allow eui.0123456789abcdef\n"
            b"allow naa.60014055f1cd5a2c\n")
    # byte 0: bit 0 = through auth_file_load on a memfd, bit 1 = mode 0640
    write(t, "parse-good", b"\x00" + good)
    write(t, "load-0600", b"\x01" + good)
    write(t, "load-0640-refused", b"\x03" + good)
    write(t, "parse-no-trailing-newline", b"\x00" + b"chap alice alicesecret123\nallow iqn.x:y")
    write(t, "bad-mutual-alone", b"\x00" + b"mutual lunlab targetsecret99\n")
    write(t, "bad-mutual-same-secret", b"\x00" + b"chap alice alicesecret123\nmutual lunlab alicesecret123\n")
    write(t, "bad-short-secret", b"\x00" + b"chap alice short\n")
    write(t, "bad-duplicate-user", b"\x00" + b"chap alice alicesecret123\nchap alice alicesecret456\n")
    write(t, "bad-extra-field", b"\x00" + b"chap alice alice secret123\n")
    write(t, "bad-keyword", b"\x01" + b"allow iqn.a:b\nuser alice alicesecret123\n")
    write(t, "bad-iqn", b"\x00" + b"allow iqn\x01.bad\nallow eui\n")
    write(t, "bad-long-line", b"\x00" + b"chap alice " + b"s" * 1100 + b"\n")
    write(t, "bad-nul", b"\x00" + b"chap alice alice\x00secret123\n")


def chap_seeds():
    t = "fuzz-iscsi-login-chap"
    first = (("InitiatorName", INI), ("SessionType", "Normal"), ("TargetName", IQN))
    ops = kv(("HeaderDigest", "None"), ("DataDigest", "None"), ("MaxRecvDataSegmentLength", 65536),
             ("ImmediateData", "Yes"), ("InitialR2T", "No"))
    ffp = (bhs(0x00, 0x80, b"ping", itt=2, f20=0xffffffff, f24=1, imm=True)             # NOP-Out
           + scsi_cmd([0xa0, 0, 0, 0, 0, 0, 0, 0, 0x10, 0, 0, 0], 1, 3, edtl=4096, read=True)
           + bhs(0x06, 0x80, itt=4, f24=2, imm=True))                                     # Logout

    def resp_hex(user, ident=CHAP_ID, chal=CHAP_CHALLENGE):
        return "0x" + chap_response(ident, SECRETS[user], chal).hex()

    def resp_b64(user):
        return "0b" + base64.b64encode(chap_response(CHAP_ID, SECRETS[user], CHAP_CHALLENGE)).decode()

    def exchange(answer, first_keys=first, am="CHAP,None", alg="7,5", then=ops + b"", tail=ffp):
        s = login(0, 1, kv(*first_keys, ("AuthMethod", am)))      # -> AuthMethod=CHAP, T=0
        s += login(0, 1, kv(("CHAP_A", alg)))                     # -> CHAP_A, CHAP_I, CHAP_C
        s += login(0, 1, kv(*answer))                             # -> T=1 to operational
        s += login(1, 3, then)                                    # -> full feature phase
        return s + tail

    # byte 0: bit 0 = no 'mutual' line, bit 1 = allow-list with INI only
    write(t, "one-way-hex", b"\x01" + exchange((("CHAP_N", "alice"), ("CHAP_R", resp_hex("alice")))))
    write(t, "one-way-base64", b"\x00" + exchange((("CHAP_N", "bob"), ("CHAP_R", resp_b64("bob")))))
    # mutual: the initiator's challenge in hex and in base64, CHAP_I decimal and 0x
    mine = bytes(range(1, 17))
    write(t, "mutual-hex", b"\x00" + exchange((("CHAP_N", "alice"), ("CHAP_R", resp_hex("alice")),
                                               ("CHAP_I", 77), ("CHAP_C", "0x" + mine.hex()))))
    write(t, "mutual-base64-id-hex", b"\x02" + exchange((("CHAP_N", "alice"), ("CHAP_R", resp_hex("alice")),
                                                         ("CHAP_I", "0x4d"),
                                                         ("CHAP_C", "0b" + base64.b64encode(mine * 3).decode()))))
    # refusals: mutual without a 'mutual' line, our own challenge reflected,
    # a wrong response, an unknown user, a name off the allow-list, no CHAP
    write(t, "mutual-not-configured", b"\x01" + exchange((("CHAP_N", "alice"), ("CHAP_R", resp_hex("alice")),
                                                          ("CHAP_I", 1), ("CHAP_C", "0x0102"))))
    write(t, "mutual-reflected", b"\x00" + exchange((("CHAP_N", "alice"), ("CHAP_R", resp_hex("alice")),
                                                     ("CHAP_I", CHAP_ID), ("CHAP_C", "0x" + CHAP_CHALLENGE.hex()))))
    write(t, "wrong-response", b"\x00" + exchange((("CHAP_N", "alice"), ("CHAP_R", resp_hex("alice", ident=41)))))
    write(t, "unknown-user", b"\x00" + exchange((("CHAP_N", "mallory"), ("CHAP_R", resp_hex("alice")))))
    write(t, "allow-list-refused", b"\x03" + exchange((("CHAP_N", "alice"), ("CHAP_R", resp_hex("alice"))),
                                                      first_keys=(("InitiatorName", "iqn.2026-11.org.lunlab:other"),
                                                                  ("SessionType", "Normal"), ("TargetName", IQN))))
    write(t, "auth-none-refused", b"\x00" + login(0, 1, kv(*first, ("AuthMethod", "None"))))
    write(t, "skip-security", b"\x00" + login(1, 3, kv(*first) + ops) + ffp)
    write(t, "chap-a-no-md5", b"\x00" + exchange((("CHAP_N", "alice"), ("CHAP_R", resp_hex("alice"))), alg="6,7"))
    # the answer split over two PDUs with the C bit
    ans = kv(("CHAP_N", "alice"), ("CHAP_R", resp_hex("alice")))
    s = login(0, 1, kv(*first, ("AuthMethod", "CHAP"))) + login(0, 1, kv(("CHAP_A", "5")))
    s += login(0, 1, ans[:9], transit=False, cont=True) + login(0, 1, ans[9:]) + login(1, 3, ops) + ffp
    write(t, "answer-continued", b"\x00" + s)
    # a discovery session with CHAP, then SendTargets
    disc = exchange((("CHAP_N", "bob"), ("CHAP_R", resp_hex("bob"))),
                    first_keys=(("InitiatorName", INI), ("SessionType", "Discovery")),
                    then=kv(("HeaderDigest", "None"), ("DataDigest", "None")),
                    tail=bhs(0x04, 0x80, kv(("SendTargets", "All")), itt=2, f20=0xffffffff, f24=1)
                    + bhs(0x06, 0x80, itt=3, f24=2, imm=True))
    write(t, "discovery-chap", b"\x00" + disc)


# ---------------------------------------------------------------- cfgstrings
def lu_config_seeds():
    t = "fuzz-lu-config"
    write(t, "every-key", b"lunlab/model=x1;array=a1;serial=s-1;time_scale=2.5;readonly=1;"
          b"physical_block=4096;volume=vol-1:x;array_capacity=64M;soft_threshold=50%")
    write(t, "virtual-clock", b"lunlab/model=x2;time_scale=virtual;host_streams=16")
    write(t, "no-prefix", b"array=b;volume=snap.1;array_capacity=5400000000000;soft_threshold=0")
    write(t, "lio-style", b"lunlab/model=x2;array=a1")
    write(t, "profile-path", b"lunlab/profile=models/profiles/x2.yaml")
    write(t, "bad-volume-no-array", b"lunlab/volume=v1")
    write(t, "bad-capacity", b"lunlab/array_capacity=64X;soft_threshold=101")


# ---------------------------------------------------------------- profiles
def profile_seeds():
    d = os.path.join(ROOT, "models", "profiles")
    for f in sorted(os.listdir(d)):
        if f.endswith(".yaml"):
            with open(os.path.join(d, f), "rb") as fh:
                write("fuzz-profile-parse", f[:-5], fh.read())


# ---------------------------------------------------------------- saved reservations
def pr_state_seeds():
    # target/lu/pr_persist.c's layout: version, flags (01 APTPL, 02 reserved),
    # type, nregs, 4 zero bytes, holder port, then key + port per registration
    def port(name, isid):
        n = name.encode()
        return bytes([len(n)]) + n + isid
    a = port("iqn.2026-11.org.lunlab.fuzz:a", b"\x80\x00\x00\x00\x00\x01")
    b = port("iqn.2026-11.org.lunlab.fuzz:b", b"\x40\x01\x02\x03\x04\x05")
    none = port("", b"\0" * 6)
    t = "fuzz-pr-state"
    write(t, "aptpl-no-regs", bytes([1, 1, 0, 0, 0, 0, 0, 0]) + none)
    write(t, "two-regs", bytes([1, 1, 0, 2, 0, 0, 0, 0]) + none
          + struct.pack(">Q", 0x1111) + a + struct.pack(">Q", 0x2222) + b)
    write(t, "we-held-by-a", bytes([1, 3, 1, 2, 0, 0, 0, 0]) + a
          + struct.pack(">Q", 0x1111) + a + struct.pack(">Q", 0x2222) + b)
    write(t, "ea-all-registrants", bytes([1, 3, 8, 1, 0, 0, 0, 0]) + none
          + struct.pack(">Q", 0xabcdef) + b)


# ---------------------------------------------------------------- the HTTPS API
def api_seeds():
    import json
    bodies = {
        "create-volume": {"vol-name": "vol1", "vol-size": "10g", "cluster-id": "xbrick1"},
        "create-volume-kib": {"vol-name": "v2", "vol-size": 1048576, "lb-size": 4096},
        "snapshot-set": {"volume-list": ["vol1", "vol2"], "snapshot-set-name": "set1",
                         "snap-suffix": "snap", "snapshot-type": "readonly"},
        "snapshot-cg": {"consistency-group-id": "cg1", "snapshot-set-name": "cgsnap"},
        # refresh and restore (xms_refresh.c), in the forms CoprHD, XtremIO.Utils and MTSXtremIO send
        "refresh-volume": {"from-volume-id": "vol1.snap", "to-volume-id": "vol1", "backup-snap-suffix": "before",
                           "cluster-id": "xbrick1"},
        "refresh-cg-set": {"from-consistency-group-id": "cg1", "to-snapshot-set-id": "set1", "no-backup": True,
                           "snapshot-set-name": "set2"},
        "restore-set-cg": {"from-snapshot-set-id": 4, "to-consistency-group-id": ["0" * 32, "cg1", 1],
                           "no-backup": "true"},
        "initiator-chap": {"initiator-name": "h1", "ig-id": "host1", "port-address": "iqn.1993-08.org.debian:01:h1",
                           "initiator-authentication-user-name": "chap_user",
                           "initiator-authentication-password": "ABCDEF123456"},
        "lun-map": {"vol-id": "vol1", "ig-id": 3, "lun": "7"},
        "cg": {"consistency-group-name": "cg1", "vol-list": [["0" * 32, "vol1", 1], "vol2"]},
        "cluster-chap": {"chap-authentication-mode": "initiator", "chap-discovery-mode": "disabled"},
        "empty": {},
        "attrs": {"operating-system": "esx", "small-io-alerts": "enabled", "unaligned-io-alerts": "disabled",
                  "vaai-tp-alerts": "enabled", "management-locked": "enabled", "vol-access": "read_access",
                  "tag-list": ["/Volume/gold", 3, ["0" * 32, "t", 4]]},
        "chap-one-field": {"initiator-authentication-password": "ABCDEF1234567",
                           "remove-initiator-discovery-credentials": "enabled"},
        # /api/lunlab/hardware (xms_inventory.h) and /api/lunlab/api-faults bodies
        "hardware-ssd": {"component": "ssd", "name": "wwn-0x5000c5f83c0362bd", "state": "failed", "cluster": "x1a"},
        "hardware-sc": {"component": "storage-controller", "name": 2, "state": "healthy"},
        "api-fault": {"error": "system_is_busy", "method": "POST", "type": "volumes", "skip": 1, "count": 2,
                      "status": 400},
        # MTSXtremIO's and CoprHD's bodies: lun as a string, cluster-id by name, a folder tag
        "coprhd-ig": {"ig-name": "cop-ig", "cluster-id": "xbrick1", "tag-list": ["/InitiatorGroup/coprhd"]},
        "rexray-snap": {"snap-list": [{"ancestor-vol-id": "rex-v", "snap-vol-name": "rex-s"}], "folder-id": "/"},
        # tags (xms_tags.c): CoprHD's and XtremIO.Utils' bodies
        "tag-create": {"entity": "Volume", "tag-name": "/Volume/gold/db", "color": "#FF0000"},
        "tag-assign": {"tag-id": ["0" * 32, "/Volume/gold", 2], "entity": "Volume",
                       "entity-details": ["0" * 32, "v1", 1], "cluster-id": "xbrick1"},
        "tag-caption": {"caption": "renamed", "color": "#00FF00"},
        "snapshot-taglist": {"tag-list": ["/Volume/gold"], "snapshot-set-name": "ts", "cluster-id": "xbrick1"},
    }
    for name, b in bodies.items():
        write("fuzz-api-json", name, json.dumps(b).encode())
    write("fuzz-api-json", "null", b"null")
    # fuzz-api-faults: the first byte picks the request's method and type, the rest is the rule
    for i, rule in enumerate(({"error": "system_is_busy", "method": "POST", "type": "volumes", "count": 2},
                              {"error": "too_many_snapshots_per_vol", "type": "snapshots", "skip": 1},
                              {"error": "cluster_is_not_healthy", "status": 503},
                              {"error": "nope"}, {"error": "obj_not_found", "colour": 1})):
        write("fuzz-api-faults", "rule%d" % i, bytes([i * 5]) + json.dumps(rule).encode())
    queries = {
        "name": "name=vol1&cluster-name=xbrick1",
        "full-filters": "full=1&filter=vol-name%3Aeq%3Avol1&filter=ig-name:eq:host1",
        "alternatives": "filter=port-address:eq:iqn.a:1,port-address:eq:iqn.b:2&full=1&prop=ig-id",
        "props": "full=1&prop=lun&prop=index,name&props=ancestor-vol-id",
        "like": "full=1&filter=name:like:snap&filter=lun:ge:3",
        "empty-cluster": "full=1&cluster-name=&name=v1",
        # MTSXtremIO: the cluster by index in the query; events by time; CoprHD's export query
        "cluster-id": "name=mts-v&cluster-id=1",
        "events": "from-date-time=2026-12-04%2021:00:00&to-date-time=2026-12-04%2022:00:00&severity=major&limit=5",
        "performance": "entity=Volume&obj-list=v1&obj-list=v2&granularity=ten_minutes&time-frame=last_hour&limit=50",
        # the performance query of initiators: XtremIO.Utils' Get-XIOPerformanceCounter -EntityType
        # Initiator (limit first, dates as from-time/to-time), and a lower-case entity
        "performance-initiator": "limit=50&entity=Initiator&granularity=one_minute&obj-list=host1-iscsi"
                                 "&from-time=2026-12-05%2007:00:00&to-time=2026-12-05%2008:00:00",
        "performance-lower": "entity=initiator&time-frame=real_time&granularity=raw&limit=100000",
        "performance-bad": "entity=Initiator&granularity=one_week&from-time=2026-13-05%2007:00:00&limit=0",
        # aggregation-type (XtremIO.Utils: one per type), prop= (MTSXtremIO's ad-hoc command),
        # cluster-id= (MTSXtremIO), CoprHD's XEnv query, an SSD's
        "performance-aggs": "limit=50&entity=Volume&aggregation-type=avg&aggregation-type=max&aggregation-type=MIN"
                            "&cluster-name=xbrick1&obj-list=v1",
        "performance-prop": "entity=Target&limit=10&from-time=2015-10-01%2012:00:00&to-time=2015-10-02%2012:00:00"
                            "&prop=avg__iops&cluster-id=1",
        "performance-xenv": "cluster-name=xbrick1&entity=XEnv&time-frame=last_hour&granularity=ten_minutes",
        "performance-ssd-bad": "entity=SSD&aggregation-type=sum&prop=avg__iops",
        "coprhd-export": "full=1&cluster-name=xbrick1&prop=vol-id&prop=lun-mapping-list&prop=naa-name"
                         "&filter=vol-id:eq:cop-v",
    }
    for name, q in queries.items():
        write("fuzz-api-query", name, q.encode())
    g = "0123456789abcdef0123456789abcdef"
    def typ(nxt, objs):
        return {"next-index": nxt, "objects": objs}
    doc = {
        "format": 1,
        "clusters": typ(2, [{"index": 1, "guid": g, "name": "xbrick1", "keys": "model=x2", "lb-size": 512,
                             "chap-authentication-mode": "initiator", "chap-discovery-mode": "disabled",
                             "serial": "LL00000001"}]),
        "volumes": typ(3, [
            {"index": 1, "guid": g, "name": "vol1", "cluster": 1, "size": 1 << 30, "lb-size": 512, "ancestor": 0,
             "snapset": 0, "snapshot": False, "readonly": False, "created": 1796000000},
            {"index": 2, "guid": g, "name": "snap1", "cluster": 1, "size": 1 << 30, "lb-size": 512, "ancestor": 1,
             "snapset": 1, "snapshot": True, "readonly": True, "created": 1796000001}]),
        "snapshot-sets": typ(2, [{"index": 1, "guid": g, "name": "set1", "cluster": 1, "cg": 0, "vols": [2],
                                  "created": 1796000001}]),
        "consistency-groups": typ(2, [{"index": 1, "guid": g, "name": "cg1", "cluster": 1, "vols": [1]}]),
        "initiator-groups": typ(2, [{"index": 1, "guid": g, "name": "host1", "cluster": 1}]),
        "initiators": typ(2, [{"index": 1, "guid": g, "name": "h1", "port-address": "iqn.1993-08.org.debian:01:h1",
                               "ig": 1, "cluster": 1, "auth-user": "chap_user", "auth-pass": "ABCDEF123456",
                               "disc-user": "", "disc-pass": ""}]),
        "lun-maps": typ(2, [{"index": 1, "guid": g, "vol": 1, "ig": 1, "lun": 1, "cluster": 1}]),
    }
    write("fuzz-xms-model", "model", json.dumps(doc).encode())
    # the kept settings (target/api/xms_attrs.h) on a volume, a group, an initiator and a group of volumes
    doc["volumes"]["objects"][0]["attrs"] = {"small-io-alerts": "enabled", "vol-access": "read_access",
                                             "management-locked": "disabled", "tag-list": ["/Volume/t1", 2]}
    doc["initiator-groups"]["objects"][0]["attrs"] = {"operating-system": "esx", "tag-list": [["0" * 32, "t", 1]]}
    doc["initiators"]["objects"][0]["attrs"] = {"operating-system": "linux"}
    doc["consistency-groups"]["objects"][0]["attrs"] = {"tag-list": ["gold"]}
    write("fuzz-xms-model", "model-attrs", json.dumps(doc).encode())
    # tags: the root /Volume, /Volume/gold carried by vol1, /InitiatorGroup and a child the group carries
    doc["tags"] = typ(5, [{"index": 1, "guid": g, "caption": "Volume", "parent": 0, "kind": 0, "color": "",
                           "created-ms": 1796000000000},
                          {"index": 2, "guid": g, "caption": "gold", "parent": 1, "kind": 0, "color": "#FF0000",
                           "created-ms": 1796000000001},
                          {"index": 3, "guid": g, "caption": "InitiatorGroup", "parent": 0, "kind": 1, "color": "",
                           "created-ms": 1796000000002},
                          {"index": 4, "guid": g, "caption": "esx", "parent": 3, "kind": 1, "color": "",
                           "created-ms": 1796000000003}])
    doc["volumes"]["objects"][0]["attrs"] = {"tag-ids": [2]}
    doc["initiator-groups"]["objects"][0]["attrs"] = {"operating-system": "esx", "tag-ids": [4]}
    doc["consistency-groups"]["objects"][0].pop("attrs")
    write("fuzz-xms-model", "model-tags", json.dumps(doc).encode())
    # a Cluster tag on the cluster and an SSD tag on its SSD 3 (an inventory-tags record)
    doc["tags"]["objects"] += [{"index": 5, "guid": g, "caption": "Cluster", "parent": 0, "kind": 6, "color": "",
                                "created-ms": 1796000000004},
                               {"index": 6, "guid": g, "caption": "prod", "parent": 5, "kind": 6, "color": "",
                                "created-ms": 1796000000005},
                               {"index": 7, "guid": g, "caption": "SSD", "parent": 0, "kind": 9, "color": "",
                                "created-ms": 1796000000006},
                               {"index": 8, "guid": g, "caption": "hot", "parent": 7, "kind": 9, "color": "",
                                "created-ms": 1796000000007}]
    doc["tags"]["next-index"] = 9
    doc["clusters"]["objects"][0]["attrs"] = {"tag-ids": [6]}
    doc["inventory-tags"] = typ(2, [{"index": 1, "guid": g, "name": "wwn-0x5000c5aa00000003", "obj-guid": g,
                                     "obj-index": 3, "cluster": 1, "kind": 9, "n": 3, "attrs": {"tag-ids": [8]}}])
    write("fuzz-xms-model", "model-inventory-tags", json.dumps(doc).encode())
    empty = {"format": 1}
    for t in ("clusters", "volumes", "snapshot-sets", "consistency-groups", "initiator-groups", "initiators",
              "lun-maps"):
        empty[t] = typ(1, [])
    write("fuzz-xms-model", "empty", json.dumps(empty).encode())


def xms_log_seeds():
    """fuzz-xms-log-store: byte 0 picks events (1), hardware faults (4) or alerts (0), bit 1
    a store that fails after the records; the records (as xms_events.c / xms_alerts.c store them) split at
    "\n\x1e"."""
    import json

    def recs(kind, *rs, store_fails=False):
        return bytes([kind | (2 if store_fails else 0)]) + b"\n\x1e".join(
            json.dumps(r, separators=(",", ":")).encode() for r in rs)

    def ev(i, **kw):
        r = {"id": i, "sec": 1796420000 + i, "usec": 250000, "severity": "information",
             "classification": "audit", "entity": "Volume", "entity_details": "vol%d" % i,
             "event_code": "LL0101", "description": "User admin created volumes 'vol%d'" % i}
        r.update(kw)
        return r

    def al(i, kind="target_port_down", cleared=False, **kw):
        r = {"index": i, "alert-type": kind, "cleared": cleared, "raise-time": 1796420000000 + i,
             "clear-time": 1796420001000 + i if cleared else 0, "cluster": 1, "class-name": "Target",
             "assoc-obj-name": "X1-SC%d-iscsi1" % i, "assoc-obj-index": i,
             "assoc-obj-guid": "0123456789abcdef0123456789abcdef", "description": "portal %d down" % i}
        r.update(kw)
        return r

    write("fuzz-xms-log-store", "events", recs(1, ev(1), ev(2, severity="major"), ev(7)))
    write("fuzz-xms-log-store", "events-bad-usec", recs(1, ev(1), ev(2, usec=1000000)))
    write("fuzz-xms-log-store", "events-ids-back", recs(1, ev(5), ev(3)))
    write("fuzz-xms-log-store", "events-store-fails", recs(1, ev(1), store_fails=True))
    write("fuzz-xms-log-store", "alerts", recs(0, al(1, cleared=True), al(2),
                                               al(3, "cluster_soft_threshold_reached", class_name="Cluster")))
    write("fuzz-xms-log-store", "alerts-ssd", recs(0, al(4, "ssd_failed", **{"class-name": "SSD"}),
                                                   al(9, "storage_controller_failed")))
    write("fuzz-xms-log-store", "alerts-bad-type", recs(0, al(1, "no_such_alert")))
    write("fuzz-xms-log-store", "empty", bytes([1]))
    # api-hardware records (xms_hw_store.h): a failed SSD and a failed controller, a bad number
    hw = lambda **kw: dict({"cluster": "xbrick1", "component": "ssd", "number": 3}, **kw)
    write("fuzz-xms-log-store", "hardware", recs(4, hw(), hw(component="storage-controller", number=2)))
    write("fuzz-xms-log-store", "hardware-bad-number", recs(4, hw(number=0)))
    write("fuzz-xms-log-store", "hardware-store-fails", recs(4, hw(), store_fails=True))
    # api-perf records (xms_perf_history.h): a volume's readings and an XEnv's, a minute later
    # the volume's next; readings going back in time; an unknown entity
    def pf(entity, index, *readings, **kw):
        return dict({"entity": entity, "index": index, "cluster": 1, "guid": "0123456789abcdef0123456789abcdef",
                     "name": "%s%d" % (entity.lower(), index), "readings": list(readings)}, **kw)
    t = 1796420000000
    write("fuzz-xms-log-store", "perf", recs(8, {"objects": [pf("Volume", 1, [t, 1, 2, 512, 1024, 9000, 8000],
                                                                  [t + 10000, 3, 4, 1536, 2048, 9900, 8800]),
                                                               pf("XEnv", 2, [t, 1234])]},
                                             {"objects": [pf("Volume", 1, [t + 60000, 5, 6, 2560, 3072, 1, 2])]}))
    write("fuzz-xms-log-store", "perf-back-in-time", recs(8, {"objects": [pf("Target", 1, [t, 0, 0, 0, 0, 0, 0],
                                                                            [t - 1, 0, 0, 0, 0, 0, 0])]}))
    write("fuzz-xms-log-store", "perf-bad-entity", recs(8, {"objects": [pf("Brick", 1, [t, 0])]}))


def check():
    """--check: every seed this script makes is the committed one (the profile seeds are
    copies of models/profiles: a profile changed without them went unnoticed once).  The
    corpus may hold more (inputs a fuzzer found, hand-made regressions): those are not judged."""
    global OUT
    import filecmp
    import tempfile
    committed = OUT
    with tempfile.TemporaryDirectory() as tmp:
        OUT = tmp
        for fn in SETS:
            fn()
        stale = []
        for t in sorted(os.listdir(tmp)):
            for f in sorted(os.listdir(os.path.join(tmp, t))):
                mine = os.path.join(committed, t, f)
                if not os.path.exists(mine) or not filecmp.cmp(os.path.join(tmp, t, f), mine, shallow=False):
                    stale.append(f"{t}/{f}")
    for s in stale:
        print(f"stale seed: tests/fuzz/corpus/{s} (run python3 tests/fuzz/make_seeds.py and commit)")
    print(f"{len(stale)} stale seed(s)")
    return 1 if stale else 0


def xms_tags_seeds():
    """fuzz-xms-tags: requests separated by "\n\x1e", each a selector byte (fuzz_xms_tags.c's
    reqs[]: 0 POST tags, 1 PUT tags/2, 2 PUT tags?name=/Volume/gold, 3 DELETE tags/2, 4 DELETE
    tags?name=/Volume/gold, 5 PUT tags/1, 6 DELETE tags/3, 7 PUT tags/3, 8 POST initiator-groups,
    9 PUT initiator-groups?name=ig1, 10 POST consistency-groups, 11..15 GETs, 16 POST v1
    volume-folders, 17 PUT volume-folders/2, 18 DELETE volume-folders/2, 19 POST ig-folders,
    20 GET volume-folders?name=/, 21 GET v3 ig-folders, 22 PUT tags/4, 23 DELETE tags/4) and a
    JSON body."""
    import json

    def run(*reqs):
        return b"\n\x1e".join(bytes([sel]) + json.dumps(body).encode() for sel, body in reqs)
    write("fuzz-xms-tags", "create-nested-assign", run(
        (0, {"entity": "Volume", "tag-name": "/Volume/apps/db/logs"}),
        (7, {"entity": "Volume", "entity-details": "v2", "cluster-id": "xbrick1"}),
        (1, {"entity": "Volume", "entity-details": ["0" * 32, "v2", 2]}),
        (12, {})))
    write("fuzz-xms-tags", "untag-rename-remove", run(
        (4, {"entity": "Volume", "entity-details": "v1"}),
        (2, {"caption": "silver", "color": "#C0C0C0"}),
        (0, {"entity": "Volume", "tag-name": "gold"}),
        (3, {"tag-id": ["0" * 32, "/Volume/silver", 2]}),
        (11, {})))
    write("fuzz-xms-tags", "tag-lists", run(
        (0, {"entity": "InitiatorGroup", "tag-name": "hosts"}),
        (8, {"ig-name": "ig2", "tag-list": ["/InitiatorGroup/hosts"], "cluster-id": "xbrick1"}),
        (9, {"tag-list": [4, "/InitiatorGroup/hosts"]}),
        (0, {"entity": "ConsistencyGroup", "tag-name": "/ConsistencyGroup/prod"}),
        (10, {"consistency-group-name": "cg2", "tag-list": ["/ConsistencyGroup/prod", "/Volume/gold"]}),
        (13, {})))
    write("fuzz-xms-tags", "refusals", run(
        (0, {"entity": "Disk", "tag-name": "x"}),
        (0, {"entity": "Volume", "tag-name": "/Volume/a/b/c/d"}),
        (5, {"entity": "Volume", "entity-details": "v1"}),
        (6, {}),
        (1, {"entity": "InitiatorGroup", "entity-details": "ig1"}),
        (8, {"ig-name": "ig3", "tag-list": ["/Volume/gold"]})))
    # folders (xms_folders.c): XtremIO.Utils' and goxtremio's bodies
    write("fuzz-xms-tags", "folders", run(
        (16, {"caption": "db", "parent-folder-id": "/"}),
        (16, {"caption": "logs", "parent-folder-id": "/db"}),
        (19, {"caption": "hosts"}),
        (8, {"ig-name": "ig2", "parent-folder-id": "/hosts", "cluster-id": "xbrick1"}),
        (17, {"caption": "silver"}),
        (20, {}),
        (18, {"folder-name": "/silver", "folder-type": "Volume"}),
        (21, {})))
    # tags on a cluster and the inventory (tags 3 and 4: the kind's root and the tag)
    write("fuzz-xms-tags", "inventory", run(
        (0, {"entity": "StorageController", "tag-name": "sc"}),
        (22, {"entity": "StorageController", "entity-details": "X1-SC1", "cluster-id": "xbrick1"}),
        (22, {"entity": "StorageController", "entity-details": 2}),
        (23, {"entity": "StorageController", "entity-details": "X1-SC9"}),
        (23, {"entity": "StorageController", "entity-details": "X1-SC1"}),
        (0, {"entity": "Cluster", "tag-name": "prod"}),
        (23, {}),
        (12, {})))
    write("fuzz-xms-tags", "folder-refusals", run(
        (16, {"caption": "a/b"}),
        (16, {"caption": "x", "parent-folder-id": "/nope"}),
        (16, {"caption": "x", "parent-folder-id": []}),
        (19, {"caption": "x", "parent-folder-id": 2}),
        (8, {"ig-name": "ig3", "parent-folder-id": "/nope"}),
        (8, {"ig-name": "ig1", "parent-folder-id": "/"}),
        (17, {}),
        (21, {})))


SETS = (api_seeds, iscsi_seeds, scsi_seeds, cdb_decode_seeds, calib_seeds, profile_seeds, lu_config_seeds,
        auth_file_seeds, chap_seeds, pr_state_seeds, xms_log_seeds, xms_tags_seeds)

if __name__ == "__main__":
    if sys.argv[1:] == ["--check"]:
        sys.exit(check())
    # with names: only those seed sets (e.g. pr_state_seeds); default all
    only = sys.argv[1:]
    for fn in SETS:
        if not only or fn.__name__ in only:
            fn()
    for t in sorted(os.listdir(OUT)):
        print(t, len(os.listdir(os.path.join(OUT, t))), file=sys.stderr)
