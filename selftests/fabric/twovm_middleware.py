"""Middleware between two VMs through the standalone switch (`make
check-fabric-middleware`; Documentation/fabric-tests.md "Middleware across
VMs").

The programs and settings of `make check-middleware`
(selftests/verbs/middleware.py, libfabric.py), with the server in VM b
and the client in VM a instead of two ports of one guest: UCX's
ucx_perftest (a latency, a bandwidth and an RMA test) over rc_verbs and
over ud_verbs alone (UCX_TLS, UCX_NET_DEVICES=vhca0:1: nothing but the
vhca port can carry them), and libfabric's fi_pingpong with its data
checked (-c) over a msg endpoint (rdma_cm) and an rdm endpoint (ofi_rxm
over verbs RC).  Both bootstrap over IPoIB (fabriclib's addresses).
Not in `make test`: a pair of guests of its own.

Open MPI across the two VMs is launched as on a cluster: the guests get
host names (HOSTS, in /etc/hosts at their IPoIB addresses), VM b runs sshd
on its IPoIB address with VM a's root key authorized, and mpirun in VM a
(Open MPI 5's PRRTE, whose default launcher is ssh, plm_ssh_agent) starts
its daemon in VM b over ssh; PRRTE's own traffic stays on IPoIB
(oob_tcp_if_include), MPI's goes over UCX on vhca0:1 (pml ucx, btl self).
"""
import os
import re
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "verbs"))
import fabriclib  # noqa: E402
import libfabric  # noqa: E402
import middleware  # noqa: E402
import vmlib  # noqa: E402
from fabriclib import ADDR  # noqa: E402

UCX_CASES = [t for t in middleware.PERF_TESTS if t[0] in middleware.DEVICE_PAIR_TESTS]
UCX_DEVICE = "vhca0:1"
# Each VM's host name; ADDR's IPoIB address in both VMs' /etc/hosts.
HOSTS = {"a": "mw-a", "b": "mw-b"}
SSHD = "/usr/sbin/sshd"


@pytest.fixture(scope="module")
def fabric():
    with fabriclib.two_vms(tag="fabric-mw") as state:
        yield state


@pytest.mark.parametrize("test,size,iters", UCX_CASES, ids=[c[0] for c in UCX_CASES])
@pytest.mark.parametrize("transport", sorted(middleware.TRANSPORTS))
def test_ucx_perftest_across_vms(fabric, transport, test, size, iters):
    """Both ends exit 0 and the client prints its final result line with
    the iteration count."""
    env = middleware.ucx_env(middleware.TRANSPORTS[transport], UCX_DEVICE)
    port = middleware.UCX_PORT
    _, cout = fabriclib.pair_ok(
        fabric, middleware.ucx_perftest(env, "-p %d" % port),
        middleware.ucx_perftest(env, "%s -p %d -t %s -s %s -n %d -w 10 -f"
                                % (ADDR["b"], port, test, size, iters)),
        "ucx-%s-%s" % (transport, test), listening=vmlib.tcp_listening(port))
    assert middleware.UCX_FINAL.findall(cout) == [str(iters)], cout


@pytest.mark.parametrize("endpoint", sorted(libfabric.FI_ENDPOINTS))
def test_fi_pingpong_across_vms(fabric, endpoint):
    """100 checked 1 KiB ping-pongs; the client reports them."""
    cmd = libfabric.fi_pingpong_command(endpoint)
    _, cout = fabriclib.pair_ok(
        fabric, cmd, "%s %s" % (cmd, ADDR["b"]), "fi-" + endpoint,
        listening=vmlib.tcp_listening(libfabric.FI_PORT))
    assert libfabric.FI_RESULT.search(cout), cout


def name_hosts(fabric):
    """Each VM named HOSTS[name], every name in every /etc/hosts at its
    IPoIB address (the guests' init names them all vhca-guest)."""
    hosts = "".join("%s %s\\n" % (ADDR[n], HOSTS[n]) for n in sorted(HOSTS))
    for name, vm in fabric["vms"].items():
        vm.run("hostname %s && echo %s > /etc/hostname && printf '%s' >> /etc/hosts"
               % (HOSTS[name], HOSTS[name], hosts), timeout=30, check=True)


def start_sshd(vm, name):
    """sshd on the VM's IPoIB address only (its host keys: the ones
    openssh-server's postinst made in the guest root, ssh-keygen -A makes
    any missing; /run/sshd: the privilege separation directory that
    systemd-tmpfiles would make)."""
    vm.run("ssh-keygen -A && mkdir -p -m 0755 /run/sshd && "
           "%s -o ListenAddress=%s" % (SSHD, ADDR[name]), timeout=120, check=True)
    vm.run(vmlib.wait_for(vmlib.tcp_listening(22), 60), timeout=90, check=True)


def authorize(client, server, server_name):
    """client's root may ssh into server as root, without a prompt: a key
    pair made in client, its public half in server's authorized_keys,
    server's host key in client's known_hosts (what ssh-copy-id and a
    first accepted connection would leave), BatchMode so that nothing ever
    asks on the console."""
    client.run("mkdir -p -m 0700 /root/.ssh && "
               "ssh-keygen -q -t ed25519 -N '' -f /root/.ssh/id_ed25519 && "
               "printf 'Host mw-*\\n\\tBatchMode yes\\n' > /root/.ssh/config",
               timeout=120, check=True)
    _, key = client.run("cat /root/.ssh/id_ed25519.pub", timeout=30, check=True)
    server.run("mkdir -p -m 0700 /root/.ssh && echo '%s' >> /root/.ssh/authorized_keys && "
               "chmod 0600 /root/.ssh/authorized_keys" % key.strip(), timeout=30, check=True)
    _, host_key = server.run("cut -d' ' -f1,2 /etc/ssh/ssh_host_ed25519_key.pub",
                             timeout=30, check=True)
    client.run("echo '%s,%s %s' >> /root/.ssh/known_hosts"
               % (HOSTS[server_name], ADDR[server_name], host_key.strip()),
               timeout=30, check=True)


@pytest.fixture(scope="module")
def cluster(fabric):
    """The two VMs as a two-node cluster: named, sshd in VM b, VM a's root
    authorized there."""
    if not os.path.exists(os.path.join(vmlib.guest_root_dir(), SSHD.lstrip("/"))):
        pytest.skip("the guest root has no %s (openssh-server: GUEST_ROOT=trixie, "
                    "scripts/build-guest-root.sh)" % SSHD)
    a, b = fabric["vms"]["a"], fabric["vms"]["b"]
    name_hosts(fabric)
    start_sshd(b, "b")
    authorize(a, b, "b")
    yield fabric


def test_ssh_into_other_vm(cluster):
    """VM a's root runs a command in VM b over ssh on IPoIB, no prompt."""
    a = cluster["vms"]["a"]
    rc, out = a.run("timeout 60 ssh %s 'hostname; cat /sys/class/infiniband/vhca0/node_guid'"
                    % HOSTS["b"], timeout=90)
    fabriclib.log("ssh %s" % HOSTS["b"], out)
    assert rc == 0 and out.split()[:2] == [HOSTS["b"], guid_text(fabriclib.NODES["b"])], out


def guid_text(guid):
    """A node GUID as sysfs prints it (0123:4567:89ab:cdef)."""
    text = "%016x" % guid
    return ":".join(text[i:i + 4] for i in range(0, 16, 4))


# Each rank says where it runs (host name, node GUID of vhca0: which VM's
# HCA it uses) and with which UCX device, then becomes the program.
RANK_REPORT = ("echo mpi-rank $OMPI_COMM_WORLD_RANK $(hostname) "
               "$(cat /sys/class/infiniband/vhca0/node_guid) $UCX_NET_DEVICES; exec %s")
RANK_LINE = re.compile(r"^mpi-rank (\d+) (\S+) (\S+) (\S+)$", re.M)


def mpirun_across(tls, program, seconds):
    """VM a's command line of `program` on two ranks, rank 0 in VM a and
    rank 1 in VM b (--host: one slot each; PRRTE maps mpirun's own node
    first, whatever the order), UCX's settings exported to both (-x); prints
    mpi-status=<mpirun's exit status>.  One application context, no ':'
    (prterun of Open MPI 5 dies of SIGSEGV on MPMD, middleware.mpirun_two_ranks)."""
    env = " ".join("-x " + v for v in middleware.ucx_env(tls, UCX_DEVICE).split())
    return ("timeout %d mpirun --allow-run-as-root %s --host %s:1,%s:1 -np 2 "
            "--mca oob_tcp_if_include %s %s sh -c '%s'; echo mpi-status=$?"
            % (seconds, middleware.MPI_UCX_ONLY, HOSTS["a"], HOSTS["b"],
               fabriclib.NET, env, RANK_REPORT % program))


@pytest.mark.parametrize("transport", sorted(middleware.TRANSPORTS))
def test_mpi_across_vms(cluster, transport):
    """mpi_check (every byte of 1 B to 1 MiB point-to-point, Bcast,
    Allreduce, Alltoall checked) with rank 0 in VM a and rank 1 in VM b,
    only UCX over vhca0:1 between them; each rank must report its own VM's
    host name and HCA node GUID."""
    middleware.build_mpi_check()
    a = cluster["vms"]["a"]
    _, out = a.run(mpirun_across(middleware.TRANSPORTS[transport],
                                 middleware.MPI_CHECK, 300), timeout=360)
    fabriclib.log("mpirun across VMs %s" % transport, out)
    assert "mpi-status=0" in out and "mpi_check: ok" in out, out
    ranks = sorted(RANK_LINE.findall(out))
    assert ranks == [(str(i), HOSTS[n], guid_text(fabriclib.NODES[n]), UCX_DEVICE)
                     for i, n in enumerate("ab")], out
