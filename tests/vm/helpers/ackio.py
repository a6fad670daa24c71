#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""ackio: a power-cut workload whose log says what was acknowledged.

  ackio.py write DIR LOG [SECONDS]   write until killed (or SECONDS)
  ackio.py verify DIR LOG...         check everything the logs acknowledged

The writer does two things, and appends a line to LOG only after the kernel
acknowledged the operation as durable:
  * O_DIRECT|O_DSYNC writes of 64 KiB records to random slots of DIR/slots
    (a preallocated 32 MiB file): "S <slot> <seq>"
  * new files DIR/f<seq> written buffered, fsync'd, directory fsync'd:
    "F <name> <sha256>"
Every 4 KiB chunk of a record carries (slot, seq, chunk) and a payload
derived from them, so the verifier can tell the acknowledged record, a newer
one written but not yet logged, possibly torn at 4 KiB (allowed), zeroes
where nothing was acknowledged (allowed), and anything else: stale,
misplaced or foreign data (a failure).

DIR/slots may be a symlink to a block device (its first 32 MiB are the
slots). Environment of the writer: ACKIO_FILES=0 writes no files;
ACKIO_EIO=1 counts writes that fail with EIO (never logged: not
acknowledged) and goes on, for runs that inject I/O errors.
"""
import errno
import hashlib
import mmap
import os
import random
import struct
import sys
import time

REC = 64 << 10
CHUNK = 4096  # a write may tear at this granularity on power loss
SLOTS = 512
MAGIC = b"ACKIO002"
HDR = struct.Struct("<8sQQQ")


def chunk(slot, seq, idx):
    seed = hashlib.sha256(struct.pack("<QQQ", slot, seq, idx)).digest()
    body = (seed * (CHUNK // len(seed)))[: CHUNK - HDR.size]
    return HDR.pack(MAGIC, slot, seq, idx) + body


def record(slot, seq):
    return b"".join(chunk(slot, seq, i) for i in range(REC // CHUNK))


def fsync_dir(d):
    fd = os.open(d, os.O_RDONLY | os.O_DIRECTORY)
    os.fsync(fd)
    os.close(fd)


def setup(d):
    path = os.path.join(d, "slots")
    if not os.path.exists(path):
        fd = os.open(path, os.O_CREAT | os.O_RDWR, 0o644)
        os.posix_fallocate(fd, 0, REC * SLOTS)
        os.fsync(fd)
        os.close(fd)
        fsync_dir(d)
    return path


def write(d, log, seconds):
    path = setup(d)
    fd = os.open(path, os.O_RDWR | os.O_DIRECT | os.O_DSYNC)
    logfd = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    buf = mmap.mmap(-1, REC)
    rng = random.Random(os.getpid() ^ int(time.time()))
    seq = int(time.time() * 1000) << 16  # grows across boots
    end = time.time() + seconds if seconds else None
    files = os.environ.get("ACKIO_FILES", "1") != "0"
    eio_ok = os.environ.get("ACKIO_EIO", "0") == "1"
    n = eio = 0
    while end is None or time.time() < end:
        seq += 1
        slot = rng.randrange(SLOTS)
        buf.seek(0)
        buf.write(record(slot, seq))
        try:
            os.pwritev(fd, [buf], slot * REC)
        except OSError as e:
            if not eio_ok or e.errno != errno.EIO:
                raise
            eio += 1
            continue
        os.write(logfd, b"S %d %d\n" % (slot, seq))
        n += 1
        if files and n % 16 == 0:
            name = "f%d" % seq
            data = os.urandom(rng.randrange(4096, 256 << 10))
            p = os.path.join(d, name)
            with open(p, "wb") as f:
                f.write(data)
                f.flush()
                os.fsync(f.fileno())
            fsync_dir(d)
            os.write(logfd, b"F %s %s\n" % (name.encode(), hashlib.sha256(data).hexdigest().encode()))
    print("ackio: %d acknowledged writes, %d failed with EIO" % (n, eio))


def verify(d, logs):
    acked = {}
    files = {}
    for log in logs:
        if not os.path.exists(log):
            continue
        with open(log) as f:
            for line in f:
                parts = line.split()
                if len(parts) != 3 or not line.endswith("\n"):
                    continue  # torn last line: its write was acked, not logged
                if parts[0] == "S":
                    slot, seq = int(parts[1]), int(parts[2])
                    acked[slot] = max(acked.get(slot, 0), seq)
                elif parts[0] == "F":
                    files[parts[1]] = parts[2]
    bad = 0
    path = os.path.join(d, "slots")
    with open(path, "rb") as f:
        for slot in range(SLOTS):
            f.seek(slot * REC)
            data = f.read(REC)
            want = acked.get(slot)
            # Each 4 KiB chunk: zeroes (only where nothing was acknowledged),
            # or a chunk of this slot's acknowledged record or of a newer,
            # unacknowledged one (a torn write); nothing else.
            for i in range(REC // CHUNK):
                c = data[i * CHUNK:(i + 1) * CHUNK]
                if c == b"\0" * CHUNK:
                    if want is not None:
                        print("slot %d chunk %d: zeroes, but seq %d was acknowledged" % (slot, i, want))
                        bad += 1
                    continue
                magic, s, seq, idx = HDR.unpack(c[: HDR.size])
                if magic != MAGIC or s != slot or idx != i or c != chunk(slot, seq, i):
                    print("slot %d chunk %d: garbage (magic %r, slot %d, seq %d, chunk %d)" % (slot, i, magic, s, seq, idx))
                    bad += 1
                elif want is not None and seq < want:
                    print("slot %d chunk %d: seq %d is older than acknowledged %d" % (slot, i, seq, want))
                    bad += 1
    for name, sha in files.items():
        p = os.path.join(d, name)
        try:
            with open(p, "rb") as f:
                got = hashlib.sha256(f.read()).hexdigest()
        except OSError as e:
            print("file %s: %s" % (name, e))
            bad += 1
            continue
        if got != sha:
            print("file %s: content differs from the acknowledged one" % name)
            bad += 1
    print("ackio: %d slots and %d files acknowledged, %d problems" % (len(acked), len(files), bad))
    return 1 if bad else 0


if __name__ == "__main__":
    if len(sys.argv) >= 4 and sys.argv[1] == "write":
        write(sys.argv[2], sys.argv[3], float(sys.argv[4]) if len(sys.argv) > 4 else 0)
    elif len(sys.argv) >= 4 and sys.argv[1] == "verify":
        sys.exit(verify(sys.argv[2], sys.argv[3:]))
    else:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
