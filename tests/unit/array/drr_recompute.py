#!/usr/bin/env python3
"""drr_recompute.py — recompute lunlab's capacity figures for image files,
independently of the C store, from the rules in docs/accounting.md.

Each image is taken as one volume of the array, written from offset 0 (its
final partial block reads as zero-padded); the volumes share one store, so a
snapshot, a clone or a copy is simply another image holding the same blocks.
Prints one "name value" line per figure; the ratios are integers x1000
(floor), 0 when the divisor is 0.

usage: drr_recompute.py IMAGE [IMAGE...] --block B --level L --wbits W --unit U
"""
import argparse
import hashlib
import sys
import zlib


def compressed_size(block, level, wbits):
    # Raw deflate (negative wbits), memLevel 8, default strategy, one
    # compress + flush: the accounting compressor of docs/accounting.md.
    c = zlib.compressobj(level, zlib.DEFLATED, -wbits, 8, zlib.Z_DEFAULT_STRATEGY)
    return len(c.compress(block) + c.flush(zlib.Z_FINISH))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('images', nargs='+')
    ap.add_argument('--block', type=int, required=True)
    ap.add_argument('--level', type=int, required=True)
    ap.add_argument('--wbits', type=int, required=True)
    ap.add_argument('--unit', type=int, required=True)
    a = ap.parse_args()
    B = a.block
    zero = bytes(B)
    refs = {}       # content digest -> number of mapped blocks holding it
    csize = {}      # content digest -> exact compressed size
    mapped = 0
    for image in a.images:
        with open(image, 'rb') as f:
            while True:
                blk = f.read(B)
                if not blk:
                    break
                blk = blk.ljust(B, b'\0')
                if blk == zero:
                    continue  # all-zero blocks are never mapped
                mapped += 1
                # A cryptographic digest as the key: no collision in practice,
                # and independent of the store's XXH3 + memcmp.
                d = hashlib.sha256(blk).digest()
                if d not in refs:
                    refs[d] = 0
                    csize[d] = compressed_size(blk, a.level, a.wbits)
                refs[d] += 1
    unique = len(refs)
    compressed = sum(csize.values())
    physical = sum(min(-(-c // a.unit) * a.unit, B) for c in csize.values())
    logical_bytes = mapped * B
    unique_bytes = unique * B

    def ratio(x, y):
        return x * 1000 // y if y else 0

    out = [
        ('logical_bytes', logical_bytes),
        ('unique_bytes', unique_bytes),
        ('physical_bytes', physical),
        ('compressed_bytes', compressed),
        ('unique_blocks', unique),
        ('mapped_blocks', mapped),
        ('single_ref_blocks', sum(1 for r in refs.values() if r == 1)),
        ('dedup_ratio_x1000', ratio(logical_bytes, unique_bytes)),
        ('compression_ratio_x1000', ratio(unique_bytes, physical)),
        ('data_reduction_ratio_x1000', ratio(logical_bytes, physical)),
    ]
    for k, v in out:
        print(k, v)
    return 0


if __name__ == '__main__':
    sys.exit(main())
