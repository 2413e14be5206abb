"""Real middleware on vhca's user verbs (`make check-middleware`).

Debian's UCX 1.13, Open MPI 4.1 and libfabric 1.17, unchanged, in one guest
set up as for uverbs.py (vhca.ko, the provider of build/provider):

- UCX: `ucx_info -d` lists every vhca port with the rc_verbs and ud_verbs
  transports; ucx_perftest's UCP tests (tag matching, stream, put, get,
  active messages; latency and bandwidth) over rc_verbs and over ud_verbs
  alone (UCX_TLS, so neither shared memory nor TCP can carry them), between
  port 1 and port 2 of vhca0 and between vhca0 and vhca1 (UCX_NET_DEVICES).
  ucx_perftest does not check data; the MPI program below does.
- Open MPI over UCX (pml ucx, btl self only): programs/mpi_check.c, two
  ranks, point-to-point of 1 B to 1 MiB with every byte checked, Bcast,
  Allreduce and Alltoall checked, with the same UCX_TLS/UCX_NET_DEVICES
  restrictions per rank, and with both ranks on vhca0:1 and vhca1:1 (two
  rails, PAIRS).
- libfabric's verbs provider: `fi_info -p verbs` lists the vhca domains;
  fi_pingpong -c over a msg endpoint (rdma_cm over IPoIB) and over an rdm
  endpoint (ofi_rxm over verbs), libfabric.py.

The file name does not match test_*.py: only `make check-middleware` runs it.
"""
import os
import re
import subprocess
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import vmlib  # noqa: E402
from vmlib import log  # noqa: E402
from libfabric import fi_pingpong  # noqa: E402
from uverbs import assert_eq_agreement, ipoib, run_pair, verbs_vm  # noqa: E402,F401

PROGRAMS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "programs")
MPI_CHECK = os.path.join(vmlib.BUILD, "middleware", "mpi_check")


def mpi_check_pingpong(buffers=""):
    """mpi_check's 4 MiB ping-pong, issue 24's (the middleware soak and its
    mid-traffic kills); buffers "fresh": a new mapping each round trip."""
    return "%s 4194304 %s" % (MPI_CHECK, buffers)

# UCX_NET_DEVICES of the server (or rank 0) and the client (rank 1).
# rails: both ranks on a port of each device, so UCX's rendezvous spreads
# a message over two rails (UCX_MAX_RNDV_RAILS, 2 by default).  Not both
# ports of vhca0 in one process: UCX 1.18 (Debian 13) counts the ports of
# one PCI function as one device (ucp_tl_resource_is_same_device: the same
# sys_device) and packs one device address, the last port's LID, for both
# ports' interfaces, so the other port's peers address a QP at the wrong
# LID and UCX's UD wire-up times out ("ud_ep.c: unhandled timeout error";
# UCX 1.13 packs a device address per port).  A UCX bug that hardware of
# one port per PCI function (ConnectX-4 and later) never meets;
# Documentation/usage.md "UCX on a device with two ports".
PAIRS = {
    "ports": ("vhca0:1", "vhca0:2"),
    "devices": ("vhca0:1", "vhca1:1"),
    "rails": ("vhca0:1,vhca1:1", "vhca0:1,vhca1:1"),
}
# UCX_TLS: "rc_v" is rc_verbs with ud_verbs only for connection
# establishment (UCX's alias); self for a process to itself.
TRANSPORTS = {
    "rc_verbs": "rc_v,self",
    "ud_verbs": "ud_v,self",
}
# ucx_perftest UCP tests: (test, message sizes, iterations).
PERF_TESTS = [
    ("tag_lat", "8", 200), ("tag_bw", "65536", 50),
    ("stream_lat", "8", 200), ("stream_bw", "65536", 50),
    ("ucp_put_lat", "8", 200), ("ucp_put_bw", "65536", 50),
    ("ucp_get", "4096", 100),
    ("ucp_am_lat", "8", 200), ("ucp_am_bw", "65536", 50),
]
UCX_PORT = 13337
# ucx_perftest -f's final line: iterations, then latency (typical,
# average, overall), bandwidth (average, overall), message rate (average,
# overall).  The averages cover the last report interval: when it ends
# on the last iteration (a periodic report just printed, on a loaded TCG
# host), none fell in it and the average latency is "inf" (the
# interval's time over 0 iterations; seen once on the Debian 13 root).
UCX_FINAL = re.compile(r"^\s+(\d+)(?:\s+(?:\d+\.\d+|inf)){5}\s+\d+\s+\d+\s*$", re.M)
# The tests between two devices (and two VMs, selftests/fabric/
# twovm_middleware.py): a latency, a bandwidth and an RMA test.
DEVICE_PAIR_TESTS = ("tag_lat", "tag_bw", "ucp_get")


@pytest.fixture(scope="module")
def vm():
    with verbs_vm("middleware") as machine:
        yield machine


def ucx_env(tls, device):
    """UCX's environment: transports tls on UCX device `device`, or on
    every device UCX finds (None: its default, rails over all ports)."""
    devices = "" if device is None else " UCX_NET_DEVICES=%s" % device
    return "UCX_TLS=%s%s UCX_WARN_UNUSED_ENV_VARS=n" % (tls, devices)


_perftest_mpi_off = None


def ucx_perftest(env, args):
    """The guest's command line of one ucx_perftest side (server: no
    address; client: the server's address first), its rendezvous over TCP.

    UCX 1.18 (Debian 13) is built with Open MPI: unless told `-P 0` (its
    usage: "disable/enable MPI mode") it sets itself up as an MPI singleton
    and refuses a peer-to-peer test "with exactly 2 processes ... (actual:
    1)".  UCX 1.13 (Debian 12) has no -P, so the guest root's binary is
    asked (it is a directory on the host) before the flag is added."""
    global _perftest_mpi_off
    if _perftest_mpi_off is None:
        binary = os.path.join(vmlib.guest_root_dir(), "usr", "bin", "ucx_perftest")
        with open(binary, "rb") as f:
            _perftest_mpi_off = b"-P <0|1>" in f.read()
    return "env %s ucx_perftest%s %s" % (env, " -P 0" if _perftest_mpi_off else "", args)


def test_ucx_info(vm):
    _, out = vm.run("ucx_info -d", timeout=120, check=True)
    log("ucx_info -d", out)
    for device in ("vhca0:1", "vhca0:2", "vhca1:1"):
        block = re.findall(r"#\s+Transport: (\w+)\n#\s+Device: %s\n" % device, out)
        assert "rc_verbs" in block and "ud_verbs" in block, (device, block)


# Every test between two ports; between two devices a latency, a bandwidth
# and an RMA test (the same code paths otherwise; keeps the tier short);
# rails is test_mpi's alone (data checked).
PERF_CASES = [("ports",) + t for t in PERF_TESTS] + \
    [("devices",) + t for t in PERF_TESTS if t[0] in DEVICE_PAIR_TESTS]


@pytest.mark.parametrize("pair,test,size,iters", PERF_CASES,
                         ids=["%s-%s" % (c[0], c[1]) for c in PERF_CASES])
@pytest.mark.parametrize("transport", sorted(TRANSPORTS))
def test_ucx_perftest(vm, transport, pair, test, size, iters):
    """One ucx_perftest server/client pair: both exit 0 and the client
    prints its final result line (-f) with the iteration count."""
    server_dev, client_dev = PAIRS[pair]
    tls = TRANSPORTS[transport]
    src, crc, sout, cout = run_pair(
        vm, ucx_perftest(ucx_env(tls, server_dev), "-p %d" % UCX_PORT),
        ucx_perftest(ucx_env(tls, client_dev), "localhost -p %d -t %s -s %s -n %d -w 10 -f"
                     % (UCX_PORT, test, size, iters)), timeout=120,
        listen_port=UCX_PORT)
    log("ucx_perftest %s %s %s" % (test, transport, pair), sout + "\n--- client ---\n" + cout)
    assert (src, crc) == (0, 0), sout + cout
    # -f: only the final line
    assert UCX_FINAL.findall(cout) == [str(iters)], cout


# mpirun's options that leave UCX the only way between ranks: pml ucx,
# btl self only (no shared memory, no TCP), and no UCX one-sided component.
MPI_UCX_ONLY = "--mca pml ucx --mca btl self --mca osc ^ucx"


def mpirun_two_ranks(tls, devices, program, seconds, oob_on_lo=True):
    """The guest's command line of `program` on two ranks, rank i on UCX
    device devices[i] (UCX_NET_DEVICES; devices None: both on every port),
    pml ucx and btl self only, so that nothing but UCX over those ports
    connects them; ends by printing mpi-status=<mpirun's exit status>.
    oob_on_lo: mpirun's own TCP (its out-of-band channel) on loopback; off
    for a guest whose IPoIB interfaces are up: there Open MPI 5's runtime
    finds no interface on lo ("oob:tcp ... no available interfaces",
    mpirun's exit status 213, seen on Debian 13), and with no restriction
    its channel runs over IPoIB.

    One application context whose ranks pick their device from
    OMPI_COMM_WORLD_RANK, not two contexts joined by ':' (MPMD): prterun of
    Open MPI 5 (Debian 13) dies of SIGSEGV on any ':' command line, even
    `mpirun -np 1 true : -np 1 true`."""
    if devices is None:
        pick = "exec env %s %s" % (ucx_env(tls, None), program)
    else:
        pick = "set -- %s; shift $OMPI_COMM_WORLD_RANK; exec env %s %s" % (
            " ".join(devices), ucx_env(tls, "$1"), program)
    return ("timeout %d mpirun --allow-run-as-root --oversubscribe %s %s"
            "--mca plm_rsh_agent false -np 2 sh -c '%s'; echo mpi-status=$?"
            % (seconds, MPI_UCX_ONLY, "--mca oob_tcp_if_include lo " if oob_on_lo else "",
               pick))


def build_mpi_check():
    os.makedirs(os.path.dirname(MPI_CHECK), exist_ok=True)
    subprocess.run(["mpicc", "-Wall", "-Wextra", "-Werror", "-O2", "-o", MPI_CHECK,
                    os.path.join(PROGRAMS, "mpi_check.c")], check=True)


@pytest.mark.parametrize("pair", sorted(PAIRS))
@pytest.mark.parametrize("transport", sorted(TRANSPORTS))
def test_mpi(vm, transport, pair):
    """mpi_check on two ranks, each restricted to its vhca port; pml ucx
    and btl self only, so nothing but UCX over vhca connects the ranks."""
    build_mpi_check()
    _, out = vm.run(mpirun_two_ranks(TRANSPORTS[transport], PAIRS[pair], MPI_CHECK, 240),
                    timeout=300)
    log("mpirun %s %s" % (transport, pair), out)
    assert "mpi-status=0" in out and "mpi_check: ok" in out, out


def test_fi_info(vm):
    _, out = vm.run("fi_info -p verbs", timeout=120, check=True)
    log("fi_info -p verbs", out)
    domains = set(re.findall(r"domain:\s+(\S+)", out))
    assert {"vhca0", "vhca1"} <= {d.split("-")[0] for d in domains}, out
    assert re.search(r"type:\s+FI_EP_MSG", out), out


@pytest.mark.parametrize("endpoint", ["msg", "rdm"])
def test_fi_pingpong(vm, ipoib, endpoint):
    fi_pingpong(vm, endpoint)


def test_eq_agreement(vm):
    """Last: after UCX, Open MPI and libfabric over both devices, the
    device and the driver agreed on every event queue (uverbs.py
    assert_eq_agreement)."""
    assert_eq_agreement(vm)
