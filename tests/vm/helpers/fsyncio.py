#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Small-write fsync workload and a timed reader for the fault tests.

  fsyncio.py write DEV START_MIB LEN_MIB SECS LOG
      Until SECS pass: write a 4 KiB record (its index and a pattern) at
      the start of the next MiB of [START, START+LEN) MiB (wrapping; a MiB
      written before is discarded first), fsync the device, log
      "<index> <ms> <ok|errnoN>" per record to LOG (ms: write, discard
      and fsync). With extents of 1 MiB each record is a first write to a
      fresh extent, so each fsync commits the map. Exit 0 unless a write,
      discard or fsync failed.
  fsyncio.py verify DEV START_MIB LEN_MIB LOG
      Every record LOG says was fsynced reads back (the newest write of its
      slot). Exit 0 when all do.
  fsyncio.py write DIR 0 0 SECS LOG / fsyncio.py verify DIR 0 0 LOG
      The same on a filesystem: DIR is a directory, and each record is a
      new small file DIR/rNNNNNN (created, written, fsynced, closed), so
      each fsync places a new file; a record starts every 40 ms at most
      (a steady job, not a benchmark: the files stay a few thousand, quick
      to check). verify reads every fsynced file back.
  fsyncio.py read DEV START_MIB LEN_MIB SECS LOG
      Until SECS pass: O_DIRECT reads of 1 MiB across the range; log
      "<start, wall-clock ms> <read_ms> <ok|errnoN>" per read. Exit 0.
"""
import fcntl
import mmap
import os
import struct
import sys
import time

REC = 4096
STEP = 1 << 20
BLKDISCARD = 0x1277
DIR_PACE = 0.04


def now_ms():
    return int(time.monotonic() * 1000)


def record(i):
    head = b"fsyncio %012d\n" % i
    return head + bytes([(i * 7 + k) & 0xFF for k in range(REC - len(head))])


def slots(start, length):
    return length // STEP, start


def rec_path(d, i):
    return os.path.join(d, "r%06d" % i)


def timed_writes(secs, log, write_one, pace=0.0):
    """Call write_one(i) for i = 0, 1, ... for secs seconds, at most one per
    pace seconds; log "i ms result" per call. Return 1 if any call failed."""
    end = time.monotonic() + secs
    i = 0
    bad = 0
    with open(log, "w") as out:
        while time.monotonic() < end:
            t0 = now_ms()
            nxt = time.monotonic() + pace
            try:
                write_one(i)
                res = "ok"
            except OSError as e:
                res = "errno%d" % e.errno
                bad += 1
            out.write("%d %d %s\n" % (i, now_ms() - t0, res))
            out.flush()
            i += 1
            time.sleep(max(0.0, nxt - time.monotonic()))
    return 1 if bad else 0


def do_write_dir(d, secs, log):
    def write_one(i):
        fd = os.open(rec_path(d, i), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        try:
            os.write(fd, record(i))
            os.fsync(fd)
        finally:
            os.close(fd)

    return timed_writes(secs, log, write_one, DIR_PACE)


def do_verify_dir(d, log):
    bad = 0
    n = 0
    for line in open(log):
        i, _, res = line.split()
        if res != "ok":
            continue
        i = int(i)
        n += 1
        try:
            with open(rec_path(d, i), "rb") as f:
                got = f.read()
        except OSError as e:
            got = b"errno%d" % e.errno
        if got != record(i):
            print("file %s: record %d does not read back: %r" % (rec_path(d, i), i, got[:24]))
            bad += 1
    print("verify: %d fsynced files, %d bad" % (n, bad))
    return 1 if bad else 0


def do_write(dev, start, length, secs, log):
    if os.path.isdir(dev):
        return do_write_dir(dev, secs, log)
    n, base = slots(start, length)
    fd = os.open(dev, os.O_RDWR)

    def write_one(i):
        off = base + (i % n) * STEP
        if i >= n:
            fcntl.ioctl(fd, BLKDISCARD, struct.pack("QQ", off, STEP))
        os.pwrite(fd, record(i), off)
        os.fsync(fd)

    try:
        return timed_writes(secs, log, write_one)
    finally:
        os.close(fd)


def do_verify(dev, start, length, log):
    if os.path.isdir(dev):
        return do_verify_dir(dev, log)
    n, base = slots(start, length)
    newest = {}
    for line in open(log):
        i, _, res = line.split()
        i = int(i)
        if res == "ok":
            newest[i % n] = i
    fd = os.open(dev, os.O_RDONLY)
    bad = 0
    for slot, i in sorted(newest.items()):
        got = os.pread(fd, REC, base + slot * STEP)
        if got != record(i):
            print("slot %d: record %d does not read back: %r" % (slot, i, got[:24]))
            bad += 1
    os.close(fd)
    print("verify: %d fsynced records, %d bad" % (len(newest), bad))
    return 1 if bad else 0


def do_read(dev, start, length, secs, log):
    fd = os.open(dev, os.O_RDONLY | os.O_DIRECT)
    buf = mmap.mmap(-1, 1 << 20)
    end = time.monotonic() + secs
    mib = 0
    with open(log, "w") as out:
        while time.monotonic() < end:
            wall = int(time.time() * 1000)
            t0 = now_ms()
            try:
                os.preadv(fd, [buf], start + (mib % (length >> 20)) * (1 << 20))
                res = "ok"
            except OSError as e:
                res = "errno%d" % e.errno
                time.sleep(0.05)
            out.write("%d %d %s\n" % (wall, now_ms() - t0, res))
            out.flush()
            mib += 1
    os.close(fd)
    return 0


def main(argv):
    cmd, dev = argv[1], argv[2]
    start, length = int(argv[3]) << 20, int(argv[4]) << 20
    if cmd == "write":
        return do_write(dev, start, length, float(argv[5]), argv[6])
    if cmd == "verify":
        return do_verify(dev, start, length, argv[5])
    if cmd == "read":
        return do_read(dev, start, length, float(argv[5]), argv[6])
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
