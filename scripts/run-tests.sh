#!/usr/bin/env bash
# `make test`: run every tier (continuing past failures), then print one
# line per tier (with its wall-clock time) and, as the last line, "N passed, N failed", counted from
# the JUnit XML each tier's make target leaves in build/results/<tier>.xml
# (scripts/junit.py).  A tier that wrote no XML (a build error, a crash)
# counts as one failure, and so does a tier that exited non-zero with no
# failed case in its XML.  Exit status is non-zero if anything failed.
# Adding a tier: its name below, a `check-<tier>` make target, and a
# runner that writes build/results/<tier>.xml (and ends with
# `scripts/junit.py finish <tier> <status>`).
set -uo pipefail
cd "$(dirname "$0")/.."

# kunit, verbs and vm-debug run on the debug kernel (KASAN, lockdep,
# kmemleak); the first run builds it (scripts/build-debug-kernel.sh, cached),
# in the background while the tiers before them run (scripts/prebuild.sh).
# The guest tiers run on the Makefile's default kernel (7.3); smoke-6.12
# and smoke-6.1 are the older kernels' smoke tier.
tiers=(unit qtest fuzz vm uverbs ulp middleware fabric smoke-6.12 smoke-6.1 kunit verbs vm-debug)
# A tier run by another tier's make target, which writes the results of
# all of them; the time is the group's.  check-kernels-smoke runs the 6.12
# and 6.1 guests at once; check-debug-tiers boots the debug kernel once for
# both KUnit modules (kunit, verbs) and, at the same time, once for the
# vm-debug tests.
declare -A target=([smoke-6.12]=check-kernels-smoke [kunit]=check-debug-tiers)
declare -A run_with=([smoke-6.1]=smoke-6.12 [verbs]=kunit [vm-debug]=kunit)
# "12 min 5 s" for a number of seconds.
duration() {
	if [ "$1" -ge 60 ]; then
		echo "$(($1 / 60)) min $(($1 % 60)) s"
	else
		echo "$1 s"
	fi
}

# The builds only later tiers need go on in the background
# (scripts/prebuild.sh): the tier named here waits for one first.
declare -A needs_prebuild=([vm]="root guest" [kunit]=kernel)
# shellcheck source=prebuild.sh
source scripts/prebuild.sh
trap prebuild_stop EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

mkdir -p build/results
declare -A status seconds
for tier in "${tiers[@]}"; do
	rm -f "build/results/$tier.xml" "build/results/$tier.txt"
done
prebuild_start
for tier in "${tiers[@]}"; do
	if [ -n "${run_with[$tier]:-}" ]; then
		status[$tier]=${status[${run_with[$tier]}]}
		seconds[$tier]=0
		continue
	fi
	for job in ${needs_prebuild[$tier]:-}; do prebuild_wait "$job"; done
	echo "=== make ${target[$tier]:-check-$tier}"
	start=$SECONDS
	make --no-print-directory "${target[$tier]:-check-$tier}"
	status[$tier]=$?
	seconds[$tier]=$((SECONDS - start))
done

total_passed=0
total_failed=0
exit_status=0
echo "=== summary ($(duration "$SECONDS") in all)"
for tier in "${tiers[@]}"; do
	file=build/results/$tier.xml
	read -r passed failed <<<"$(/usr/bin/python3 scripts/junit.py counts "$file")"
	result=ok
	if [ ! -s "$file" ]; then
		result="FAILED (no JUnit XML in $file)"
	elif [ "$failed" -eq 0 ] && [ "${status[$tier]}" -ne 0 ]; then
		failed=1
		result="FAILED (exit status with no failed case in $file)"
	elif [ "$failed" -ne 0 ]; then
		result=FAILED
	fi
	[ "$result" = ok ] || exit_status=1
	when=$(duration "${seconds[$tier]}")
	[ -z "${run_with[$tier]:-}" ] || when="in ${run_with[$tier]}'s time"
	echo "$tier: $result (passed=$passed failed=$failed, exit ${status[$tier]}, $when)"
	total_passed=$((total_passed + passed))
	total_failed=$((total_failed + failed))
done
echo "$total_passed passed, $total_failed failed"
exit "$exit_status"
