"""Middleware runs killed while their RDMA traffic is in flight (the
middleware soak's VHCA_SOAK_MIDKILLS, soak_middleware.py).

A user's Ctrl-C or a job scheduler's time limit ends an MPI job or a
ucx_perftest with SIGKILL in the middle of its transfers: its QPs still
have work queued, RDMA READs and WRITEs of 64 KiB to 4 MiB target its
registrations, and its peer keeps sending.  The kernel then destroys the
process's objects at file release (ib_uverbs' cleanup) while the device
may still be executing them, and the peer's QPs run into retry and
transport errors.  One episode: a run of EPISODES, SIGKILL to one of its
two processes (a random one) after AFTER seconds (random), GRACE seconds
for the survivor to notice, then SIGKILL to whatever is left.  The caller
checks that nothing stays behind (footprint.py).
"""
import time

import vmlib
from middleware import mpi_check_pingpong, mpirun_two_ranks, ucx_env, ucx_perftest

# (name, what runs): the 4 MiB ping-pong of mpi_check in the same buffers
# and in fresh ones (UCX's registration cache deregistering under it), and
# ucx_perftest's bandwidth tests of the series, RDMA SEND, WRITE and READ.
EPISODES = {
    "mpi": ("mpi", ""),
    "mpi-fresh": ("mpi", "fresh"),
    "tag_bw": ("perftest", "-t tag_bw -s 1048576"),
    "ucp_put_bw": ("perftest", "-t ucp_put_bw -s 65536"),
    "ucp_get": ("perftest", "-t ucp_get -s 262144"),
}
AFTER = (1.0, 10.0)
GRACE = 8
PROCESSES = ("mpirun", "mpi_check", "ucx_perftest", "prted", "orted")
LOG = "/tmp/soak-midkill.log"


def start_mpi(vm, tls, ports, buffers, oob_on_lo):
    """mpi_check's 4 MiB ping-pong on two ranks, in the background."""
    cmd = mpirun_two_ranks(tls, ports, mpi_check_pingpong(buffers), 300, oob_on_lo=oob_on_lo)
    # stdin from /dev/null: mpirun forwards its stdin to rank 0, and the
    # guest's stdin is the harness's console.
    vm.run("( %s ) < /dev/null > %s 2>&1 &" % (cmd, LOG), timeout=60)
    return "mpi_check"


def start_perftest(vm, tls, ports, test, port):
    """A ucx_perftest pair with more iterations than it can finish."""
    server_port, client_port = ports or (None, None)
    server = ucx_perftest(ucx_env(tls, server_port), "-p %d" % port)
    client = ucx_perftest(ucx_env(tls, client_port),
                          "localhost -p %d %s -n 100000000 -w 10 -f" % (port, test))
    vm.run("(%s < /dev/null > %s.server 2>&1 &); %s; (%s < /dev/null > %s 2>&1 &)"
           % (server, LOG, vmlib.wait_for(vmlib.tcp_listening(port), 60), client, LOG),
           timeout=120)
    return "ucx_perftest"


def reap(vm):
    """GRACE seconds for the survivors to exit, then SIGKILL to them;
    returns how long they took and what was left."""
    alive = " || ".join("pgrep -x %s >/dev/null" % p for p in PROCESSES)
    _, out = vm.run(
        "i=0; while [ $i -lt %d ] && { %s; }; do sleep 1; i=$((i+1)); done; "
        "echo survivors-waited=${i}s; ps -eo pid,stat,comm | grep -wE '%s'; "
        "for p in %s; do pkill -9 -x $p; done; sleep 1; true"
        % (GRACE, alive, "|".join(PROCESSES), " ".join(PROCESSES)), timeout=120)
    return out


def episode(vm, pick, tls, ports, oob_on_lo, port):
    """One run of a random EPISODES entry killed mid-traffic; returns a
    line of what was killed when, with the run's and the reaping's
    output, for the caller's log."""
    name = pick.choice(sorted(EPISODES))
    kind, arg = EPISODES[name]
    after = pick.uniform(*AFTER)
    # pkill -o: the oldest (the server, or rank 0), -n: the newest.
    victim = pick.choice(("-o", "-n"))
    if kind == "mpi":
        process = start_mpi(vm, tls, ports, arg, oob_on_lo)
    else:
        process = start_perftest(vm, tls, ports, arg, port)
    time.sleep(after)
    _, out = vm.run("tail -n 3 %s; pkill -9 %s -x %s && echo killed-mid-run"
                    % (LOG, victim, process), timeout=60)
    return ("%s, %s %s killed after %.1f s\n%s\n%s"
            % (name, "the older" if victim == "-o" else "the newer", process, after,
               out, reap(vm)))
