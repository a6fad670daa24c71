#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""report.py: the numbers of tools/bench/run, from its raw results.

  report.py p99 LOG T0_MS T1_MS WARMUP_MS
      p99 completion latency (us) of a fio clat log written with
      --log_unix_epoch=1: the samples before T0 (skipping the first
      WARMUP_MS) are "idle", those completed in [T0, T1] "drain". Prints
      key=value lines for the facts file.
  report.py table RAWDIR OUTDIR...
      reads RAWDIR/facts (key=value lines) and RAWDIR/*.json (fio
      --output-format=json), writes results.json and table.txt to each
      OUTDIR and prints the table.
  report.py summary OUTDIR RUNDIR...
      the targets of several runs (RUNDIR/results.json): each run's value,
      the spread, and "met" only when every run met it; writes
      summary.txt and summary.json to OUTDIR and prints the table.

Informational only: the targets are marked met / not met, never asserted
(issue 17's P1, P1b, P2, P4, P5, P5b, P2b, P9, P8); part 6 (memory tier reads) has
no target; part 7
is P5b (fsync p99 of tier-0 writes under a drain, tier 1 slow, vs idle), part 8
P2b (4 KiB random writes, fsync every 32, on XFS, vs dm-linear), part 9 P9
(a commit's cost on a 15 TiB device vs a 16 GiB one; the first after activation),
part 10 P8 (a burst of 3x tier 0 to its fsync vs dm-writecache, the slow drive
throttled; also against the physical bound max(B/hot, (B-T0)/cold)).
"""
import json
import math
import os
import sys

# Targets from the issue (migration engine): a burst into dm-tier while tier 0
# has room runs at >= 0.97x dm-linear on the hot drive and not below
# dm-writecache; 4K QD1 p99 read latency on tier-0 data while a drain runs is
# at most 1.5x the idle p99.
TARGET_BURST_LINEAR = 0.97
TARGET_BURST_WRITECACHE = 1.0
TARGET_P99_DRAIN = 1.5
TARGET_FSYNC_DRAIN = 2.0
TARGET_RANDREAD = 0.95
TARGET_DRAIN_RAW = 0.8
TARGET_CKPT_LINEAR = 0.95
TARGET_SMALL_WRITES = 0.9
TARGET_COMMIT_SIZE = 1.2
TARGET_FIRST_COMMIT = 1.0
TARGET_SPILL_WRITECACHE = 0.6


def percentile(values, pct):
    if not values:
        return None
    values = sorted(values)
    k = max(0, math.ceil(pct / 100.0 * len(values)) - 1)
    return values[k]


def cmd_p99(log, t0, t1, warmup):
    t0, t1, warmup = int(t0), int(t1), int(warmup)
    idle, drain, first = [], [], None
    with open(log) as f:
        for line in f:
            parts = line.split(",")
            if len(parts) < 2:
                continue
            try:
                ts, lat = int(parts[0]), int(parts[1])
            except ValueError:
                continue
            if first is None:
                first = ts
            if ts < t0:
                if ts >= first + warmup:
                    idle.append(lat)
            elif ts <= t1:
                drain.append(lat)
    for name, v in (("idle", idle), ("drain", drain)):
        p = percentile(v, 99)
        print("p99_%s_us=%s" % (name, "" if p is None else "%.1f" % (p / 1000.0)))
        print("samples_%s=%d" % (name, len(v)))


def load_facts(rawdir):
    facts = {}
    try:
        with open(os.path.join(rawdir, "facts")) as f:
            for line in f:
                line = line.rstrip("\n")
                if "=" in line:
                    k, v = line.split("=", 1)
                    facts[k] = v
    except OSError:
        pass
    return facts


def load_fio(rawdir, name):
    """The first job of a fio JSON output (text before the first '{', such as
    'fio: terminating on signal 2', is skipped), or None."""
    try:
        with open(os.path.join(rawdir, name + ".json")) as f:
            text = f.read()
        return json.loads(text[text.index("{"):])["jobs"][0]
    except (OSError, ValueError, KeyError, IndexError):
        return None


def fnum(facts, key):
    """A number of the facts file (int when integral), or None."""
    try:
        v = facts[key]
        return int(v) if v.lstrip("-").isdigit() else float(v)
    except (KeyError, ValueError):
        return None


def ratio(a, b):
    if a is None or b is None or b == 0:
        return None
    return a / b


def mibs(job, ddir):
    if job is None or job[ddir]["io_bytes"] == 0:
        return None
    return job[ddir]["bw_bytes"] / float(1 << 20)


def each_burst(rawdir, stem, value):
    """value(NAME) of each repeated measurement: NAME is STEM, then STEM-2,
    STEM-3... while RAWDIR/NAME.json exists; Nones left out."""
    out, k = [], 1
    while True:
        name = stem if k == 1 else "%s-%d" % (stem, k)
        if not os.path.exists(os.path.join(rawdir, name + ".json")):
            return out
        v = value(name)
        if v is not None:
            out.append(v)
        k += 1


def burst_mibs(rawdir, name):
    """MiB/s of each part 1 burst into NAME (seqw-NAME*.json)."""
    return each_burst(rawdir, "seqw-" + name, lambda n: mibs(load_fio(rawdir, n), "write"))


def read_iops(rawdir, name):
    """IOPS of each part 2 run on NAME (randr-NAME*.json)."""
    return each_burst(rawdir, "randr-" + name, lambda n: iops(load_fio(rawdir, n), "read"))


def ints(text):
    """The integers of a space-separated fact."""
    return [int(x) for x in text.split() if x.lstrip("-").isdigit()]


def median(xs):
    """The median of a list (the mean of the middle two when even), or None."""
    if not xs:
        return None
    s = sorted(xs)
    n = len(s)
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2.0


def iops(job, ddir):
    if job is None or job[ddir]["io_bytes"] == 0:
        return None
    return job[ddir]["iops"]


def sync_p99_us(job):
    """p99 of the fsync latencies of a fio job run with --fsync=1 (its
    "sync" section), in microseconds, or None."""
    try:
        lat = job["sync"]["lat_ns"]
        if not lat.get("N", 1):
            return None
        return lat["percentile"]["99.000000"] / 1000.0
    except (TypeError, KeyError):
        return None


def sync_count(job):
    try:
        return job["sync"]["lat_ns"]["N"]
    except (TypeError, KeyError):
        return None


def load_json(rawdir, name):
    """A JSON object file of RAWDIR (ckpt --json output), or None."""
    try:
        with open(os.path.join(rawdir, name + ".json")) as f:
            text = f.read()
        return json.loads(text[text.index("{"):])
    except (OSError, ValueError):
        return None


def ckpt_mibs(rawdir, name):
    j = load_json(rawdir, "ckpt-" + name)
    if j is None or j.get("errors") or not j.get("bytes"):
        return None
    return j.get("mib_per_s")


def ckpt_bursts_mibs(rawdir, name):
    """MiB/s of each part 5 burst into NAME (ckpt-NAME*.json)."""
    return each_burst(rawdir, "ckpt-" + name, lambda n: ckpt_mibs(rawdir, n[len("ckpt-"):]))


def mean(values):
    values = [v for v in values if v is not None]
    return sum(values) / len(values) if values else None


def mem_fields(text):
    """The memory tier's status fields recorded by part 6, as a dict."""
    keys = ("node", "bytes_max", "bytes_used", "copies", "hits", "misses",
            "fills", "evictions", "invalidations")
    if not text or text == "none":
        return None
    vals = text.split()
    if len(vals) != len(keys):
        return None
    out = {}
    for k, v in zip(keys, vals):
        out[k] = int(v) if v.isdigit() else v
    return out


def build_mem_read(rawdir, facts):
    passes = fnum(facts, "mr_passes") or 0
    warm = fnum(facts, "mr_warmup") or 0
    per = {}
    for v in ("mem", "nomem"):
        per[v] = [mibs(load_fio(rawdir, "mr-%s-%d" % (v, i)), "read")
                  for i in range(1, passes + 1)]
    mr = {
        "file_mib": fnum(facts, "mr_file_mib"),
        "passes": passes,
        "warmup_passes": warm,
        "mem_tier_mib": fnum(facts, "mr_mem_mib"),
        "numa_node": facts.get("numa_node") or None,
        "mem_pass_mibs": per["mem"],
        "nomem_pass_mibs": per["nomem"],
        "mem_mibs": mean(per["mem"][warm:]),
        "nomem_mibs": mean(per["nomem"][warm:]),
        "nomem_cold_mapped": fnum(facts, "mr_nomem_cold_mapped"),
        "mem_cold_mapped": fnum(facts, "mr_mem_cold_mapped"),
    }
    mr["ratio_mem_nomem"] = ratio(mr["mem_mibs"], mr["nomem_mibs"])
    before = mem_fields(facts.get("mr_mem_before"))
    after = mem_fields(facts.get("mr_mem_after"))
    mr["mem_status_after"] = after
    mr["hit_ratio"] = mr["hit_ratio_total"] = None
    if before and after:
        h = after["hits"] - before["hits"]
        m = after["misses"] - before["misses"]
        mr["hit_ratio"] = h / float(h + m) if h + m else None
    if after and after["hits"] + after["misses"]:
        mr["hit_ratio_total"] = after["hits"] / float(after["hits"] + after["misses"])
    mr["available"] = mr["mem_mibs"] is not None
    if not mr["available"]:
        mr["reason"] = facts.get("mem_error", "memory tier not measured")
    return mr


def build(rawdir):
    facts = load_facts(rawdir)
    quick = facts.get("quick") == "1"
    migrate_ok = facts.get("migrate_available") == "1"
    no_migrate = facts.get("migrate_error", "the module has no 'migrate' message")

    seq = {
        "tier_bursts_mibs": burst_mibs(rawdir, "tier"),
        "linear_bursts_mibs": burst_mibs(rawdir, "linear"),
        "writecache_mibs": mibs(load_fio(rawdir, "seqw-writecache"), "write"),
        "tier0_extents_after": fnum(facts, "burst_tier0_used"),
        "tier1_extents_after": fnum(facts, "burst_tier1_used"),
    }
    seq["tier_mibs"] = median(seq["tier_bursts_mibs"])
    seq["linear_mibs"] = median(seq["linear_bursts_mibs"])
    seq["ratio_tier_linear"] = ratio(seq["tier_mibs"], seq["linear_mibs"])
    seq["ratio_tier_writecache"] = ratio(seq["tier_mibs"], seq["writecache_mibs"])
    seq["all_on_tier0"] = (None if seq["tier1_extents_after"] is None
                           else seq["tier1_extents_after"] == 0)

    rr = {
        "tier_runs_iops": read_iops(rawdir, "tier"),
        "linear_runs_iops": read_iops(rawdir, "linear"),
    }
    rr["tier_iops"] = median(rr["tier_runs_iops"])
    rr["linear_iops"] = median(rr["linear_runs_iops"])
    rr["ratio_tier_linear"] = ratio(rr["tier_iops"], rr["linear_iops"])

    lat = {
        "available": migrate_ok and fnum(facts, "p99_drain_us") is not None,
        "p99_idle_us": fnum(facts, "p99_idle_us"),
        "p99_drain_us": fnum(facts, "p99_drain_us"),
        "samples_idle": fnum(facts, "samples_idle"),
        "samples_drain": fnum(facts, "samples_drain"),
        "p99_refcopy_us": fnum(facts, "p99_refcopy_us"),
        "samples_refcopy": fnum(facts, "samples_refcopy"),
        "refcopy_kibs": fnum(facts, "lat_refcopy_kibs"),
        "drain_ms": fnum(facts, "lat_drain_ms"),
        "drain_bytes": fnum(facts, "lat_drain_bytes"),
        "paces": facts.get("lat_drain_paces", "").split(),
    }
    lat["ratio_drain_idle"] = ratio(lat["p99_drain_us"], lat["p99_idle_us"])
    lat["ratio_refcopy_idle"] = ratio(lat["p99_refcopy_us"], lat["p99_idle_us"])
    if not migrate_ok:
        lat["reason"] = no_migrate
    elif not lat["available"]:
        lat["reason"] = facts.get("lat_error", "no drain samples")

    bw = {
        "available": migrate_ok and fnum(facts, "drain_ms") is not None,
        "bytes": fnum(facts, "drain_bytes"),
        "ms": fnum(facts, "drain_ms"),
        "extents": fnum(facts, "drain_extents"),
        "errors": fnum(facts, "drain_errors"),
        "paces": facts.get("drain_paces", "").split(),
        "tier1_mapped_after": fnum(facts, "drain_tier1_mapped"),
        "raw_copy_bytes": fnum(facts, "raw_bytes"),
        # Both sides without their command's start: dd's measured apart
        # and taken off (raw_net_ms), tierctl's left out of elapsed_ms
        # (drain_ms). Medians of a few; every one in the *_all facts.
        "raw_copy_ms": fnum(facts, "raw_net_ms"),
        "raw_copy_all_ms": ints(facts.get("raw_net_ms_all", "")),
        "raw_start_all_ms": ints(facts.get("raw_start_ms_all", "")),
        "all_ms": ints(facts.get("drain_ms_all", "")),
        "wall_ms": fnum(facts, "drain_wall_ms"),
    }
    if bw["raw_copy_ms"] is None and fnum(facts, "raw_ms") is not None:
        # A run of the bench before the medians: one copy, its start apart.
        bw["raw_copy_ms"] = fnum(facts, "raw_ms") - (fnum(facts, "raw_start_ms") or 0)
    bw["mibs"] = (bw["bytes"] / float(1 << 20) / (bw["ms"] / 1000.0)
                  if bw["available"] and bw["ms"] and bw["bytes"] else None)
    bw["raw_copy_mibs"] = (bw["raw_copy_bytes"] / float(1 << 20) / (bw["raw_copy_ms"] / 1000.0)
                           if bw["raw_copy_ms"] and bw["raw_copy_bytes"] else None)
    bw["ratio_drain_raw"] = ratio(bw["mibs"], bw["raw_copy_mibs"])
    if not migrate_ok:
        bw["reason"] = no_migrate
    elif not bw["available"]:
        bw["reason"] = facts.get("drain_error", "drain not measured")

    ck = {
        "files": fnum(facts, "ckpt_files"),
        "file_mib": fnum(facts, "ckpt_file_mib"),
        "tier_bursts_mibs": ckpt_bursts_mibs(rawdir, "tier"),
        "linear_bursts_mibs": ckpt_bursts_mibs(rawdir, "linear"),
        "writecache_mibs": ckpt_mibs(rawdir, "writecache"),
        "tier1_extents_after": fnum(facts, "ckpt_tier1_used"),
    }
    ck["tier_mibs"] = median(ck["tier_bursts_mibs"])
    ck["linear_mibs"] = median(ck["linear_bursts_mibs"])
    ck["ratio_tier_linear"] = ratio(ck["tier_mibs"], ck["linear_mibs"])
    ck["ratio_tier_writecache"] = ratio(ck["tier_mibs"], ck["writecache_mibs"])

    mr = build_mem_read(rawdir, facts)

    idle, drain = load_fio(rawdir, "p5b-idle"), load_fio(rawdir, "p5b-drain")
    fs = {
        "p99_idle_us": sync_p99_us(idle),
        "p99_drain_us": sync_p99_us(drain),
        "fsyncs_idle": sync_count(idle),
        "fsyncs_drain": sync_count(drain),
        "drain_ms": fnum(facts, "p5b_drain_ms"),
        "commits": fnum(facts, "p5b_commits"),
    }
    sw = {
        "tier_iops": iops(load_fio(rawdir, "p2b-tier"), "write"),
        "linear_iops": iops(load_fio(rawdir, "p2b-linear"), "write"),
    }
    sw["ratio_tier_linear"] = ratio(sw["tier_iops"], sw["linear_iops"])
    cc = {v: {"extents": fnum(facts, "p9_%s_extents" % v),
              "commit_ms": fnum(facts, "p9_%s_commit_ms" % v),
              "first_commit_ms": fnum(facts, "p9_%s_first_commit_ms" % v),
              "first_commit_sectors": fnum(facts, "p9_%s_first_commit_sectors" % v),
              "sectors_per_commit": fnum(facts, "p9_%s_sectors_per_commit" % v),
              "activate_ms": fnum(facts, "p9_%s_activate_ms" % v),
              "commit_us": fnum(facts, "p9_%s_commit_us" % v),
              "first_commit_us": fnum(facts, "p9_%s_first_commit_us" % v)}
          for v in ("small", "big")}
    # The module's own measure of its commits when it reports one: the
    # wall time around `dmsetup message` is mostly dmsetup's start (about
    # 100 ms under TCG, on both sides), whose noise hid the commit's.
    cc["measured_by"] = ("module" if cc["big"]["commit_us"] is not None and
                         cc["small"]["commit_us"] is not None else "wall")
    key = "commit_us" if cc["measured_by"] == "module" else "commit_ms"
    cc["ratio_big_small"] = ratio(cc["big"][key], cc["small"][key])
    cc["ratio_big_small_wall"] = ratio(cc["big"]["commit_ms"], cc["small"]["commit_ms"])
    if cc["big"]["first_commit_us"] is not None and cc["big"]["commit_us"] is not None:
        cc["ratio_first_normal"] = ratio(cc["big"]["first_commit_us"], cc["big"]["commit_us"])
    else:
        cc["ratio_first_normal"] = ratio(cc["big"]["first_commit_ms"], cc["big"]["commit_ms"])
    # What the first commit costs beyond a normal one is metadata written
    # (a rewrite of the whole inactive map copy); its time is a median of a
    # few ~100 ms samples whose spread is wider than any difference, so it
    # is shown beside the sectors, which decide the target.
    cc["ratio_first_sectors"] = ratio(cc["big"]["first_commit_sectors"],
                                      cc["big"]["sectors_per_commit"])
    if "p9_error" in facts:
        cc["reason"] = facts["p9_error"]
    sp = {
        "t0_mib": fnum(facts, "p8_t0_mib"),
        "burst_mib": fnum(facts, "p8_burst_mib"),
        "cold_mbps_limit": fnum(facts, "p8_cold_mbps"),
        "hot_mibs": mibs(load_fio(rawdir, "p8-rawhot"), "write"),
        "cold_mibs": mibs(load_fio(rawdir, "p8-rawcold"), "write"),
        "tier_ms": fnum(facts, "p8_tier_ms"),
        "writecache_ms": fnum(facts, "p8_writecache_ms"),
        "tier0_used_after": fnum(facts, "p8_tier0_used"),
        "tier1_used_after": fnum(facts, "p8_tier1_used"),
    }
    sp["bound_ms"] = None
    if None not in (sp["t0_mib"], sp["burst_mib"]) and sp["hot_mibs"] and sp["cold_mibs"]:
        sp["bound_ms"] = 1000.0 * max(sp["burst_mib"] / sp["hot_mibs"],
                                      (sp["burst_mib"] - sp["t0_mib"]) / sp["cold_mibs"])
    sp["ratio_tier_writecache"] = ratio(sp["tier_ms"], sp["writecache_ms"])
    sp["ratio_tier_bound"] = ratio(sp["tier_ms"], sp["bound_ms"])
    sp["ratio_writecache_bound"] = ratio(sp["writecache_ms"], sp["bound_ms"])
    fs["ratio_drain_idle"] = ratio(fs["p99_drain_us"], fs["p99_idle_us"])
    fs["available"] = fs["ratio_drain_idle"] is not None and "p5b_error" not in facts
    if not fs["available"]:
        fs["reason"] = facts.get("p5b_error", "part 7 did not run or fio reported no fsync")

    def target(name, value, op, limit):
        met = None
        if value is not None:
            met = value >= limit if op == ">=" else value <= limit
        return {"name": name, "value": value, "target": "%s %.2f" % (op, limit),
                "met": met}

    targets = [
        target("burst: dm-tier / dm-linear", seq["ratio_tier_linear"], ">=",
               TARGET_BURST_LINEAR),
        target("burst: dm-tier / dm-writecache", seq["ratio_tier_writecache"], ">=",
               TARGET_BURST_WRITECACHE),
        target("ckpt on XFS: dm-tier / dm-linear", ck["ratio_tier_linear"], ">=",
               TARGET_CKPT_LINEAR),
        target("rand read 4K on tier 0: dm-tier / dm-linear", rr["ratio_tier_linear"], ">=",
               TARGET_RANDREAD),
        target("drain / raw copy", bw["ratio_drain_raw"] if bw["available"] else None,
               ">=", TARGET_DRAIN_RAW),
        target("p99 read under drain / idle", lat["ratio_drain_idle"]
               if lat["available"] else None, "<=", TARGET_P99_DRAIN),
        target("p99 fsync under drain / idle", fs["ratio_drain_idle"]
               if fs["available"] else None, "<=", TARGET_FSYNC_DRAIN),
        target("small fsync'd writes on XFS: dm-tier / dm-linear", sw["ratio_tier_linear"],
               ">=", TARGET_SMALL_WRITES),
        target("commit: 15 TiB device / 16 GiB device", cc["ratio_big_small"], "<=",
               TARGET_COMMIT_SIZE),
        target("first commit after activation / a normal one, metadata sectors",
               cc["ratio_first_sectors"], "<=", TARGET_FIRST_COMMIT),
        target("burst of 3x tier 0 to fsync: dm-tier / dm-writecache",
               sp["ratio_tier_writecache"], "<=", TARGET_SPILL_WRITECACHE),
    ]
    return {
        "bench": "dm-tier tools/bench",
        "format": 1,
        "date": facts.get("date"),
        "kernel": facts.get("kernel"),
        "accel": facts.get("accel"),
        "quick": quick,
        "config": {
            "hot_drive_bytes": fnum(facts, "hot_bytes"),
            "cold_drive_bytes": fnum(facts, "cold_bytes"),
            "burst_mib": fnum(facts, "burst_mib"),
            "drain_mib": fnum(facts, "drain_mib"),
            "randread_seconds": fnum(facts, "randread_s"),
            "randread_runs": fnum(facts, "randread_n"),
            "idle_seconds": fnum(facts, "idle_s"),
            "auto_migrate_off": facts.get("auto_migrate_off") == "1",
            "hot_max_sectors_kb": fnum(facts, "hot_max_sectors_kb"),
            "module_srcversion": facts.get("module_srcversion"),
        },
        "complete": facts.get("complete") == "1",
        "overlap": facts.get("overlap"),
        "error": facts.get("error"),
        "seq_write": seq,
        "rand_read": rr,
        "drain_latency": lat,
        "drain_bandwidth": bw,
        "ckpt_burst": ck,
        "mem_read": mr,
        "fsync_latency": fs,
        "small_writes": sw,
        "commit_cost": cc,
        "spill_burst": sp,
        "targets": targets,
    }


def fmt(v, digits=1):
    if v is None:
        return "n/a"
    return "%.*f" % (digits, v)


def table(r):
    s, rr, lat, bw = r["seq_write"], r["rand_read"], r["drain_latency"], r["drain_bandwidth"]
    t = {x["name"]: x for x in r["targets"]}

    def verdict(name):
        m = t[name]["met"]
        return "n/a" if m is None else ("met" if m else "NOT MET")

    c = r["config"]
    lines = [
        "dm-tier bench: kernel %s, %s, %s; burst %s MiB, drains %s MiB%s" % (
            r["kernel"] or "?", (r["accel"] or "?").upper(),
            "quick" if r["quick"] else "full", fmt(c["burst_mib"], 0),
            fmt(c["drain_mib"], 0),
            "" if r["complete"] else "; INCOMPLETE: %s" % (r["error"] or "the bench stopped early")),
        "",
        "%-2s %-38s %12s  %-26s %6s  %-8s %s" % (
            "#", "measurement", "dm-tier", "reference", "ratio", "target", "result"),
    ]

    def row(part, what, val, ref, rat, tgt="-", res="-"):
        lines.append("%-2s %-38s %12s  %-26s %6s  %-8s %s" % (part, what, val, ref, rat, tgt, res))

    row("1", "seq write 1M QD32, MiB/s", fmt(s["tier_mibs"]),
        "dm-linear %s" % fmt(s["linear_mibs"]), fmt(s["ratio_tier_linear"], 2),
        ">= %.2f" % TARGET_BURST_LINEAR, verdict("burst: dm-tier / dm-linear"))
    row("1", "", "", "dm-writecache %s" % fmt(s["writecache_mibs"]),
        fmt(s["ratio_tier_writecache"], 2), ">= %.2f" % TARGET_BURST_WRITECACHE,
        verdict("burst: dm-tier / dm-writecache"))
    row("2", "rand read 4K QD16 on tier 0, IOPS", fmt(rr["tier_iops"], 0),
        "dm-linear %s" % fmt(rr["linear_iops"], 0), fmt(rr["ratio_tier_linear"], 2),
        ">= %.2f" % TARGET_RANDREAD, verdict("rand read 4K on tier 0: dm-tier / dm-linear"))
    if lat["available"]:
        row("3", "rand read 4K QD1 p99 under drain, us", fmt(lat["p99_drain_us"]),
            "idle %s" % fmt(lat["p99_idle_us"]), fmt(lat["ratio_drain_idle"], 2),
            "<= %.2f" % TARGET_P99_DRAIN, verdict("p99 read under drain / idle"))
        if lat["p99_refcopy_us"] is not None:
            row("3", "", "", "raw copy at its rate %s" % fmt(lat["p99_refcopy_us"]),
                fmt(lat["ratio_refcopy_idle"], 2), "-", "info")
    else:
        row("3", "rand read 4K QD1 p99 under drain, us", "n/a",
            "idle %s" % fmt(lat["p99_idle_us"]), "n/a", "<= %.2f" % TARGET_P99_DRAIN,
            "not available")
    if bw["available"]:
        row("4", "drain to tier 1, MiB/s", fmt(bw["mibs"]),
            "raw dd copy %s" % fmt(bw["raw_copy_mibs"]), fmt(bw["ratio_drain_raw"], 2),
            ">= %.2f" % TARGET_DRAIN_RAW, verdict("drain / raw copy"))
    else:
        row("4", "drain to tier 1, MiB/s", "n/a",
            "raw dd copy %s" % fmt(bw["raw_copy_mibs"]), "n/a", ">= %.2f" % TARGET_DRAIN_RAW,
            "not available")
    ck, mr = r.get("ckpt_burst"), r.get("mem_read")
    if ck:
        what = "ckpt write %sx%s MiB QD16 on XFS, MiB/s" % (fmt(ck["files"], 0),
                                                          fmt(ck["file_mib"], 0))
        row("5", what, fmt(ck["tier_mibs"]), "dm-linear %s" % fmt(ck["linear_mibs"]),
            fmt(ck["ratio_tier_linear"], 2), ">= %.2f" % TARGET_CKPT_LINEAR,
            verdict("ckpt on XFS: dm-tier / dm-linear"))
        row("5", "", "", "dm-writecache %s" % fmt(ck["writecache_mibs"]),
            fmt(ck["ratio_tier_writecache"], 2), "-", "info")
    if mr:
        what = "cold file reads 1M QD16 x%s, MiB/s" % fmt(mr["passes"] - mr["warmup_passes"], 0)
        if mr["available"]:
            row("6", what, fmt(mr["mem_mibs"]), "no mem tier %s" % fmt(mr["nomem_mibs"]),
                fmt(mr["ratio_mem_nomem"], 2), "-", "info")
        else:
            row("6", what, "n/a", "no mem tier %s" % fmt(mr["nomem_mibs"]), "n/a", "-",
                "not available")
    fs = r.get("fsync_latency")
    if fs:
        row("7", "fsync 4K on tier 0 p99 under drain, us",
            fmt(fs["p99_drain_us"]) if fs["available"] else "n/a",
            "idle %s" % fmt(fs["p99_idle_us"]),
            fmt(fs["ratio_drain_idle"], 2) if fs["available"] else "n/a",
            "<= %.2f" % TARGET_FSYNC_DRAIN,
            verdict("p99 fsync under drain / idle") if fs["available"] else "not available")
    sw = r.get("small_writes")
    if sw:
        row("8", "4K rand write, fsync/32, XFS, IOPS", fmt(sw["tier_iops"], 0),
            "dm-linear %s" % fmt(sw["linear_iops"], 0), fmt(sw["ratio_tier_linear"], 2),
            ">= %.2f" % TARGET_SMALL_WRITES,
            verdict("small fsync'd writes on XFS: dm-tier / dm-linear"))
    cc = r.get("commit_cost")
    if cc and cc.get("measured_by") == "module":
        row("9", "commit, one new extent, 15 TiB dev, us", fmt(cc["big"]["commit_us"], 0),
            "16 GiB dev %s" % fmt(cc["small"]["commit_us"], 0), fmt(cc["ratio_big_small"], 2),
            "<= %.2f" % TARGET_COMMIT_SIZE, verdict("commit: 15 TiB device / 16 GiB device"))
        row("9", "the same, wall time with dmsetup, ms", fmt(cc["big"]["commit_ms"], 0),
            "16 GiB dev %s" % fmt(cc["small"]["commit_ms"], 0),
            fmt(cc["ratio_big_small_wall"], 2), "-", "info")
    elif cc:
        row("9", "commit, one new extent, 15 TiB dev, ms", fmt(cc["big"]["commit_ms"], 0),
            "16 GiB dev %s" % fmt(cc["small"]["commit_ms"], 0), fmt(cc["ratio_big_small"], 2),
            "<= %.2f" % TARGET_COMMIT_SIZE, verdict("commit: 15 TiB device / 16 GiB device"))
    if cc:
        row("9", "first commit after activation, sectors",
            fmt(cc["big"]["first_commit_sectors"], 0),
            "a normal one %s" % fmt(cc["big"]["sectors_per_commit"], 0),
            fmt(cc["ratio_first_sectors"], 2), "<= %.2f" % TARGET_FIRST_COMMIT,
            verdict("first commit after activation / a normal one, metadata sectors"))
        if cc.get("measured_by") == "module" and cc["big"]["first_commit_us"] is not None:
            row("9", "first commit after activation, us", fmt(cc["big"]["first_commit_us"], 0),
                "a normal one %s" % fmt(cc["big"]["commit_us"], 0),
                fmt(cc["ratio_first_normal"], 2), "-", "info")
        else:
            row("9", "first commit after activation, ms", fmt(cc["big"]["first_commit_ms"], 0),
                "a normal one %s" % fmt(cc["big"]["commit_ms"], 0),
                fmt(cc["ratio_first_normal"], 2), "-", "info")
    sp = r.get("spill_burst")
    if sp and sp["tier_ms"] is not None:
        row("10", "burst 3x tier 0 to fsync, ms", fmt(sp["tier_ms"], 0),
            "dm-writecache %s" % fmt(sp["writecache_ms"], 0),
            fmt(sp["ratio_tier_writecache"], 2), "<= %.2f" % TARGET_SPILL_WRITECACHE,
            verdict("burst of 3x tier 0 to fsync: dm-tier / dm-writecache"))
        row("10", "", "", "bound %s" % fmt(sp["bound_ms"], 0),
            fmt(sp["ratio_tier_bound"], 2), "-", "info")
    lines.append("")
    if len(s["tier_bursts_mibs"]) > 1 or len(s["linear_bursts_mibs"]) > 1:
        lines.append("part 1: each burst, MiB/s (the table has their medians): dm-tier %s; dm-linear %s"
                     % (" ".join(fmt(x) for x in s["tier_bursts_mibs"]),
                        " ".join(fmt(x) for x in s["linear_bursts_mibs"])))
    if len(rr["tier_runs_iops"]) > 1 or len(rr["linear_runs_iops"]) > 1:
        lines.append("part 2: each run, IOPS (the table has their medians): dm-tier %s; dm-linear %s"
                     % (" ".join(fmt(x, 0) for x in rr["tier_runs_iops"]),
                        " ".join(fmt(x, 0) for x in rr["linear_runs_iops"])))
    if ck and (len(ck["tier_bursts_mibs"]) > 1 or len(ck["linear_bursts_mibs"]) > 1):
        lines.append("part 5: each burst, MiB/s (the table has their medians): dm-tier %s; "
                     "dm-linear %s" % (" ".join(fmt(x) for x in ck["tier_bursts_mibs"]),
                                       " ".join(fmt(x) for x in ck["linear_bursts_mibs"])))
    if s["all_on_tier0"] is False:
        lines.append("note: part 1 spilled %s extents to tier 1; the burst did not stay on tier 0"
                     % fmt(s["tier1_extents_after"], 0))
    if lat["available"]:
        lines.append("part 3: %s idle and %s drain samples; drain of %s MiB took %s ms, pace %s"
                     % (fmt(lat["samples_idle"], 0), fmt(lat["samples_drain"], 0),
                        fmt((lat["drain_bytes"] or 0) / float(1 << 20), 0),
                        fmt(lat["drain_ms"], 0), "/".join(lat["paces"]) or "?"))
    elif "reason" in lat:
        lines.append("parts 3, 4 not available: %s" % lat["reason"])
    if bw["available"]:
        lines.append("part 4: %s MiB (%s extents) moved in %s ms (median of %s; %s ms with "
                     "tierctl's start), %s copy errors, pace %s; dd %s ms (median of %s; its "
                     "starts %s ms)"
                     % (fmt((bw["bytes"] or 0) / float(1 << 20), 0), fmt(bw["extents"], 0),
                        fmt(bw["ms"], 0), " ".join(str(x) for x in bw["all_ms"]) or "1",
                        fmt(bw["wall_ms"], 0), fmt(bw["errors"], 0),
                        "/".join(bw["paces"]) or "?", fmt(bw["raw_copy_ms"], 0),
                        " ".join(str(x) for x in bw["raw_copy_all_ms"]) or "1",
                        " ".join(str(x) for x in bw["raw_start_all_ms"]) or "?"))
    if ck and ck["tier1_extents_after"]:
        lines.append("note: part 5 spilled %s extents to tier 1" % fmt(ck["tier1_extents_after"], 0))
    if mr and mr["available"]:
        st = mr["mem_status_after"] or {}
        lines.append("part 6: %s MiB file on the cold tier, %s passes (%s warm-up), memory tier "
                     "%s MiB on node %s: hit ratio %s after warm-up, %s overall; %s copies, "
                     "%s fills, %s evictions"
                     % (fmt(mr["file_mib"], 0), fmt(mr["passes"], 0), fmt(mr["warmup_passes"], 0),
                        fmt(mr["mem_tier_mib"], 0), mr["numa_node"] or "?",
                        fmt(mr["hit_ratio"], 3), fmt(mr["hit_ratio_total"], 3),
                        st.get("copies", "?"), st.get("fills", "?"), st.get("evictions", "?")))
        lines.append("part 6 per pass, MiB/s: mem %s; no mem %s"
                     % (" ".join(fmt(x) for x in mr["mem_pass_mibs"]),
                        " ".join(fmt(x) for x in mr["nomem_pass_mibs"])))
    elif mr:
        lines.append("part 6: " + mr["reason"])
    if fs and fs["available"]:
        lines.append("part 7: %s idle and %s drain fsyncs; drain took %s ms; %s commits; "
                     "tier 1 behind dm-delay (reads 100 ms) with a reader of it running"
                     % (fmt(fs["fsyncs_idle"], 0), fmt(fs["fsyncs_drain"], 0),
                        fmt(fs["drain_ms"], 0), fmt(fs["commits"], 0)))
    elif fs:
        lines.append("part 7 not available: " + fs["reason"])
    if cc and "reason" in cc:
        lines.append("part 9 not available: " + cc["reason"])
    elif cc:
        lines.append("part 9: %s and %s extents; metadata sectors per commit %s / %s; "
                     "activation %s / %s ms (16 GiB / 15 TiB); %s"
                     % (fmt(cc["small"]["extents"], 0), fmt(cc["big"]["extents"], 0),
                        fmt(cc["small"]["sectors_per_commit"], 0),
                        fmt(cc["big"]["sectors_per_commit"], 0),
                        fmt(cc["small"]["activate_ms"], 0), fmt(cc["big"]["activate_ms"], 0),
                        "commit times as the module measures them"
                        if cc.get("measured_by") == "module" else
                        "commit times include dmsetup's start"))
    if sp and sp["tier_ms"] is not None:
        lines.append("part 10: %s MiB burst, tier 0 / cache %s MiB on the hot drive (%s MiB/s raw), "
                     "tier 1 / origin a null_blk limited to %s MiB/s (%s MiB/s raw); bound "
                     "max(B/hot, (B-T0)/cold) %s ms, dm-writecache at %s of it; dm-tier's "
                     "extents after: %s on tier 0, %s on tier 1"
                     % (fmt(sp["burst_mib"], 0), fmt(sp["t0_mib"], 0), fmt(sp["hot_mibs"]),
                        fmt(sp["cold_mbps_limit"], 0), fmt(sp["cold_mibs"]),
                        fmt(sp["bound_ms"], 0), fmt(sp["ratio_writecache_bound"], 2),
                        fmt(sp["tier0_used_after"], 0), fmt(sp["tier1_used_after"], 0)))
    if r["overlap"]:
        lines.append("WARNING: " + r["overlap"])
    lines.append("Informational: a performance tool, not a test; TCG emulation makes absolute "
                 "numbers meaningless, only the ratios (same VM, same drives) mean something.")
    return "\n".join(lines) + "\n"


def cmd_table(rawdir, outdirs):
    r = build(rawdir)
    text = table(r)
    for d in outdirs:
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "results.json"), "w") as f:
            json.dump(r, f, indent=2, sort_keys=False)
            f.write("\n")
        with open(os.path.join(d, "table.txt"), "w") as f:
            f.write(text)
    sys.stdout.write(text)


def summary(results):
    """Every target over several runs (results.json dicts): the value of
    each run, the spread, and met only when met in every run."""
    names = []
    for r in results:
        for t in r.get("targets", []):
            if t["name"] not in names:
                names.append(t["name"])
    rows = []
    for name in names:
        per = [next((t for t in r.get("targets", []) if t["name"] == name), None)
               for r in results]
        values = [t["value"] if t else None for t in per]
        known = [v for v in values if v is not None]
        mets = [t["met"] if t else None for t in per]
        limit = next((t["target"] for t in per if t), "?")
        if not known:
            verdict = "n/a"
        elif all(m is True for m in mets):
            verdict = "met"
        else:
            verdict = "NOT MET (%d of %d met%s)" % (
                sum(1 for m in mets if m is True), len(mets),
                "" if len(known) == len(values) else
                ", %d not measured" % (len(values) - len(known)))
        rows.append({"name": name, "values": values, "target": limit,
                     "min": min(known) if known else None,
                     "max": max(known) if known else None,
                     "met_all": verdict == "met", "verdict": verdict})
    return rows


def cmd_summary(outdir, rundirs):
    results = []
    for d in rundirs:
        try:
            with open(os.path.join(d, "results.json")) as f:
                results.append(json.load(f))
        except (OSError, ValueError):
            results.append({"targets": [], "complete": False,
                            "error": "no results.json in %s" % d})
    rows = summary(results)
    first = next((r for r in results if r.get("kernel")), {})
    lines = ["dm-tier bench, %d runs: kernel %s, %s, %s" % (
        len(results), first.get("kernel") or "?", (first.get("accel") or "?").upper(),
        "quick" if first.get("quick") else "full"), ""]
    head = "%-50s " % "target" + " ".join("%7s" % ("run %d" % (i + 1))
                                          for i in range(len(results)))
    lines.append(head + "  %-13s %-8s %s" % ("spread", "target", "result"))
    for row in rows:
        spread = ("n/a" if row["min"] is None else
                  "%.2f-%.2f" % (row["min"], row["max"]))
        lines.append("%-50s " % row["name"] +
                     " ".join("%7s" % fmt(v, 2) for v in row["values"]) +
                     "  %-13s %-8s %s" % (spread, row["target"], row["verdict"]))
    for i, r in enumerate(results):
        if not r.get("complete"):
            lines.append("run %d incomplete: %s" % (i + 1, r.get("error") or "stopped early"))
        if r.get("overlap"):
            lines.append("run %d WARNING: %s" % (i + 1, r["overlap"]))
    lines.append("A target is met only when every run meets it (docs/PERFORMANCE.md).")
    text = "\n".join(lines) + "\n"
    os.makedirs(outdir, exist_ok=True)
    with open(os.path.join(outdir, "summary.json"), "w") as f:
        json.dump({"runs": list(rundirs), "targets": rows}, f, indent=2)
        f.write("\n")
    with open(os.path.join(outdir, "summary.txt"), "w") as f:
        f.write(text)
    sys.stdout.write(text)


def main(argv):
    if len(argv) == 6 and argv[1] == "p99":
        cmd_p99(*argv[2:])
    elif len(argv) >= 4 and argv[1] == "table":
        cmd_table(argv[2], argv[3:])
    elif len(argv) >= 4 and argv[1] == "summary":
        cmd_summary(argv[2], argv[3:])
    else:
        sys.stderr.write(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
