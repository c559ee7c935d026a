#!/usr/bin/env python3
"""make_seeds.py — writes the seed corpora of the fuzz targets
(tests/fuzz/corpus/<target>/).  Every seed is a valid input built by hand from
the standards (RFC 7143 PDUs, SBC/SPC CDBs and parameter lists, the profile
format of models/profiles), so the fuzzers start from deep inside each parser.
Run from anywhere: python3 tests/fuzz/make_seeds.py.  The output is committed;
rerun only when a format changes."""
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
    write(t, "compare-and-write", cdb(0x89, 0, *[0] * 7, 8, 0, 0, 0, 0, 1, 0) + b"\0" * 1024)
    write(t, "unmap", cdb(0x42, 0, 0, 0, 0, 0, 0, 0, 24, 0) + unmap_list([(0, 8)]))
    write(t, "mode-sense10-all", cdb(0x5a, 0, 0x3f, 0, 0, 0, 0, 0x01, 0, 0) + b"\0" * 256)
    write(t, "mode-select10-caching", cdb(0x55, 0x10, 0, 0, 0, 0, 0, 0, 28, 0) + b"\0" * 8 + caching_page(True))
    write(t, "log-sense", cdb(0x4d, 0, 0x40, 0, 0, 0, 0, 0x01, 0, 0) + b"\0" * 256)
    write(t, "rsoc-all", cdb(0xa3, 0x0c, 0, 0, 0, 0, 0, 0, 0x10, 0, 0, 0) + b"\0" * 4096)
    write(t, "get-lba-status", cdb(0x9e, 0x12, *[0] * 8, 0, 0, 0x01, 0, 0, 0) + b"\0" * 256)
    write(t, "sync-cache10", cdb(0x35, 0, 0, 0, 0, 0, 0, 0, 0, 0))
    write(t, "verify16-bytchk", cdb(0x8f, 0x02, *[0] * 7, 8, 0, 0, 0, 1, 0, 0) + b"\0" * 512)
    write(t, "request-sense", cdb(0x03, 0, 0, 0, 18, 0) + b"\0" * 18)
    write(t, "receive-copy-results", cdb(0x84, 0x03, *[0] * 8, 0, 0, 1, 0, 0, 0) + b"\0" * 256)

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


# ---------------------------------------------------------------- profiles
def profile_seeds():
    d = os.path.join(ROOT, "models", "profiles")
    for f in sorted(os.listdir(d)):
        if f.endswith(".yaml"):
            with open(os.path.join(d, f), "rb") as fh:
                write("fuzz-profile-parse", f[:-5], fh.read())


if __name__ == "__main__":
    iscsi_seeds()
    scsi_seeds()
    profile_seeds()
    for t in sorted(os.listdir(OUT)):
        print(t, len(os.listdir(os.path.join(OUT, t))), file=sys.stderr)
