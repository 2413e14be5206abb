"""IPoIB between two vhca devices: the fabric SM's SA (multicast joins,
path records) and the data path under Linux's ib_ipoib.

Port 1 of vhca0 and port 1 of vhca1 each go into a network namespace of
their own (so that traffic between the two addresses has to cross the
fabric), get an IPv4 address, and must ping each other and carry a TCP
stream (64 MiB; 8 MiB on the debug kernel, see TCP_BYTES) whose SHA-256 is
the same on both ends: first in datagram mode
(UD QPs, the broadcast group's MTU: 2044), then in connected mode (RC QPs,
an SRQ, MTU 65520).  Last, vhca.ko is unloaded while both interfaces are
up, and loaded again.  The guest has no ping/nc: scripts/guest/net-tool.py
does ICMP echo and the TCP stream.  The tests share the session VM and run
in file order.
"""
import pytest

import vmlib

TOOL = "python3 %s/scripts/guest/net-tool.py" % vmlib.REPO
ADDR = {"nsa": "10.77.0.1", "nsb": "10.77.0.2"}
# (namespace, device) -> its port 1's IPoIB interface goes there.
PLAN = (("nsa", "vhca0"), ("nsb", "vhca1"))
BROADCAST_MGID = "ff12:401b:ffff::ffff:ffff"
# The debug kernel under TCG moves IPoIB data about 8 times slower (KASAN
# checks every access): 64 MiB took 190 s there, and what it finds (a bad
# access, a leak, a lock order) is found in the first megabytes.
TCP_BYTES = (8 if vmlib.KERNEL_CHOICE == "debug" else 64) << 20


def ensure_ipoib_driver(vm, module_path):
    """ib_ipoib loaded (vhca.ko is, by the session fixture)."""
    vm.run("modprobe ib_ipoib", timeout=120, check=True)


def ipoib_netdev(vm, ibdev, port=1):
    """The IPoIB interface of ibdev's port (ipoib sets dev_port = port - 1)."""
    cmd = ("for n in /sys/class/infiniband/%s/device/net/*; do "
           "echo ${n##*/} $(cat $n/dev_port); done" % ibdev)
    out = vm.wait_until(cmd, lambda text: any(
        line.split()[1:] == [str(port - 1)] for line in text.splitlines()
        if len(line.split()) == 2), timeout=60)
    for line in out.splitlines():
        name, dev_port = line.split()
        if dev_port == str(port - 1):
            return name
    raise AssertionError("no IPoIB interface for %s port %d" % (ibdev, port))


def dmesg_mark(vm):
    return len(vm.dmesg().splitlines())


def new_bad_dmesg(vm, mark):
    return vmlib.bad_dmesg_lines("\n".join(vm.dmesg().splitlines()[mark:]))


@pytest.fixture(scope="module")
def ipoib(vm, module_path):
    """{namespace: interface}, each up with its address in its namespace."""
    ensure_ipoib_driver(vm, module_path)
    vm.wait_until("cat /sys/class/infiniband/*/ports/*/state",
                  lambda t: t.count("ACTIVE") == 3, timeout=60)
    names = {}
    for ns, ibdev in PLAN:
        names[ns] = ipoib_netdev(vm, ibdev)
    for ns, ifname in names.items():
        vm.run("ip netns add {ns} && ip link set {i} netns {ns} && "
               "ip -n {ns} link set lo up && "
               "ip -n {ns} addr add {a}/24 dev {i} && "
               "ip -n {ns} link set {i} up".format(ns=ns, i=ifname, a=ADDR[ns]),
               timeout=60, check=True)
    for ns, ifname in names.items():
        vm.wait_until("ip -n %s link show %s" % (ns, ifname),
                      lambda t: "LOWER_UP" in t and "mtu 2044" in t, timeout=60)
    yield names
    # Give the interfaces back (if the driver still has them) and drop the
    # namespaces.
    for ns, ifname in names.items():
        vm.run("ip -n {ns} link set {i} netns 1 2>/dev/null; "
               "ip netns del {ns}".format(ns=ns, i=ifname), timeout=60)


def ping(vm, src_ns, dst_ns, count=3):
    rc, out = vm.run("ip netns exec %s %s ping %s %d 5" %
                     (src_ns, TOOL, ADDR[dst_ns], count), timeout=120)
    assert rc == 0 and "%d received" % count in out, out


def tcp_transfer(vm, nbytes=TCP_BYTES):
    """A TCP stream nsa -> nsb; the same byte count and SHA-256 both ends."""
    vm.run("rm -f /tmp/ipoib-srv.out; ip netns exec nsb %s serve 5001 %d "
           "> /tmp/ipoib-srv.out 2>&1 &" % (TOOL, nbytes), timeout=30, check=True)
    vm.wait_until("cat /tmp/ipoib-srv.out", lambda t: "listening" in t, timeout=30)
    rc, sent = vm.run("ip netns exec nsa %s send %s 5001 %d" %
                      (TOOL, ADDR["nsb"], nbytes), timeout=600)
    assert rc == 0, sent
    received = vm.wait_until("cat /tmp/ipoib-srv.out",
                             lambda t: "sha256=" in t, timeout=120)
    sent_line = [l for l in sent.splitlines() if "sha256=" in l][0]
    recv_line = [l for l in received.splitlines() if "sha256=" in l][0]
    assert sent_line.startswith("bytes=%d " % nbytes), sent_line
    assert recv_line == sent_line, "sent %s, received %s" % (sent_line, recv_line)


def set_mode(vm, ns, ifname, mode, mtu):
    vm.run("ip netns exec {ns} sh -c 'echo {m} > /sys/class/net/{i}/mode' && "
           "ip -n {ns} link set {i} mtu {mtu}".format(ns=ns, i=ifname, m=mode,
                                                        mtu=mtu),
           timeout=60, check=True)
    rc, out = vm.run("ip netns exec %s cat /sys/class/net/%s/mode" % (ns, ifname),
                     timeout=30, check=True)
    assert out.strip() == mode


def test_ipoib_joins_broadcast_group_with_mtu_2044(vm, ipoib):
    for ns, ifname in ipoib.items():
        rc, out = vm.run("ip -n %s link show %s; ip netns exec %s cat "
                         "/sys/class/net/%s/mode" % (ns, ifname, ns, ifname),
                         timeout=30, check=True)
        assert "mtu 2044" in out and "datagram" in out, out
    # Both ports are full members of the IPoIB broadcast group (MLID 0xc000).
    rc, out = vm.run("saquery -m", timeout=60, check=True)
    members = [blk for blk in out.split("MCMemberRecord member dump:")
               if BROADCAST_MGID in blk]
    assert len(members) >= 2, out
    assert all("Mlid....................0xC000" in blk for blk in members), out


def test_ipoib_datagram_ping(vm, ipoib):
    ping(vm, "nsa", "nsb")
    ping(vm, "nsb", "nsa")


def test_ipoib_datagram_tcp_checksum(vm, ipoib):
    tcp_transfer(vm)


def test_ipoib_connected_mode_ping_and_tcp_checksum(vm, ipoib):
    mark = dmesg_mark(vm)
    for ns, ifname in ipoib.items():
        set_mode(vm, ns, ifname, "connected", 65520)
    ping(vm, "nsa", "nsb")
    tcp_transfer(vm)
    assert not new_bad_dmesg(vm, mark)
    for ns, ifname in ipoib.items():
        set_mode(vm, ns, ifname, "datagram", 2044)
    ping(vm, "nsa", "nsb")


def test_ipoib_rmmod_while_up_is_clean(vm, ipoib, module_path):
    mark = dmesg_mark(vm)
    ping(vm, "nsa", "nsb", count=1)
    vm.run("rmmod vhca", timeout=120, check=True)
    rc, out = vm.run("ls /sys/class/infiniband | wc -l", timeout=30, check=True)
    assert out.strip() == "0"
    bad = new_bad_dmesg(vm, mark)
    assert not bad, "\n".join(bad)
    # Back as the other tests expect it (the namespaces are dropped by the
    # fixture; their interfaces went with the driver).
    vm.run("insmod %s" % module_path, timeout=120, check=True)
    vm.wait_until("cat /sys/class/infiniband/*/ports/*/state",
                  lambda t: t.count("ACTIVE") == 3, timeout=60)
