# shellcheck shell=bash
# Sourced by scripts/run-tests.sh (`make test`): the slow builds that only
# later tiers need, started in the background before the first tier, so
# that a cold run (nothing in ~/.cache/vhca) overlaps them with the tiers
# instead of adding them one after the other (testing.md "Cold and warm
# runs").  A warm run finds both cached: each takes a second.
#
#   prebuild_start        the apt steps that remain after `make deps`,
#                         one after another (apt takes its locks one
#                         process at a time; once they are done, no later
#                         step runs apt-get update or install), then two
#                         background jobs:
#     - the Debian 13 root (scripts/build-trixie-root.sh), mostly
#       downloads, while the qtest tier builds QEMU;
#     - once the root is there, with GUEST_ROOT=trixie (the default), the
#       Debian 13 guest root the guest tiers boot
#       (scripts/rdma-core-patches.sh, then scripts/build-guest-root.sh:
#       mmdebstrap, and rdma-core 65 built in that root), while the unit,
#       qtest and fuzz tiers run;
#     - once the root is there, the debug kernel
#       (scripts/build-debug-kernel.sh), which only the last tiers boot, at
#       SCHED_IDLE: it runs only on a core the tiers leave idle (guests
#       waiting on timers, on the fabric, on I/O), so it takes no CPU time
#       the tiers would use.
#   prebuild_wait root    before the first tier that builds in that root
#                         (vm: 7.3's module)
#   prebuild_wait guest   before the first tier that boots a guest (vm)
#   prebuild_wait kernel  before the debug tiers.  Their own call of
#                         build-debug-kernel.sh would wait as well (its
#                         flock); a failed background build is redone
#                         there, in the foreground, with its errors.
#   prebuild_stop         (on exit) ends what is still running
# Logs: build/prebuild-root.log, build/prebuild-guest.log,
# build/prebuild-kernel.log.

declare -A prebuild_pid=()
declare -A prebuild_what=([root]="the Debian 13 root" [guest]="the Debian 13 guest root"
	[kernel]="the debug kernel")
# The head of a job that needs the root: wait for its build, give up if
# it failed.
# shellcheck disable=SC2016
after_root='while [ ! -f build/prebuild-root.status ]; do sleep 5; done
	[ "$(cat build/prebuild-root.status)" = 0 ] || exit 0'

prebuild_start() {
	scripts/apt-trixie.sh || return 0
	scripts/deps-qemu10.sh >/dev/null || return 0
	rm -f build/prebuild-root.status
	# Each job is a session of its own, so that prebuild_stop ends its
	# children (mmdebstrap, make, the compilers) too.
	setsid bash -c 'scripts/build-trixie-root.sh >build/prebuild-root.log 2>&1
		echo $? >build/prebuild-root.status' </dev/null &
	prebuild_pid[root]=$!
	if [ "${VHCA_GUEST_ROOT:-}" = trixie ]; then
		setsid bash -c "$after_root"'
			scripts/rdma-core-patches.sh && exec scripts/build-guest-root.sh' \
			</dev/null >build/prebuild-guest.log 2>&1 &
		prebuild_pid[guest]=$!
	fi
	setsid bash -c "$after_root"'
		exec chrt --idle 0 scripts/build-debug-kernel.sh' \
		</dev/null >build/prebuild-kernel.log 2>&1 &
	prebuild_pid[kernel]=$!
	echo "=== in the background: the Debian 13 root, then the guest root and" \
		"the debug kernel (build/prebuild-{root,guest,kernel}.log)"
}

prebuild_wait() {
	local job=$1 start=$SECONDS
	[ -n "${prebuild_pid[$job]:-}" ] || return 0
	wait "${prebuild_pid[$job]}"
	unset "prebuild_pid[$job]"
	echo "=== background build of ${prebuild_what[$job]}: done" \
		"(waited $((SECONDS - start)) s; build/prebuild-$job.log:" \
		"$(tail -n 1 "build/prebuild-$job.log" 2>/dev/null))"
}

prebuild_stop() {
	local job
	for job in "${!prebuild_pid[@]}"; do
		kill -- "-${prebuild_pid[$job]}" 2>/dev/null
	done
}
