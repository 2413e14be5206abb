# shellcheck shell=sh
# Sourced by the scripts that compile on the host (run-unit.sh,
# run-fuzz.sh, build-module.sh, build-provider.sh): compiler output is
# cached by ccache in $VHCA_CACHE/ccache (default ~/.cache/vhca/ccache),
# keyed by the preprocessed source and the flags, so that a fresh clone
# compiles only what changed (README "Caches").  Paths under the clone
# are hashed relative to it (CCACHE_BASEDIR) and the working directory
# is left out of the hash (CCACHE_NOHASHDIR: -g puts it in the debug
# information, which then names the clone that filled the cache).
# Sets VHCA_CCACHE to "ccache " (with the space, a command prefix), or to
# "" when ccache is not installed or VHCA_CCACHE=0 was given.
if [ "${VHCA_CCACHE:-1}" != 0 ] && command -v ccache > /dev/null; then
	export CCACHE_DIR=${VHCA_CACHE:-$HOME/.cache/vhca}/ccache
	export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$PWD}"
	export CCACHE_NOHASHDIR=1
	export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-4G}
	VHCA_CCACHE="ccache "
else
	VHCA_CCACHE=""
fi
