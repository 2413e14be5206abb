# Sourced by the ULP scripts (runs in the guest).

# wait_for WHAT CMD...: run CMD every 0.2 s until it succeeds, for at
# most 30 s; then fail, saying WHAT did not appear.
wait_for() {
	what=$1
	shift
	for i in $(seq 1 150); do
		"$@" && return 0
		sleep 0.2
	done
	echo "$(basename "$0"): $what did not appear" >&2
	return 1
}

# targetcli for the LIO target (iser.sh, srp.sh).  targetcli asks the system D-Bus for tcmu-runner's backstores
# and fails without a bus, so a system bus runs while a target is set up
# (a Debian system has one; the guest's busybox init does not).

lio_dbus_start() {
	[ -s /run/dbus/pid ] && kill -0 "$(cat /run/dbus/pid)" 2>/dev/null && return 0
	mkdir -p /run/dbus
	rm -f /run/dbus/pid
	dbus-daemon --system --fork
}

lio_dbus_stop() {
	[ -s /run/dbus/pid ] || return 0
	kill "$(cat /run/dbus/pid)" 2>/dev/null || true
	rm -f /run/dbus/pid
}

# targetcli with the commands on stdin, one process for all of them (each
# start costs seconds under TCG); never saves the configuration.
# targetcli reports a failed command but exits 0: callers check configfs.
lio_run() {
	lio_dbus_start
	{ echo "set global auto_save_on_exit=false"; cat; } | targetcli
}
