# Sourced by every script that runs apt-get on the host: scripts/deps.sh,
# deps-qemu10.sh and apt-trixie.sh, and build-guest-root.sh and
# build-trixie-root.sh for mmdebstrap.
#
# apt runs one apt-get at a time, and a second one dies at once on dpkg's
# lock ("Unable to acquire the dpkg frontend lock"): two make targets
# started together on a fresh machine did that.  These scripts take a lock
# of their own first and wait for it (up to 30 minutes); a script they start
# sees VHCA_APT_LOCKED and does not wait for it again.  flock -o closes the
# lock's descriptor in the command, so nothing apt starts keeps the lock.

apt_lock_file=${VHCA_CACHE:-$HOME/.cache/vhca}/apt.lock
apt_lock_wait=1800
apt_lock_timed_out=75

# with_apt_lock CMD...: run CMD holding the lock.
with_apt_lock() {
	if [ -n "${VHCA_APT_LOCKED:-}" ]; then
		"$@"
		return
	fi
	mkdir -p "${apt_lock_file%/*}"
	local status=0
	flock -o -w "$apt_lock_wait" -E "$apt_lock_timed_out" "$apt_lock_file" \
		env VHCA_APT_LOCKED=1 "$@" || status=$?
	if [ "$status" -eq "$apt_lock_timed_out" ]; then
		echo "$0: $apt_lock_file held for $apt_lock_wait s by another vhca script" >&2
	fi
	return "$status"
}

# hold_apt_lock "$@", first thing in a script: run the whole script again
# holding the lock, and exit with its status.
hold_apt_lock() {
	[ -z "${VHCA_APT_LOCKED:-}" ] || return 0
	local status=0
	with_apt_lock bash "$0" "$@" || status=$?
	exit "$status"
}
