#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# run-fuzz.sh - build the libFuzzer targets of the device's guest-facing
# parsers and of the fabric library (fuzz/, see fuzz/README.md) with clang
# on the host, replay every kept reproducer in fuzz/regressions/<target>/,
# then fuzz each target for
# FUZZ_SECONDS, continuing from the inputs earlier runs found (kept in the
# cache, so a fresh clone's `make test` starts where the last one stopped;
# that is what lets the default be short).  Any crash, leak, timeout or sanitizer report fails the
# target; libFuzzer's reproducer is saved in fuzz/regressions/<target>/
# (add it to git) and the command that replays it is printed.  Writes
# build/results/fuzz.xml (one JUnit case per target, scripts/junit.py) and
# build/results/fuzz.txt as "passed=N failed=M".
#
# Environment: FUZZ_SECONDS (default 10) per target; FUZZ_TARGETS to run a
# subset ("cmd_check ring"); VHCA_JOBS targets at once (default: nproc);
# CLANG (default clang-14, else clang).
set -uo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
RESULTS=$REPO/build/results
OUT=$REPO/build/fuzz
SECONDS_PER_TARGET=${FUZZ_SECONDS:-10}
# The growing corpus of each target: libFuzzer adds an input only when it
# reaches new coverage, so it stays small (a few hundred files).
CORPUS=${VHCA_CACHE:-$HOME/.cache/vhca}/fuzz-corpus
CLANG=${CLANG:-$(command -v clang-14 || command -v clang || echo clang)}

# Target name -> what it links besides fuzz/fuzz_<name>.c: "fabric" is
# the fabric library (fabric/*.c, plain C, built once per run into
# $OUT/libvhca-fabric.a); a qemu-device/ file is one of the device's pure
# files, built with the few QEMU headers of fuzz/shim/.
# A new target (the memory key and protection checks, for one) is a
# fuzz/fuzz_<name>.c, a line here, and seeds in fuzz/corpus/<name>/.
declare -A TARGET_SOURCES=(
    [cmd_check]="qemu-device/vhca-cmd-check.c"
    [ring]=""
    [wqe]="qemu-device/vhca-wqe.c"
    [odp_table]="qemu-device/vhca-odp-table.c"
    [sma]="fabric"
    [sa]="fabric"
    [wire]="fabric"
    [pma]="fabric"
    [switch_sma]="fabric"
    [sm_arbiter]="fabric"
    [sm_state]="fabric"
)
ALL_TARGETS="cmd_check ring wqe sma sa wire pma switch_sma sm_arbiter sm_state odp_table"
# Extra compiler and linker flags of a target (the GLib of QEMU's osdep.h).
declare -A TARGET_FLAGS=(
    [odp_table]="-DVHCA_FUZZ_GLIB $(pkg-config --cflags --libs glib-2.0 2>/dev/null)"
)
TARGETS=${FUZZ_TARGETS:-$ALL_TARGETS}

# The library's objects get the sanitizers and libFuzzer's coverage but
# not its main (fuzzer-no-link); a target links them with the main.
LIB_CFLAGS=(-g -O1 -fno-omit-frame-pointer
            -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all
            -Wall -Wextra -Wno-unused-parameter -Werror -I"$REPO/fabric" -I"$REPO/uapi")
CFLAGS=("${LIB_CFLAGS[@]/fuzzer-no-link/fuzzer}"
        -I"$REPO/fuzz/shim" -I"$REPO/qemu-device")
FABRIC_LIB=$OUT/libvhca-fabric.a
# Leaks are reported at exit of each run; UBSan findings abort.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:symbolize=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

mkdir -p "$RESULTS" "$OUT"
rm -f "$RESULTS/fuzz.xml" "$RESULTS/fuzz.txt"
# One "target pass|fail message" line per target, for scripts/junit.py.
verdicts=$OUT/verdicts
: > "$verdicts"

say() { echo "fuzz: $*"; }

# The fabric library, once for every target that links it.
build_fabric_lib() {
    local src obj objs=() log=$OUT/libvhca-fabric.build.log
    mkdir -p "$OUT/fabric"
    : > "$log"
    for src in "$REPO"/fabric/*.c; do
        obj=$OUT/fabric/$(basename "$src" .c).o
        "$CLANG" "${LIB_CFLAGS[@]}" -c "$src" -o "$obj" >> "$log" 2>&1 || return 1
        objs+=("$obj")
    done
    rm -f "$FABRIC_LIB"
    ar rcs "$FABRIC_LIB" "${objs[@]}" >> "$log" 2>&1
}

build_target() {
    local name=$1 src
    local sources=("$REPO/fuzz/fuzz_$name.c")
    for src in ${TARGET_SOURCES[$name]}; do
        if [ "$src" = fabric ]; then
            sources+=("$FABRIC_LIB")
        else
            sources+=("$REPO/$src")
        fi
    done
    # shellcheck disable=SC2086  # a list of flags
    "$CLANG" "${CFLAGS[@]}" "${sources[@]}" ${TARGET_FLAGS[$name]:-} \
        -o "$OUT/$name" > "$OUT/$name.build.log" 2>&1
}

# Anything a sanitizer or libFuzzer prints when it finds a problem.
log_has_finding() {
    grep -qE 'ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error:|SUMMARY: (AddressSanitizer|UndefinedBehaviorSanitizer|libFuzzer)' "$1"
}

replay_regressions() {
    local name=$1 dir=$REPO/fuzz/regressions/$1 log=$OUT/$1.replay.log
    local files=()
    mkdir -p "$dir"
    mapfile -t files < <(find "$dir" -maxdepth 1 -type f ! -name '.*' | sort)
    if [ ${#files[@]} -eq 0 ]; then
        return 0
    fi
    if ! "$OUT/$name" "${files[@]}" > "$log" 2>&1 || log_has_finding "$log"; then
        grep -E 'Running:|ERROR|runtime error|SUMMARY|fuzz_' "$log" | head -n 20 >&2
        say "$name: a kept reproducer fails again (log: $log)"
        return 1
    fi
    say "$name: ${#files[@]} regression input(s) replayed"
}

fuzz_target() {
    local name=$1 log=$OUT/$1.log work=$CORPUS/$1
    local artifacts=$REPO/fuzz/regressions/$1 before after rc new
    mkdir -p "$work" "$artifacts"
    before=$(find "$artifacts" -maxdepth 1 -type f | sort)
    # New inputs go to the first directory (the cache), not the seeds in git.
    "$OUT/$name" -max_total_time="$SECONDS_PER_TARGET" -timeout=10 \
        -rss_limit_mb=2048 -print_final_stats=1 \
        -artifact_prefix="$artifacts/" \
        "$work" "$REPO/fuzz/corpus/$name" > "$log" 2>&1
    rc=$?
    after=$(find "$artifacts" -maxdepth 1 -type f | sort)
    new=$(comm -13 <(echo "$before") <(echo "$after") | grep -v '^$' || true)
    local execs
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
    if [ "$rc" -ne 0 ] || [ -n "$new" ] || log_has_finding "$log"; then
        grep -E 'ERROR|runtime error|SUMMARY|fuzz_' "$log" | head -n 20 >&2
        say "$name: FAILED after ${execs:-?} runs (exit $rc, log: $log)"
        for f in $new; do
            say "  reproducer kept: ${f#"$REPO"/}"
            say "  replay: scripts/run-fuzz.sh builds it; then build/fuzz/$name ${f#"$REPO"/}"
        done
        return 1
    fi
    say "$name: ok, ${execs:-?} runs in ${SECONDS_PER_TARGET}s (log: $log)"
}

# One target: build, replay, fuzz; its verdict line in $OUT/<name>.verdict.
run_target() {
    local name=$1 verdict=$OUT/$1.verdict
    if [ -z "${TARGET_SOURCES[$name]+set}" ]; then
        say "unknown target $name (known: $ALL_TARGETS)" >&2
        echo "$name fail unknown target" > "$verdict"
        return
    fi
    if ! build_target "$name"; then
        cat "$OUT/$name.build.log" >&2
        say "$name: build failed"
        echo "$name fail build failed: $OUT/$name.build.log" > "$verdict"
        return
    fi
    if replay_regressions "$name" && fuzz_target "$name"; then
        echo "$name pass" > "$verdict"
    else
        echo "$name fail see $OUT/$name.log and $OUT/$name.replay.log" > "$verdict"
    fi
}

# Each libFuzzer run is one process on one core: as many targets at once
# as there are cores (VHCA_JOBS), so the tier takes
# FUZZ_SECONDS x targets / cores, not x targets.
jobs=${VHCA_JOBS:-$(nproc)}
if ! build_fabric_lib; then
    cat "$OUT/libvhca-fabric.build.log" >&2
    say "the fabric library did not build: its targets fail"
    rm -f "$FABRIC_LIB"
fi
for name in $TARGETS; do
    rm -f "$OUT/$name.verdict"
    while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do
        wait -n || true
    done
    run_target "$name" &
done
wait
for name in $TARGETS; do
    cat "$OUT/$name.verdict" 2> /dev/null || echo "$name fail no verdict (the job died)"
done >> "$verdicts"

/usr/bin/python3 "$REPO/scripts/junit.py" from-lines fuzz "$RESULTS/fuzz.xml" < "$verdicts"
exec /usr/bin/python3 "$REPO/scripts/junit.py" finish fuzz 0
