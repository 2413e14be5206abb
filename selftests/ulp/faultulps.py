"""Each storage ULP as `make check-fault-rules` (ulp_faultrules.py) drives
it: start and stop its target, connect and disconnect its host (the
scripts of scripts/guest/ulp/), the file fio verifies on, and the two
verdicts on what the ULP did across a fault: quiet() after an RC-level
fault the transport hides (no ULP recovery at all), recovered() after a
link flap that outlasts the QP's retries (the ULP's own recovery path).
Both take what state() read before the fault and the kernel log since.
"""
import re

import ulplib

NFS_VERS = "3"
NFS_NET = "10.78.0.0/24"


def script(vm, name, *args, timeout=300):
    return ulplib.run_script(vm, name, *args, timeout=timeout).strip().splitlines()[-1]


def no_lines(pattern, log, what):
    found = re.findall(r"^.*(?:%s).*$" % pattern, log, re.M)
    assert not found, "%s:\n%s" % (what, "\n".join(found))


def has_line(pattern, log, what):
    assert re.search(pattern, log), "no %s in the kernel log:\n%s" % (what, log[-6000:])


class Nvme:
    """nvmet-rdma and nvme-rdma (nvme.sh); recovery: the controller's
    error recovery reconnects (nvme_rdma_error_recovery, then
    nvme_rdma_reconnect_ctrl_work every reconnect_delay, 10 s)."""
    name = "nvme"
    backend = ulplib.BACKENDS["nvme"]
    # nvme_rdma_route_resolved(): param.rnr_retry_count = 7 (no limit)
    RNR_RETRY = 7
    RECOVERY = r"nvme nvme\d+: (Reconnecting|resetting|Successfully reconnected)"

    def __init__(self, vm, fabric):
        self.vm, self.fabric = vm, fabric

    def start(self):
        ulplib.run_script(self.vm, "nvme", "target-start", self.fabric.target_ip, self.backend)

    def stop(self):
        ulplib.run_script(self.vm, "nvme", "target-stop")

    def connect(self):
        script(self.vm, "nvme", "connect", self.fabric.target_ip)

    def disconnect(self):
        self.vm.run(ulplib.script("nvme", "disconnect"), timeout=120)

    def io_target(self):
        return script(self.vm, "nvme", "device")

    def state(self):
        return {}

    def live(self):
        ctrl = script(self.vm, "nvme", "controller")
        self.vm.wait_until("cat /sys/class/nvme/%s/state" % ctrl,
                           lambda t: t.strip().endswith("live"), timeout=180)

    def prepare_flap(self):
        pass

    def quiet(self, before, log):
        no_lines(self.RECOVERY, log, "nvme-rdma recovered from a fault RC hides")
        self.live()

    def recovered(self, before, log):
        has_line(r"nvme nvme\d+: (Reconnecting|Successfully reconnected)", log,
                 "nvme-rdma reconnect")
        self.live()


class Iser:
    """LIO's isert and open-iscsi over ib_iser (iser.sh); recovery: ib_iser
    reports the connection's failure (libiscsi's "detected conn error"),
    the session is FAILED and holds its I/O for recovery_tmo while
    iscsid logs in again ("... is operational after recovery" in iscsid's
    log, iser.sh's ISCSID_LOG), the session back LOGGED_IN."""
    name = "iser"
    backend = ulplib.BACKENDS["iser"]
    # iser_route_handler(): conn_param.rnr_retry_count = 6
    RNR_RETRY = 6
    CONN_ERROR = r"connection\d+:\d+: detected conn error"
    RELOGIN = r"connection\d+:\d+ is operational after recovery"
    ISCSID_LOG = "/run/iscsid.log"
    SESSION_STATE = "cat /sys/class/iscsi_session/session*/state"
    # Seconds the session holds its I/O once the connection is lost
    # (open-iscsi's replacement_timeout; iser.sh sets 20): the flap is
    # 15 s and begins about 4 s before ib_iser sees it, iscsid's logins
    # are tried every few seconds, and a session that gave up before one
    # of them got through would fail fio's I/O, which is not the
    # recovery this case aims at.
    RECOVERY_TMO = 60

    def __init__(self, vm, fabric):
        self.vm, self.fabric = vm, fabric

    def start(self):
        ulplib.run_script(self.vm, "iser", "target-start", self.fabric.target_ip,
                          self.backend, timeout=300)

    def stop(self):
        ulplib.run_script(self.vm, "iser", "target-stop", timeout=300)

    def connect(self):
        script(self.vm, "iser", "login", self.fabric.target_ip)

    def disconnect(self):
        self.vm.run(ulplib.script("iser", "logout", self.fabric.target_ip), timeout=300)

    def io_target(self):
        return script(self.vm, "iser", "disk")

    def state(self):
        return {"relogins": self.relogins()}

    def relogins(self):
        _, out = self.vm.run("cat %s 2>/dev/null; true" % self.ISCSID_LOG, timeout=60)
        return ulplib.grep_count(self.RELOGIN, out)

    def logged_in(self):
        self.vm.wait_until(self.SESSION_STATE, lambda t: t.strip().endswith("LOGGED_IN"),
                           timeout=180)

    def prepare_flap(self):
        self.vm.run("for s in /sys/class/iscsi_session/session*; do echo %d > $s/recovery_tmo; "
                    "done" % self.RECOVERY_TMO, timeout=60, check=True)

    def quiet(self, before, log):
        no_lines(self.CONN_ERROR, log, "the iSCSI connection failed under a fault RC hides")
        assert self.relogins() == before["relogins"], "iscsid logged in again"
        self.logged_in()

    def recovered(self, before, log):
        has_line(self.CONN_ERROR, log, "iSCSI connection error")
        self.logged_in()
        _, out = self.vm.run("cat %s" % self.ISCSID_LOG, timeout=60)
        ulplib.log("iscsid's log", out)
        assert self.relogins() > before["relogins"], "iscsid did not log in again"


class Srp:
    """srpt and ib_srp (srp.sh); recovery: ib_srp sees its QP fail
    ("failed ... status"), the SRP remote port is blocked and reconnected
    every reconnect_delay until it succeeds ("reconnect succeeded"); the
    commands in flight are completed with DID_RESET (srp_rport_reconnect)
    and the SCSI midlayer retries them (the disk's ioerr_cnt counts them)."""
    name = "srp"
    backend = ulplib.BACKENDS["srp"]
    # srp_send_req(): rnr_retry_count = 7 (no limit)
    RNR_RETRY = 7
    RECONNECT = r"ib_srp: reconnect succeeded"
    # The SCSI error handler's entry points into ib_srp (srp_abort,
    # srp_reset_device, srp_reset_host) and the transport's reconnect.
    ANY_RECOVERY = (r"ib_srp: reconnect|reconnect attempt|SRP abort called|"
                    r"SRP reset_device called|SRP reset_host called")
    # The remote port's timers (scsi_transport_srp): a reconnect every
    # 2 s instead of 10, and I/O failed after 60 s instead of 15 (the
    # fast_io_fail timer starts when the QP fails, about 4 s into the
    # 15 s flap, and the first reconnect after the flap must beat it).
    RPORT_TIMERS = (("fast_io_fail_tmo", 60), ("reconnect_delay", 2))

    def __init__(self, vm, fabric):
        self.vm, self.fabric = vm, fabric

    def start(self):
        ulplib.run_script(self.vm, "srp", "target-start", self.fabric.target_dev,
                          self.backend, self.fabric.host_dev, timeout=300)

    def stop(self):
        ulplib.run_script(self.vm, "srp", "target-stop", timeout=300)

    def connect(self):
        script(self.vm, "srp", "login", self.fabric.host_dev)

    def disconnect(self):
        ulplib.run_script(self.vm, "srp", "logout", timeout=120)

    def io_target(self):
        return script(self.vm, "srp", "disk")

    def state(self):
        disk = self.io_target().split("/")[-1]
        _, out = self.vm.run("cat /sys/block/%s/device/ioerr_cnt" % disk, timeout=30,
                             check=True)
        return {"ioerr": int(out.strip().splitlines()[-1], 0)}

    def running(self):
        self.vm.wait_until("cat /sys/class/srp_remote_ports/*/state",
                           lambda t: t.strip().endswith("running"), timeout=180)

    def prepare_flap(self):
        for attr, value in self.RPORT_TIMERS:
            self.vm.run("for p in /sys/class/srp_remote_ports/*; do echo %d > $p/%s; done"
                        % (value, attr), timeout=60, check=True)

    def quiet(self, before, log):
        no_lines(self.ANY_RECOVERY, log, "ib_srp or the SCSI error handler recovered "
                 "from a fault RC hides")
        assert self.state() == before, "SCSI commands failed: %s, were %s" % (
            self.state(), before)
        self.running()

    def recovered(self, before, log):
        has_line(self.RECONNECT, log, "ib_srp reconnect")
        self.running()
        after = self.state()
        assert after["ioerr"] > before["ioerr"], \
            "no SCSI command completed for a retry (ioerr_cnt %s)" % after


class Nfs:
    """nfsd's svcrdma and the NFS client's xprtrdma (nfs.sh), NFSv3 (no
    lease to lose across the flap: the transport's recovery alone);
    recovery: xprtrdma disconnects when its QP fails and connects again,
    the hard mount's RPCs are retransmitted on the new connection (the
    mount's `xprt:` line in /proc/self/mountstats: connect_count)."""
    name = "nfs"
    backend = None
    # rpcrdma_ep_create(): rnr_retry_count = 0, "make all RNR NAKs
    # visible" (RPC-over-RDMA's credits are its flow control)
    RNR_RETRY = 0
    FILE = "fault-fio"

    def __init__(self, vm, fabric):
        self.vm, self.fabric = vm, fabric
        self.mnt = None

    def start(self):
        ulplib.run_script(self.vm, "nfs", "server-start", NFS_NET, timeout=300)

    def stop(self):
        ulplib.run_script(self.vm, "nfs", "server-stop", timeout=300)

    def connect(self):
        self.mnt = script(self.vm, "nfs", "mount", self.fabric.target_ip, NFS_VERS)

    def disconnect(self):
        self.vm.run("rm -f %s/%s" % (self.mnt, self.FILE), timeout=120)
        ulplib.run_script(self.vm, "nfs", "umount", NFS_VERS, timeout=300)

    def io_target(self):
        return "%s/%s" % (self.mnt, self.FILE)

    def state(self):
        """The mount's xprt: line (xprt_rdma_print_stats: "rdma", the
        port, bind_count, connect_count, ...)."""
        _, out = self.vm.run("grep -A30 'mounted on %s ' /proc/self/mountstats | "
                             "grep -m1 'xprt:'" % self.mnt, timeout=60, check=True)
        fields = out.split("xprt:")[-1].split()
        assert fields[0] == "rdma", out
        return {"connect_count": int(fields[3])}

    def prepare_flap(self):
        pass

    def quiet(self, before, log):
        assert self.state() == before, "xprtrdma connected again: %s, was %s" % (
            self.state(), before)

    def recovered(self, before, log):
        ulplib.log("rpcrdma's kernel log lines",
                   "\n".join(l for l in log.splitlines() if "rpcrdma" in l))
        after = self.state()
        assert after["connect_count"] > before["connect_count"], \
            "xprtrdma did not connect again: %s, was %s" % (after, before)


ULPS = {u.name: u for u in (Nvme, Iser, Srp, Nfs)}
