#!/usr/bin/env bash
# `make check-kernels` (not in `make test`): every guest tier on every
# kernel vhca supports (Documentation/testing-vm.md "check-kernels"), one
# kernel after the other, continuing past failures; then one table, a row
# per kernel and tier: passed, failed, minutes.  Each run's JUnit XML is
# kept as build/results/kernels/<kernel>/<tier>.xml.  Exit status non-zero
# if anything failed.
#
#   scripts/run-kernels.sh [KERNEL...]     default: 7.3 6.12 6.1
set -uo pipefail
cd "$(dirname "$0")/.."
kernels=("$@")
[ ${#kernels[@]} -gt 0 ] || kernels=(7.3 6.12 6.1)
tiers=(vm uverbs ulp middleware fabric)

exit_status=0
rows=()
for kernel in "${kernels[@]}"; do
	mkdir -p "build/results/kernels/$kernel"
	for tier in "${tiers[@]}"; do
		echo "=== make check-$tier KERNEL=$kernel"
		rm -f "build/results/$tier.xml"
		start=$SECONDS
		make --no-print-directory "check-$tier" KERNEL="$kernel"
		status=$?
		minutes=$(( (SECONDS - start + 30) / 60 ))
		xml=build/results/kernels/$kernel/$tier.xml
		cp "build/results/$tier.xml" "$xml" 2>/dev/null || rm -f "$xml"
		read -r passed failed <<<"$(/usr/bin/python3 scripts/junit.py counts "$xml")"
		# junit.py counts a missing report as one failure; an exit status
		# with no failed case in the report (a crash) is one too.
		[ "$failed" -ne 0 ] || [ "$status" -eq 0 ] || failed=1
		[ "$failed" -eq 0 ] || exit_status=1
		rows+=("| $kernel | check-$tier | $passed | $failed | $minutes |")
	done
done
echo "=== check-kernels"
echo "| Kernel | Tier | Passed | Failed | Minutes |"
echo "|---|---|---|---|---|"
printf '%s\n' "${rows[@]}"
exit "$exit_status"
