#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tools/netlink/dm-tier.yaml is a valid YNL spec: it validates against the
# kernel's genetlink-legacy schema (from linux-source-6.12, tools/ynl-locate),
# the kernel's YNL library loads it with every operation, and the uapi header
# is what the spec generates. A spec in the shape the schema rejects (the
# operations as a bare list) must fail, so the check can fail. Prints TAP.
set -uo pipefail
cd "$(dirname "$0")/../.."
echo "1..4"
if ! ynl=$(tools/ynl-locate 2>&1 | tail -n 1) || [ ! -d "$ynl/tools/net/ynl" ]; then
	echo "# $ynl"
	for i in 1 2 3 4; do echo "not ok $i - no YNL schema and library (tools/ynl-locate failed)"; done
	exit 1
fi
rc=0
check() { # n description command...
	local n=$1 what=$2 out
	shift 2
	if out=$("$@" 2>&1); then
		echo "ok $n - $what${out:+: $out}"
	else
		sed 's/^/# /' <<<"$out"
		echo "not ok $n - $what"
		rc=1
	fi
}
validate() { # spec
	python3 - "$ynl/Documentation/netlink/genetlink-legacy.yaml" "$1" <<'PY'
import sys, yaml, jsonschema
schema = yaml.safe_load(open(sys.argv[1]))
spec = yaml.safe_load(open(sys.argv[2]))
errs = list(jsonschema.Draft7Validator(schema).iter_errors(spec))
for e in errs:
    print("/".join(str(p) for p in e.path) + ": " + e.message[:200])
sys.exit(1 if errs else 0)
PY
}
check 1 "the spec validates against genetlink-legacy.yaml" validate tools/netlink/dm-tier.yaml
load() {
	python3 - "$ynl/tools/net/ynl" tools/netlink/dm-tier.yaml \
		"$ynl/Documentation/netlink/genetlink-legacy.yaml" <<'PY'
import re, sys
sys.path.insert(0, sys.argv[1])
from lib import SpecFamily
fam = SpecFamily(sys.argv[2], sys.argv[3])
hdr = open("include/uapi/linux/dm-tier.h").read()
cmds = re.findall(r"^\tDM_TIER_CMD_([A-Z_]+),", hdr, re.M)
want = sorted(c.lower().replace("_", "-") for c in cmds if c != "UNSPEC")
got = sorted(list(fam.ops) + [m for m in fam.msgs if m not in fam.ops])
if got != want:
    print("ynl sees %s, the header has %s" % (got, want))
    sys.exit(1)
print("%d operations" % len(got))
PY
}
check 2 "the kernel's YNL library loads it" load
check 3 "include/uapi/linux/dm-tier.h is what the spec generates" tools/netlink/gen-uapi --check
bad=$(mktemp)
python3 - tools/netlink/dm-tier.yaml "$bad" <<'PY'
import sys, yaml
spec = yaml.safe_load(open(sys.argv[1]))
spec["operations"] = spec["operations"]["list"]  # the pre-YNL shape
yaml.safe_dump(spec, open(sys.argv[2], "w"))
PY
if out=$(validate "$bad" 2>&1); then
	echo "not ok 4 - a spec with a bare operations list validated"
	rc=1
else
	echo "ok 4 - a spec with a bare operations list is rejected: $(head -n 1 <<<"$out")"
fi
rm -f "$bad"
exit $rc
