#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# dmt: debug-kernel
# shellcheck source=tests/vm/lib.sh
# Settings that persist (issue 18). Two NVMe drives (64M, 128M), two boots
# on the same drive images:
#   boot 1
#     set       commit_interval_ms, reserve_pct, drain_deadline by message;
#               high_watermark, low_watermark, promote_hits by netlink
#               (tierctl policy); remove + activate: all six are back
#               (dmsetup table, tierctl policy); tierctl dump of the
#               inactive device lists them
#     line      a table line giving high_watermark 90 and promote_hits 7
#               wins over the persisted 70 and 5, the other persisted
#               values fill in; the next plain activate has 70 and 5 again
#               (the line does not erase them)
#     reset     tierctl policy --reset on a table whose line gives
#               promote_hits 7: promote_hits back to 7 (the line), the rest
#               to their defaults; the record is cleared: remove + activate
#               gives an empty table line
#     suspended promote_hits 9 by netlink and drain_deadline 77 by message
#               while the device is suspended, then `dmsetup remove` of the
#               suspended device (no postsuspend runs): activate has both
#               (they were acknowledged and lost: the commit waited for a
#               resume that never came); then --reset
#     reload    a table loaded (the same line), then promote_hits 11 by
#               netlink and drain_deadline 55 by message on the live one,
#               then the resume: both stay (the new table applied the
#               values its load had read), in the runtime and the line;
#               then --reset
#     ro        demote_age 123 and migration_inflight 2 set; a read-only
#               activation shows them, refuses set and --reset, commits
#               nothing; read-write again, migration_inflight 3 is set and
#               left to the periodic commit, the device stays active
#   boot 2      tierctl activate by label: demote_age 123, migration_inflight
#               3, and nothing that was reset
. "$(dirname "$0")/lib.sh"
DEV=sp

# The value of option KEY in the live table line of DEV ("" = not shown,
# i.e. at its default).
opt() { # key
	dmsetup table $DEV | awk -v k="$1" '{ for (i = 1; i < NF; i++) if ($i == k) { print $(i + 1); exit } }'
}

expect_opt() { # key value what
	expect_eq "$(opt "$1")" "$2" "$3: $1 in the table line"
}

# A setting as netlink policy-get reports it.
pol() { # key
	tierctl policy $DEV --json | jget "[\"$1\"]"
}

reactivate() {
	tierctl remove $DEV >/dev/null
	tierctl activate $DEV >/dev/null || fail "tierctl activate $DEV failed"
}

# The table line of DEV as loaded with OPTS (count and words) appended:
# "start length tier extent nr_tiers dev0 dev1".
line_with() { # opts...
	local start len type ext n d0 d1
	read -r start len type ext n d0 d1 _ <<<"$(dmsetup table $DEV)"
	echo "$start $len $type $ext $n $d0 $d1 $*"
}

step_set() {
	tierctl create $DEV --tier "$DMT_NVME0" --tier "$DMT_NVME1" --force >/dev/null
	expect_eq "$(dmsetup table $DEV | wc -w)" 7 "a new device's table line has no option"
	tier_set $DEV commit_interval_ms 500
	tier_set $DEV reserve_pct 5
	tier_set $DEV drain_deadline 600
	tierctl policy $DEV high_watermark=70 low_watermark=40 promote_hits=5 >/dev/null ||
		fail "tierctl policy set failed"
	dmsetup table $DEV | sed 's/^/  live: /'
	reactivate
	dmsetup table $DEV | sed 's/^/  after remove + activate: /'
	expect_opt commit_interval_ms 500 "after remove + activate"
	expect_opt reserve_pct 5 "after remove + activate"
	expect_opt drain_deadline 600 "after remove + activate"
	expect_opt high_watermark 70 "after remove + activate"
	expect_opt low_watermark 40 "after remove + activate"
	expect_opt promote_hits 5 "after remove + activate"
	expect_eq "$(pol high_watermark)" 70 "tierctl policy after remove + activate"
	expect_eq "$(pol drain_deadline)" 600 "tierctl policy after remove + activate"
	klog_has "6 persisted settings applied" ||
		fail "the kernel did not log the persisted settings it applied"
	tierctl remove $DEV >/dev/null
	tierctl dump $DEV | grep '^setting' | sed 's/^/  dump: /'
	tierctl dump $DEV | grep -q '^setting  *high_watermark=70 (id 5)' ||
		fail "tierctl dump does not list the persisted high_watermark"
	expect_eq "$(tierctl dump --json $DEV | jget '["settings"].__len__()')" 6 "settings in tierctl dump --json"
	expect_eq "$(tierctl dump --json $DEV | jget '["compat"]')" 1 "compat bit 0 in tierctl dump --json"
	tierctl check --strict $DEV >/dev/null || fail "tierctl check: a device with settings is not clean"
	tierctl activate $DEV >/dev/null
	echo "set: 3 by message, 3 by netlink, all back after remove + activate"
}

step_line() {
	local line
	line=$(line_with 4 high_watermark 90 promote_hits 7)
	tierctl remove $DEV >/dev/null
	dmsetup create $DEV --table "$line" || fail "table line with options refused"
	dmsetup table $DEV | sed 's/^/  explicit line: /'
	expect_opt high_watermark 90 "explicit line"
	expect_opt promote_hits 7 "explicit line"
	expect_opt low_watermark 40 "explicit line (persisted fills in)"
	expect_opt commit_interval_ms 500 "explicit line (persisted fills in)"
	dmsetup remove --retry $DEV
	tierctl activate $DEV >/dev/null
	expect_opt high_watermark 70 "activate after the explicit line"
	expect_opt promote_hits 5 "activate after the explicit line"
	echo "line: an option the table line gives wins, the persisted value stays"
}

step_reset() {
	local line
	line=$(line_with 2 promote_hits 7)
	tierctl remove $DEV >/dev/null
	dmsetup create $DEV --table "$line" || fail "table line with promote_hits refused"
	tier_set $DEV promote_hits 9
	expect_opt promote_hits 9 "before --reset"
	tierctl policy $DEV --reset | sed 's/^/  reset: /'
	dmsetup table $DEV | sed 's/^/  after --reset: /'
	expect_eq "$(dmsetup table $DEV | cut -d' ' -f8-)" "2 promote_hits 7" \
		"--reset: the table line's own option, every other at its default"
	expect_eq "$(pol high_watermark)" 80 "tierctl policy after --reset"
	expect_status 2 "no KEY=VALUE" tierctl policy $DEV --reset high_watermark=70
	dmsetup remove --retry $DEV
	tierctl activate $DEV >/dev/null
	dmsetup table $DEV | sed 's/^/  after --reset, remove + activate: /'
	expect_eq "$(dmsetup table $DEV | wc -w)" 7 "after --reset and remove + activate: options in the table line"
	tierctl remove $DEV >/dev/null
	expect_eq "$(tierctl dump --json $DEV | jget '["compat"]')" 0 "compat after --reset"
	tierctl activate $DEV >/dev/null
	echo "reset: back to the line's value or the default, the record cleared"
}

step_suspended() {
	dmsetup suspend $DEV
	tierctl policy $DEV promote_hits=9 >/dev/null || fail "suspended: tierctl policy"
	tier_set $DEV drain_deadline 77
	dmsetup remove $DEV
	tierctl activate $DEV >/dev/null || fail "suspended: tierctl activate"
	expect_opt promote_hits 9 "suspended: set by netlink, removed while suspended"
	expect_opt drain_deadline 77 "suspended: set by message, removed while suspended"
	tierctl policy $DEV --reset >/dev/null || fail "suspended: tierctl policy --reset"
	reactivate
	expect_eq "$(dmsetup table $DEV | wc -w)" 7 "suspended: the table line after --reset"
	echo "suspended: changes made while suspended survive a removal while suspended"
}

step_reload() {
	local tbl
	tbl=$(dmsetup table $DEV)
	dmsetup reload $DEV --table "$tbl"
	tierctl policy $DEV promote_hits=11 >/dev/null || fail "reload: tierctl policy"
	tier_set $DEV drain_deadline 55
	dmsetup resume $DEV
	expect_eq "$(pol promote_hits)" 11 "reload: promote_hits set between the load and the resume (tierctl policy)"
	expect_opt promote_hits 11 "reload: set between the load and the resume"
	expect_opt drain_deadline 55 "reload: set between the load and the resume"
	reactivate
	expect_opt promote_hits 11 "reload: after remove + activate"
	tierctl policy $DEV --reset >/dev/null || fail "reload: tierctl policy --reset"
	reactivate
	expect_eq "$(dmsetup table $DEV | wc -w)" 7 "reload: the table line after --reset"
	echo "reload: settings changed between a reload's load and its resume stay"
}

step_ro() {
	local c0
	tierctl policy $DEV demote_age=123 >/dev/null || fail "tierctl policy demote_age failed"
	tier_set $DEV migration_inflight 2
	tierctl remove $DEV >/dev/null
	tierctl activate --readonly $DEV >/dev/null || fail "read-only activation failed"
	expect_opt demote_age 123 "read-only activation"
	expect_opt migration_inflight 2 "read-only activation"
	expect_status 1 "read-only" dmsetup message $DEV 0 set demote_age 5
	expect_status 1 "read-only" tierctl policy $DEV --reset
	expect_opt demote_age 123 "read-only activation after refused changes"
	expect_eq "$(tier_stat $DEV commits)" 0 "commits of the read-only activation"
	tierctl remove $DEV >/dev/null
	# Read-write again; the next periodic commit (1 s) records the change,
	# the device stays active until the guest powers off.
	tierctl activate $DEV >/dev/null
	c0=$(tier_stat $DEV commits)
	tier_set $DEV migration_inflight 3
	tier_wait $DEV 20 "[ \$commits -gt $c0 ]" || fail "no commit within 20 s of a set"
	# A periodic commit between reading c0 and the set may be the one
	# seen: the set's own comes 1 s later, or later on a loaded host, so
	# a synchronous commit makes sure before the power-off.
	tier_msg $DEV commit || fail "commit after the set"
	echo "ro: read-only activation shows the settings and changes none; left active with migration_inflight 3"
}

guest_first() {
	step_set
	step_line
	step_reset
	step_suspended
	step_reload
	step_ro
}

guest_second() {
	tierctl activate $DEV >/dev/null || fail "boot 2: tierctl activate failed"
	dmsetup table $DEV | sed 's/^/  boot 2: /'
	expect_opt demote_age 123 "boot 2"
	expect_opt migration_inflight 3 "boot 2"
	expect_eq "$(dmsetup table $DEV | wc -w)" 12 "boot 2: words in the table line"
	expect_eq "$(pol demote_age)" 123 "boot 2: tierctl policy"
	tierctl remove $DEV >/dev/null
	echo "boot 2: the settings persisted across the reboot"
}
run_guest_phase "$@"

vm --fresh --nvme 64M --nvme 128M -- "$0" first
vm --nvme 64M --nvme 128M -- "$0" second
