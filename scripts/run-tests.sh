#!/usr/bin/env bash
# `make test`: run every tier (continuing past failures), then print one
# line per tier and, as the last line, "N passed, N failed".  Each tier's
# make target writes build/results/<tier>.txt ("passed=N failed=M"); a tier
# that fails without writing one (a build error, a crash) counts as one
# failure.  Exit status is non-zero if any tier failed or wrote no results.
set -uo pipefail
cd "$(dirname "$0")/.."

# kunit and vm-debug run on the debug kernel (KASAN, lockdep, kmemleak);
# the first run builds it (scripts/build-debug-kernel.sh, cached).
tiers=(unit qtest fuzz vm verbs uverbs ulp kunit vm-debug)
mkdir -p build/results
declare -A status
for tier in "${tiers[@]}"; do
	rm -f "build/results/$tier.txt"
	echo "=== make check-$tier"
	make --no-print-directory "check-$tier"
	status[$tier]=$?
done

total_passed=0
total_failed=0
exit_status=0
echo "=== summary"
for tier in "${tiers[@]}"; do
	file=build/results/$tier.txt
	line=$(cat "$file" 2>/dev/null)
	if [[ "$line" =~ ^passed=([0-9]+)\ failed=([0-9]+)$ ]]; then
		passed=${BASH_REMATCH[1]}
		failed=${BASH_REMATCH[2]}
		result=ok
		if [ "$failed" -ne 0 ] || [ "${status[$tier]}" -ne 0 ]; then
			result=FAILED
			exit_status=1
		fi
		echo "$tier: $result (passed=$passed failed=$failed, exit ${status[$tier]})"
	else
		passed=0
		failed=1
		exit_status=1
		echo "$tier: FAILED (no results in $file, exit ${status[$tier]})"
	fi
	total_passed=$((total_passed + passed))
	total_failed=$((total_failed + failed))
done
echo "$total_passed passed, $total_failed failed"
exit "$exit_status"
