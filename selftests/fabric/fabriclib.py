"""Two VMs cabled to the standalone switch (Documentation/fabric.md),
for `make check-fabric` (twovms.py) and the cross-VM rows of `make bench`
(scripts/bench_fabric.py).

two_vms() starts build/vhca-switch with two unix socket ports and boots
two guests (one vCPU each by default), each with one vhca port cabled to
a switch port through `-netdev stream` and the device's port1-netdev
property, vhca.ko, the provider, and IPoIB up with ADDR[name].
"""
import contextlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import vmlib  # noqa: E402

MODULE = vmlib.MODULE
PROVIDER = os.path.join(vmlib.BUILD, "provider")
SWITCH = os.path.join(vmlib.BUILD, "vhca-switch")
TOOL = "python3 %s/scripts/guest/net-tool.py" % vmlib.REPO
NODES = {"a": 0x5254000000000a00, "b": 0x5254000000000b00}
# IPoIB on vhca0 port 1 of each VM: one /24 (NET)
NET = "10.78.0.0/24"
ADDR = {"a": "10.78.0.1", "b": "10.78.0.2"}
TCP_BYTES = 8 << 20

WAIT_ACTIVE = ("for i in $(seq 1 300); do grep -q ACTIVE "
               "/sys/class/infiniband/vhca0/ports/1/state && exit 0; "
               "sleep 0.2; done; exit 1")


SYSFS_IB = "/sys/class/infiniband"


def log(title, text):
    print("==== %s ====\n%s" % (title, text))


def without_syslog(out):
    """opensm's syslog lines reach the guest's console (no syslog daemon
    there) and so the output of commands: drop them."""
    return "\n".join(line for line in out.splitlines()
                     if line.strip() and "OpenSM[" not in line)


def port_attr(vm, attr, dev="vhca0", port=1):
    """A port's sysfs attribute (lid, sm_lid, state, ...), stripped."""
    _, out = vm.run("cat %s/%s/ports/%d/%s" % (SYSFS_IB, dev, port, attr),
                    timeout=30, check=True)
    return without_syslog(out).strip()


def wait_sm_lid(vm, lid=None, not_lid=None, ports=None, timeout=120):
    """Until every port of ports ("vhca0/1", ...; None: every port of every
    device) is ACTIVE with MasterSMLID lid, or with any SM LID but not_lid
    (an SM other than that one is master); the last output, or VMTimeout
    with it."""
    paths = (["%s/%s/ports/%s" % ((SYSFS_IB,) + tuple(p.split("/"))) for p in ports]
             if ports else ["%s/*/ports/*" % SYSFS_IB])
    cmd = "for p in %s; do cat $p/state $p/sm_lid; done" % " ".join(paths)

    def settled(out):
        lines = [line.strip() for line in without_syslog(out).split("\n")]
        states = [line for line in lines if ": " in line]
        lids = [int(line, 16) for line in lines if line.startswith("0x")]
        return (bool(lids) and len(states) == len(lids) and
                all(state.endswith("ACTIVE") for state in states) and
                all(x == lid if lid is not None else x != not_lid for x in lids))
    return vm.wait_until(cmd, settled, timeout=timeout)


def boot(name, sockdir, smp=1, wait_active=True, tag="fabric"):
    # server=on: QEMU listens on vm-<name>.sock and the switch dials it
    # (--connect), so a restarted switch reconnects.
    vm = vmlib.VM(
        devices=["vhca,id=vhca0,ports=1,node-guid=0x%016x,doorbell-pages=64,"
                 "port1-netdev=wire0" % NODES[name]],
        extra_args=["-netdev", "stream,id=wire0,server=on,addr.type=unix,"
                    "addr.path=%s/vm-%s.sock" % (sockdir, name)],
        # no_timer_check: a one-vCPU TCG guest on a loaded host can fail
        # the kernel's IO-APIC timer check and panic at boot.
        name="%s-%s" % (tag, name), smp=smp, append="no_timer_check")
    vm.start()
    vm.run("modprobe -a ib_core ib_uverbs ib_umad ib_ipoib rdma_ucm",
           timeout=120, check=True)
    vm.run("insmod %s" % MODULE, timeout=120, check=True)
    vm.run("sh %s/scripts/guest/install-provider.sh %s" % (vmlib.REPO, PROVIDER),
           timeout=60, check=True)
    if wait_active:
        rc, _ = vm.run(WAIT_ACTIVE, timeout=120)
        assert rc == 0, "%s: port not ACTIVE" % name
        ipoib_up(vm, name)
    return vm


def ipoib_up(vm, name):
    """IPoIB up with ADDR[name] (its interface name in vm.ifname)."""
    _, ifname = vm.run("ls /sys/class/infiniband/vhca0/device/net/", timeout=30,
                       check=True)
    ifname = ifname.split()[0]
    vm.run("ip addr add %s/%s dev %s && ip link set %s up"
           % (ADDR[name], NET.split("/")[1], ifname, ifname),
           timeout=60, check=True)
    vm.ifname = ifname


def background(vm, cmd, tag, timeout=120):
    """Start cmd in vm; its output and exit status go to /tmp/<tag>.log."""
    vm.run("rm -f /tmp/%s.log; (timeout %d %s; echo \"status=$?\") > /tmp/%s.log 2>&1 &"
           % (tag, timeout, cmd, tag), timeout=30, check=True)


def finish(vm, tag, timeout=180):
    out = vm.wait_until("cat /tmp/%s.log" % tag, lambda t: "status=" in t,
                        timeout=timeout)
    status = int(re.search(r"status=(\d+)", out).group(1))
    return status, out


# A server is ready once it listens: perftest and the pingpongs on TCP
# 18515, rping and other rdma_cm servers with an RDMA CM ID in LISTEN.
LISTENING = (vmlib.tcp_listening(18515) + " || "
             "rdma res show cm_id 2>/dev/null | grep -q LISTEN")


def wait_listening(vm, limit=60, listening=LISTENING):
    """Until a server listens in vm (a loaded host can take many seconds
    to start one; a fixed sleep made rping's client connect too early and
    be REJECTED), then a moment for it to reach accept.  listening: the
    guest shell condition (vmlib.tcp_listening(port) for another port)."""
    vm.run(vmlib.wait_for(listening, limit), timeout=limit + 30)
    time.sleep(0.5)


def pair(fabric, server, client, tag, timeout=150, listening=LISTENING):
    """server in VM b, client in VM a (which names b's IPoIB address);
    listening: the condition of a server that is ready (wait_listening)."""
    a, b = fabric["vms"]["a"], fabric["vms"]["b"]
    background(b, server, tag, timeout)
    wait_listening(b, listening=listening)
    crc, cout = a.run("timeout %d %s" % (timeout, client), timeout=timeout + 30)
    src, sout = finish(b, tag, timeout + 30)
    log(tag, "server:\n%s\nclient:\n%s" % (sout, cout))
    return src, crc, sout, cout


def pair_ok(fabric, server, client, tag, timeout=150, listening=LISTENING, progress=None):
    """pair(), both ends must exit 0: their outputs.  progress (a host
    file): pair_watched() instead."""
    if progress:
        src, crc, sout, cout = pair_watched(fabric, server, client, tag, timeout,
                                            listening, progress)
    else:
        src, crc, sout, cout = pair(fabric, server, client, tag, timeout, listening)
    assert (src, crc) == (0, 0), sout + cout
    return sout, cout


def pair_watched(fabric, server, client, tag, timeout, listening, progress):
    """pair() of a long run: the client in VM a's background too, and the
    last lines of both logs written to the host file `progress` every
    minute until both have ended (vmlib.watch_progress), their whole
    output at the end."""
    a, b = fabric["vms"]["a"], fabric["vms"]["b"]
    background(b, server, tag, timeout)
    wait_listening(b, listening=listening)
    background(a, client, tag + "-client", timeout)

    def tails():
        server_tail = b.run("tail -n 3 /tmp/%s.log" % tag, timeout=120)[1]
        client_tail = a.run("tail -n 3 /tmp/%s-client.log" % tag, timeout=120)[1]
        text = "server:\n%s\nclient:\n%s" % (server_tail.rstrip(), client_tail.rstrip())
        return text, "status=" in server_tail and "status=" in client_tail

    vmlib.watch_progress(progress, tails, 60, timeout + 120)
    crc, cout = finish(a, tag + "-client", 120)
    src, sout = finish(b, tag, 120)
    vmlib.append_progress(progress, "server:\n%s\nclient:\n%s" % (sout, cout))
    log(tag, "server:\n%s\nclient:\n%s" % (sout, cout))
    return src, crc, sout, cout


def start_switch(sockdir, log_file, embedded_sm=True, switch_args=()):
    """The switch of the two VMs: port 1 dials VM a, port 2 VM b;
    switch_args: more options (its SM's, e.g. --sm-priority)."""
    extra = [] if embedded_sm else ["--embedded-sm", "off", "--verbose"]
    extra += list(switch_args)
    return subprocess.Popen(
        [SWITCH, "--ports", "2", "--control", os.path.join(sockdir, "control"),
         "--connect", "1=%s/vm-a.sock" % sockdir,
         "--connect", "2=%s/vm-b.sock" % sockdir] + extra,
        stdout=log_file, stderr=subprocess.STDOUT)


@contextlib.contextmanager
def two_vms(smp=1, embedded_sm=True, tag=None, switch_args=()):
    """{"vms": {"a", "b"}, "switch", "log", "logfile", "sockdir", "tag"};
    stops every guest and the switch on the way out.  embedded_sm False:
    the switch has no SM, the ports stay INIT (no IPoIB address yet) until
    the caller runs one (selftests/fabric/opensm.py).  tag names the logs
    (build/vm-logs/<tag>-*); switch_args go to the switch."""
    for path in (MODULE, SWITCH, os.path.join(PROVIDER, "libvhca-rdmav34.so")):
        if not os.path.exists(path):
            raise FileNotFoundError("%s missing: run `make module provider switch`" % path)
    sockdir = tempfile.mkdtemp(prefix="vhca-switch-")
    os.makedirs(os.path.join(vmlib.BUILD, "vm-logs"), exist_ok=True)
    # logs: build/vm-logs/fabric-* (fabric-osm-* without the embedded SM)
    tag = tag or ("fabric" if embedded_sm else "fabric-osm")
    swlog_path = os.path.join(vmlib.BUILD, "vm-logs", tag + "-switch.log")
    swlog = open(swlog_path, "wb")
    state = {"vms": {}, "switch": start_switch(sockdir, swlog, embedded_sm,
                                                 switch_args),
             "log": swlog_path, "logfile": swlog, "sockdir": sockdir,
             "tag": tag}
    try:
        state["vms"]["a"] = boot("a", sockdir, smp, embedded_sm, tag)
        state["vms"]["b"] = boot("b", sockdir, smp, embedded_sm, tag)
        yield state
    finally:
        for vm in state["vms"].values():
            vm.shutdown()
        state["switch"].terminate()
        state["switch"].wait(timeout=10)
        swlog.close()
        shutil.rmtree(sockdir, ignore_errors=True)


def switch_log(fabric):
    """The switch's log of a two_vms() fabric so far."""
    fabric["logfile"].flush()
    with open(fabric["log"], "rb") as f:
        return f.read().decode(errors="replace")


def opensm_trap_timeouts(osm_log):
    """The lines of opensm's log (its text) that say a Trap opensm sent
    (its Trap 144 to the master SM it found, IBA 13.4.9) was never
    answered with TrapRepress: its MAD controller's ERR 3113 for
    SubnTrap(Notice) and its vendor layer's ERR 5410 for a LID-routed
    Method 0x5 (on the line after it), both IB_TIMEOUT (issue 24)."""
    lines = osm_log.splitlines()
    found = []
    for i, line in enumerate(lines):
        after = lines[i + 1] if i + 1 < len(lines) else ""
        if "IB_TIMEOUT" not in line:
            continue
        if "ERR 3113:" in line and "SubnTrap" in line:
            found.append(line)
        elif "ERR 5410:" in line and "Method 0x5," in after:
            found.append(line + "\n" + after)
    return found

