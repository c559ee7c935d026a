#!/bin/sh
# fio-loop.sh DEV: write DEV's first 4 MiB and read it back verified (crc32c headers with
# a new seed each pass, so stale data never passes), pass after pass, until /tmp/stop
# exists.  One line per pass in /tmp/fio-loop.log: "pass N rc=RC"; fio's output in
# /tmp/fio.N.out.  The lane takes a path down and up and changes ALUA states meanwhile:
# every pass must end with rc=0 (no I/O error, no verify error reached fio).
dev=$1
n=0
: > /tmp/fio-loop.log
while [ ! -e /tmp/stop ]; do
    n=$((n + 1))
    fio --name=pass$n --filename="$dev" --direct=1 --ioengine=libaio --iodepth=4 --bs=64k \
        --size=4m --rw=write --verify=crc32c --do_verify=1 --verify_fatal=1 --randrepeat=0 \
        > /tmp/fio.$n.out 2>&1
    echo "pass $n rc=$?" >> /tmp/fio-loop.log
done
echo "done" >> /tmp/fio-loop.log
