"""Boot and drive a vhca guest: QEMU, its serial console, and QMP.

The guest is Debian's kernel on the Debian 13 root of
scripts/build-guest-root.sh, or with VHCA_GUEST_ROOT=host on the host's own
root filesystem (read-only over 9p, tmpfs overlay on top; see
Documentation/testing-vm.md).
The serial console is a unix socket: a reader thread copies everything the guest
prints into a buffer and a log file, and run() types a command into the
guest's shell and waits for an end marker carrying the exit status.

    with VM(devices=["vhca,id=vhca0"]) as vm:
        rc, out = vm.run("ls /sys/class/infiniband")
        vm.qmp("qom-set", path="vhca0", property="port1-link", value=False)

QEMU is always killed by its pid when the VM object is left, even on an
exception; it also gets SIGKILL from the kernel if this process dies
(PR_SET_PDEATHSIG), so a crashed test run leaves no QEMU behind.
"""

import base64
import ctypes
import fcntl
import json
import os
import re
import resource
import secrets
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import termios
import threading
import time
import tty

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.path.join(REPO, "build")
# The Makefile exports VHCA_QEMU for its QEMU_VERSION (10.2: build/qemu/).
DEFAULT_QEMU = (os.environ.get("VHCA_QEMU")
                or os.path.join(BUILD, "qemu", "qemu-system-x86_64"))
DEFAULT_INITRD = os.path.join(BUILD, "initramfs.cpio.gz")
KVM_PROBE_FILE = os.path.join(BUILD, "kvm-probe")
READY_LINE = b"vhca-guest: ready"
# Kernel log lines that fail a test.  The debug kernel's detectors print
# "BUG: KASAN: ...", "WARNING: possible circular locking dependency",
# "WARNING: inconsistent lock state", "BUG: scheduling while atomic",
# "BUG: sleeping function called from invalid context" and, for kmemleak,
# "unreferenced object 0x..." (in /sys/kernel/debug/kmemleak) and
# "kmemleak: N new suspected memory leaks".
BAD_DMESG = re.compile(
    r"WARNING:|BUG:|Oops|Call Trace|general protection|KASAN|UBSAN|"
    r"kernel BUG|list_add corruption|list_del corruption|refcount_t:|"
    r"possible circular locking|inconsistent lock state|possible recursive locking|"
    r"scheduling while atomic|unreferenced object|suspected memory leak")

# Which guest kernel (VHCA_KERNEL; the Makefile's KERNEL, 7.3 when unset):
# "7.3"/"6.12", Debian's kernel of that series unpacked in the cache
# (scripts/fetch-kernel.sh), with its own modules and
# build/kernel-<series>/initramfs.cpio.gz; "6.1", Debian 12's (the host's
# /boot and /lib/modules); "debug" (scripts/build-debug-kernel.sh: KASAN,
# lockdep, kmemleak, KUnit; bzImage and modules under build/kernel-debug/).
KERNEL_CHOICE = os.environ.get("VHCA_KERNEL") or "7.3"
CACHED_KERNELS = ("6.12", "7.3")
if KERNEL_CHOICE not in ("6.1", "debug") + CACHED_KERNELS:
    raise ValueError("VHCA_KERNEL=%s: expected 7.3, 6.12, 6.1 or debug" % KERNEL_CHOICE)
DEBUG_KERNEL_DIR = os.path.join(BUILD, "kernel-debug")
# vhca.ko for that kernel (the Makefile's MODULE_KO, scripts/build-module.sh);
# VHCA_MODULE overrides it.
MODULE = os.environ.get("VHCA_MODULE") or os.path.join(
    BUILD, {"6.1": "vhca.ko", "debug": os.path.join("debug", "vhca.ko")}.get(
        KERNEL_CHOICE, os.path.join("kernel-" + KERNEL_CHOICE, "vhca.ko")))
_cached_kernel_dir = None


def cached_kernel_dir():
    """The cache directory of KERNEL_CHOICE 6.12/7.3 (kernel-<release>):
    fetched and unpacked on first use, then found at once."""
    global _cached_kernel_dir
    if _cached_kernel_dir is None:
        out = subprocess.run([os.path.join(REPO, "scripts", "fetch-kernel.sh"),
                              KERNEL_CHOICE],
                             check=True, stdout=subprocess.PIPE, text=True)
        _cached_kernel_dir = out.stdout.strip().splitlines()[-1]
    return _cached_kernel_dir


# Which root filesystem the guest runs (Documentation/testing-vm.md "The
# Debian 13 guest root"): "host" (default) the host's own /, or "trixie": the
# Debian 13 root of scripts/build-guest-root.sh (rdma-core 65 with the vhca
# provider, trixie's perftest, UCX, Open MPI, libfabric, ...), exported as
# hostroot instead of /.  The harness's own files are then reached through
# a second share of the host's / (mount_tag hostfs): the guest's stage 1
# binds HOST_PATHS from it at the same paths (vhca_host_paths=).
# The Makefile's GUEST_ROOT (it exports VHCA_GUEST_ROOT; the same default
# when a script runs without make).
GUEST_ROOT = os.environ.get("VHCA_GUEST_ROOT") or "trixie"
if GUEST_ROOT not in ("host", "trixie"):
    raise ValueError("VHCA_GUEST_ROOT=%s: expected host or trixie" % GUEST_ROOT)
_guest_root_dir = None


def guest_root_dir():
    """The directory the guest's root is: / for "host", else the cached
    root of scripts/build-guest-root.sh (built on first use)."""
    global _guest_root_dir
    if GUEST_ROOT == "host":
        return "/"
    if _guest_root_dir is None:
        out = subprocess.run([os.path.join(REPO, "scripts", "build-guest-root.sh")],
                             check=True, stdout=subprocess.PIPE, text=True)
        _guest_root_dir = out.stdout.strip().splitlines()[-1]
    return _guest_root_dir


def host_paths(*more):
    """The host directories a guest on another root must see at the same
    path: the repository (scripts, selftests, build/), the cache (kernels,
    their modules, the provider; build/ links into it) and `more`; none
    below another."""
    cache = os.environ.get("VHCA_CACHE") or os.path.expanduser("~/.cache/vhca")
    paths = sorted({os.path.realpath(p) for p in (REPO, cache) + more if p})
    kept = []
    for path in paths:
        if not any(path == k or path.startswith(k + "/") for k in kept):
            kept.append(path)
    return kept


# The one knob for every guest timeout (boot, run(), wait_until()): the
# debug kernel under TCG is several times slower (KASAN checks every
# access, lockdep every lock).  VHCA_TIMEOUT_SCALE overrides it.
TIMEOUT_SCALE = float(os.environ.get("VHCA_TIMEOUT_SCALE") or
                      (4 if KERNEL_CHOICE == "debug" else 1))

# VHCA_DEVICE_PROPS: properties added to every vhca device of every guest,
# e.g. "sq-poll=on" (Documentation/testing-vm.md "The VM tier").
DEVICE_PROPS = os.environ.get("VHCA_DEVICE_PROPS", "").strip(",")
# VHCA_QEMU_TRACE: QEMU trace events every guest enables (comma-separated
# patterns, e.g. "vhca_rc_window_stuck,vhca_rc_timeout"); they go to the
# guest's build/vm-logs/<name>-qemu.log.
QEMU_TRACE = [t for t in os.environ.get("VHCA_QEMU_TRACE", "").split(",") if t]


KMEMLEAK = "/sys/kernel/debug/kmemleak"
# Seconds VM.qmp waits for QEMU's answer before VMTimeout.
QMP_TIMEOUT = 30


class VMError(Exception):
    """The guest or QEMU did not do what was asked."""


class VMTimeout(VMError):
    """A guest command or the boot did not finish in time."""

    def __init__(self, message, output=""):
        super().__init__(message)
        self.output = output


def guest_kernel_version():
    if KERNEL_CHOICE == "debug":
        path = os.path.join(DEBUG_KERNEL_DIR, "kernelrelease")
        try:
            with open(path) as f:
                return f.read().strip()
        except OSError:
            raise VMError("%s missing: run `make kernel-debug`" % path) from None
    if KERNEL_CHOICE in CACHED_KERNELS:
        return os.path.basename(cached_kernel_dir())[len("kernel-"):]
    out = subprocess.run([os.path.join(REPO, "scripts", "kver.sh")],
                         check=True, capture_output=True, text=True)
    return out.stdout.strip()


def bad_dmesg_lines(text):
    """Lines of a kernel log that show a warning, bug, oops or splat."""
    return [line for line in text.splitlines() if BAD_DMESG.search(line)]


def check_debug_kernel(machine, unload="rmmod vhca", known=lambda text: text):
    """The debug kernel's verdict on a whole guest session (`make
    check-vm-debug`, `make check-ulp-debug`): run `unload` (the driver
    and whatever still holds it), then no kmemleak report and no
    KASAN/lockdep/WARNING/BUG line in the kernel log (`known` drops the
    documented splats first); AssertionError listing what was found."""
    machine.run("%s 2>/dev/null; true" % unload, timeout=300)
    leaks = machine.kmemleak_report()
    bad = bad_dmesg_lines(known(machine.dmesg()))
    problems = []
    if leaks.strip():
        problems.append("kmemleak:\n" + leaks[:8000])
    if bad:
        problems.append("kernel log:\n" + "\n".join(bad[:100]))
    assert not problems, "debug kernel found problems:\n" + "\n".join(problems)


# Shell for vm.run(): exits 0 once every port of every IB device is
# ACTIVE (the fabric's SM), 1 after 60 s.
WAIT_ACTIVE = r'''
for i in $(seq 1 300); do
	n=0
	for s in /sys/class/infiniband/*/ports/*/state; do
		grep -q ACTIVE "$s" || n=$((n+1))
	done
	[ $n = 0 ] && exit 0
	sleep 0.2
done
exit 1
'''


def tcp_listening(port):
    """Guest shell condition: something listens on TCP `port`."""
    return "ss -Hltn 'sport = :%d' | grep -q ." % port


def wait_for(condition, limit=60):
    """Guest shell loop: until `condition` (a shell command) succeeds, at
    most `limit` seconds (servers on a loaded host can take that long to
    start; a fixed sleep made clients connect too early)."""
    return ("t0=$(date +%%s); while [ $(($(date +%%s) - t0)) -lt %d ]; do "
            "%s && break; sleep 0.2; done" % (limit, condition))


# A kernel message printed on the serial console (loglevel below
# `quiet`'s 4: KERN_ERR and worse, e.g. ib_iser's reconnect attempts after
# a device is removed) lands in the middle of a command's output.
CONSOLE_KMSG = re.compile(r"^\[ *\d+\.\d+\] ")


def guest_int(out):
    """The number a guest command printed, console kernel messages that
    came in between left out."""
    lines = [l for l in out.splitlines() if l.strip() and not CONSOLE_KMSG.match(l)]
    assert lines, "no number in %r" % out
    return int(lines[-1].strip())


def titled(title, text):
    """A titled block of guest output (log, watch_progress)."""
    return "---- %s ----\n%s\n" % (title, text.rstrip())


def log(title, text):
    """A titled block of guest output in the test's captured stdout."""
    sys.stdout.write(titled(title, text))


def watch_progress(path, poll, interval, seconds):
    """A long guest run's progress, on the host while it runs: every
    `interval` seconds, for at most `seconds`, poll() returns (text, done)
    and the text goes to the file `path` under the time, until done.
    Returns poll()'s last done."""
    deadline = time.monotonic() + seconds
    done = False
    with open(path, "w") as out:
        while not done and time.monotonic() < deadline:
            time.sleep(interval)
            text, done = poll()
            out.write(titled(time.strftime("%H:%M:%S"), text))
            out.flush()
    return done


def append_progress(path, text):
    """The run's whole output after watch_progress's tails."""
    with open(path, "a") as out:
        out.write(titled("the whole output", text))


def _die_with_parent():
    # Runs in the child between fork and exec: SIGKILL QEMU when we die,
    # and let a QEMU that crashes leave a core file (in the log directory,
    # its working directory; the guest's RAM is left out of it by
    # dump-guest-core=off): VM.death_report names it.
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    resource.setrlimit(resource.RLIMIT_CORE,
                       (resource.RLIM_INFINITY, resource.RLIM_INFINITY))


class VM:
    """One QEMU guest.  Use as a context manager, or start()/close()."""

    def __init__(self, qemu=None, devices=(), name="vm", accel=None,
                 memory=None, smp=2, kernel=None, initrd=None,
                 extra_args=(), log_dir=None, append=""):
        self.qemu = qemu or os.environ.get("VHCA_QEMU") or DEFAULT_QEMU
        self.devices = list(devices)
        self.name = name
        self.accel = accel or os.environ.get("VHCA_ACCEL")
        # A guest that names no size: VHCA_VM_MEMORY (QEMU's -m), else 2G.
        self.memory = memory or os.environ.get("VHCA_VM_MEMORY") or "2G"
        self.smp = smp
        self.kver = guest_kernel_version()
        if KERNEL_CHOICE == "debug":
            self.kernel = kernel or os.path.join(DEBUG_KERNEL_DIR, "bzImage")
            # Its modules: bind-mounted on /lib/modules/<version> by the
            # guest's init (scripts/guest/init-stage2).
            modules = os.path.join(os.path.realpath(DEBUG_KERNEL_DIR),
                                   "modules", "lib", "modules", self.kver)
            append = ("vhca_modules=%s %s" % (modules, append)).strip()
        elif KERNEL_CHOICE in CACHED_KERNELS:
            cache = cached_kernel_dir()
            self.kernel = kernel or os.path.join(cache, "vmlinuz")
            modules = os.path.realpath(os.path.join(cache, "root", "lib", "modules",
                                                    self.kver))
            append = ("vhca_modules=%s %s" % (modules, append)).strip()
            initrd = initrd or os.path.join(BUILD, "kernel-" + KERNEL_CHOICE,
                                            "initramfs.cpio.gz")
        else:
            self.kernel = kernel or "/boot/vmlinuz-" + self.kver
        self.initrd = initrd or DEFAULT_INITRD
        if GUEST_ROOT != "host":
            more = [os.path.dirname(os.path.realpath(MODULE))]
            if "vhca_modules=" in append:
                more.append(re.search(r"vhca_modules=(\S+)", append).group(1))
            else:
                # The host's kernel (6.1): its modules are the host's, at
                # the path the guest root lacks.
                more.append(os.path.join("/lib/modules", self.kver))
            append = ("vhca_host_paths=%s %s" % (":".join(host_paths(*more)), append)).strip()
        self.extra_args = list(extra_args)
        # VHCA_GUEST_APPEND: more kernel arguments for every guest, last so
        # they win (clocksource=acpi_pm: the clock of issue 24's report).
        self.append = ("%s %s" % (append, os.environ.get("VHCA_GUEST_APPEND", ""))).strip()
        self.log_dir = log_dir or os.path.join(BUILD, "vm-logs")
        self.proc = None
        self.boot_seconds = None
        self.accel_used = None
        self._tmpdir = None
        self._console = None
        self._qmp = None
        self._qmp_buf = b""
        # One command at a time: a thread may probe QMP while the test runs
        # (selftests/verbs/mainloop_probe.py).
        self._qmp_lock = threading.Lock()
        self._qmp_last_id = 0
        self.qmp_events = []
        # Answers to commands that had timed out (VMTimeout) when they came.
        self.qmp_late_replies = []
        self._buf = bytearray()
        self._cond = threading.Condition()
        self._reader = None
        self._log = None

    # ------------------------------------------------------------------
    # Start and stop

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc):
        self.close()

    def command_line(self, accel):
        accel_args = (["-accel", "kvm", "-cpu", "host"] if accel == "kvm"
                      else ["-accel", "tcg,thread=multi"])
        args = [self.qemu] + accel_args + [
            "-M", "q35,dump-guest-core=off", "-smp", str(self.smp), "-m", self.memory,
            "-vga", "none", "-nic", "none", "-display", "none",
            "-parallel", "none", "-no-reboot",
            "-L", "/usr/share/seabios", "-L", "/usr/share/qemu",
            "-kernel", self.kernel, "-initrd", self.initrd,
            # no_timer_check: the kernel's boot-time check that the
            # IO-APIC timer ticks lost to a loaded host under TCG (7.3
            # panicked "IO-APIC + timer doesn't work!" twice,
            # Documentation/testing-vm.md); a virtual machine's timer needs
            # no such check.  tsc=reliable: with TCG's CPU model (qemu64,
            # an AMD vendor without constant_tsc) Linux 6.1 calls the TSCs
            # of two vCPUs unsynchronized, and 6.12's clocksource watchdog
            # found the TSC skewed against jiffies at a loaded boot; both
            # then fell back to acpi_pm, whose every read is a port read
            # under QEMU's global lock and every clock_gettime a system
            # call; TCG's TSC is QEMU's one monotonic host-derived count
            # (cpu_get_ticks), the same on every vCPU (testing-vm.md "How
            # the guest boots").
            "-append", ("console=ttyS0,115200 quiet panic=-1 no_timer_check "
                        "tsc=reliable " + self.append).strip(),
            "-virtfs", "local,path=%s,mount_tag=hostroot,security_model=none,"
                       "readonly=on,multidevs=remap" % guest_root_dir(),
            "-qmp", "unix:%s,server=on,wait=off" % self._path("qmp.sock"),
            # A second QMP monitor for a person (socat, qmp-shell) while
            # the harness holds qmp.sock for the guest's whole life: QEMU
            # serves one client per QMP socket and leaves a second one
            # without greeting or answer, which looks like a QEMU that
            # stopped answering (issue 24, finding 3).
            "-qmp", "unix:%s,server=on,wait=off" % self.debug_qmp_path,
            "-chardev", "socket,id=console,path=%s,server=on,wait=on"
                        % self._path("console.sock"),
            "-serial", "chardev:console",
            "-monitor", "none",
            # Threads named for what they run ("CPU 1/TCG", the main
            # thread "qemu-system-x86", "worker"...): without it every
            # thread has the main thread's name, and a hung guest's
            # per-thread CPU time (top -H, the soak's backtrace samples)
            # cannot tell a vCPU from the main loop.
            "-name", "%s,debug-threads=on" % self.name,
        ]
        if GUEST_ROOT != "host":
            args += ["-virtfs", "local,path=/,mount_tag=hostfs,security_model=none,"
                                "readonly=on,multidevs=remap"]
        for pattern in QEMU_TRACE:
            args += ["-trace", "enable=" + pattern]
        for dev in self.devices:
            if DEVICE_PROPS and dev.split(",")[0] == "vhca":
                dev += "," + DEVICE_PROPS
            args += ["-device", dev]
        return args + self.extra_args

    def _path(self, name):
        return os.path.join(self._tmpdir, name)

    @property
    def debug_qmp_path(self):
        """The QMP socket the harness leaves free for a person
        (testing-vm.md "The harness")."""
        return self._path("qmp-debug.sock")

    def start(self, boot_timeout=180):
        """Boot the guest and wait until its shell is ready."""
        for path in (self.qemu, self.kernel, self.initrd):
            if not os.path.exists(path):
                raise VMError("missing %s" % path)
        accel = self.accel or choose_accel(self)
        self.accel_used = accel  # what ran: "kvm" or "tcg" (make bench prints it)
        self._tmpdir = tempfile.mkdtemp(prefix="vhca-vm-")
        os.makedirs(self.log_dir, exist_ok=True)
        self._log = open(os.path.join(self.log_dir, self.name + "-console.log"), "wb")
        qemu_log = open(os.path.join(self.log_dir, self.name + "-qemu.log"), "wb")
        args = self.command_line(accel)
        qemu_log.write((" ".join(args) + "\n").encode())
        qemu_log.flush()
        started = time.monotonic()
        try:
            self.proc = subprocess.Popen(
                args, stdin=subprocess.DEVNULL, stdout=qemu_log,
                stderr=subprocess.STDOUT, preexec_fn=_die_with_parent,
                cwd=self.log_dir)
        finally:
            qemu_log.close()
        try:
            self._console = self._connect(self._path("console.sock"))
            self._reader = threading.Thread(target=self._read_console, daemon=True)
            self._reader.start()
            self._qmp = self._connect(self._path("qmp.sock"))
            self._qmp_greeting()
            self._wait_for(READY_LINE, 0, boot_timeout, "boot")
            self.boot_seconds = time.monotonic() - started
            # The harness reads output, a human is not typing: no echo, no
            # prompts, no CR before LF, and no kernel messages on the console
            # (they stay in dmesg).  Typed straight into the shell, not
            # through run(), whose subshell could not change PS1.
            self._send("stty -echo -onlcr; PS1=; PS2=; dmesg -n 1\n")
            self.run("true", timeout=60, check=True)
            if self.has_kmemleak():
                # Forget what the kernel's own boot left behind: only
                # leaks from now on count (kmemleak_report()).
                self.run("echo scan > %s && echo clear > %s" % (KMEMLEAK, KMEMLEAK),
                         timeout=120, check=True)
        except OSError as err:
            self.kill()
            raise VMError("QEMU failed to start (%s); %s" % (err, self.qemu_log_tail())) from None
        except BaseException:
            self.kill()
            raise

    def qemu_log_tail(self, lines=5):
        """The last lines QEMU printed (its log starts with the command line)."""
        path = os.path.join(self.log_dir, self.name + "-qemu.log")
        try:
            with open(path, errors="replace") as f:
                text = f.read().splitlines()[1:]
        except OSError:
            return "no QEMU log"
        return "QEMU said:\n" + "\n".join(text[-lines:])

    def death_report(self):
        """How QEMU ended, with what it printed; its log is kept under a
        name of its own (the next boot of a VM of this name writes the
        usual one again), and so is a core file if it left one."""
        status = self.proc.returncode
        if status < 0:
            how = "QEMU was killed by %s" % signal.Signals(-status).name
        else:
            how = "QEMU exited with status %d" % status
        stamp = time.strftime("%Y%m%d-%H%M%S")
        kept = os.path.join(self.log_dir, "%s-qemu-died-%s.log" % (self.name, stamp))
        try:
            shutil.copyfile(os.path.join(self.log_dir, self.name + "-qemu.log"), kept)
            how += "; its log: " + kept
        except OSError:
            pass
        for core in ("core", "core.%d" % self.proc.pid):
            path = os.path.join(self.log_dir, core)
            if os.path.exists(path):
                named = os.path.join(self.log_dir, "%s-core-%s" % (self.name, stamp))
                os.rename(path, named)
                how += "; core file: " + named
        return how + "; " + self.qemu_log_tail(20)

    def _lost_qemu(self, err):
        """A socket to QEMU failed: if QEMU is gone, say how it ended
        (VMError) instead of the socket's error."""
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            raise err
        raise VMError(self.death_report()) from err

    def _connect(self, path, timeout=30):
        deadline = time.monotonic() + timeout
        while True:
            if self.proc.poll() is not None:
                raise VMError("QEMU exited with status %d before %s appeared; %s"
                              % (self.proc.returncode, path, self.qemu_log_tail()))
            try:
                sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                sock.connect(path)
                return sock
            except (FileNotFoundError, ConnectionRefusedError):
                sock.close()
                if time.monotonic() > deadline:
                    raise VMError("QEMU did not create %s" % path)
                time.sleep(0.05)

    def shutdown(self, timeout=30):
        """Power the guest off (the shell exits, init powers off), then
        make sure QEMU is gone."""
        if self.proc is None:
            return
        try:
            if self.proc.poll() is None and self._console is not None:
                self._console.sendall(b"\nexit\n")
                self.proc.wait(timeout)
        except (OSError, subprocess.TimeoutExpired):
            pass
        finally:
            self.kill()

    close = shutdown

    def kill(self):
        """Kill QEMU by its pid (no-op when it has exited) and clean up."""
        if self.proc is not None:
            if self.proc.poll() is None:
                try:
                    os.kill(self.proc.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            self.proc.wait()
        for sock in (self._console, self._qmp):
            if sock is not None:
                sock.close()
        self._console = self._qmp = None
        if self._reader is not None:
            self._reader.join(5)
            self._reader = None
        if self._log is not None:
            self._log.close()
            self._log = None
        if self._tmpdir is not None:
            shutil.rmtree(self._tmpdir, ignore_errors=True)
            self._tmpdir = None

    # ------------------------------------------------------------------
    # Serial console

    def _read_console(self):
        sock = self._console
        while True:
            try:
                data = sock.recv(65536)
            except OSError:
                data = b""
            with self._cond:
                if not data:
                    self._cond.notify_all()
                    return
                self._buf += data
                self._cond.notify_all()
            log = self._log
            if log is not None:
                try:
                    log.write(data)
                    log.flush()
                except ValueError:
                    pass

    def _wait_for(self, pattern, start, timeout, what):
        """Wait until pattern (bytes or compiled regex) shows up in the
        console output after offset start; return the match."""
        timeout *= TIMEOUT_SCALE
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                if isinstance(pattern, bytes):
                    pos = self._buf.find(pattern, start)
                    if pos >= 0:
                        return pos
                else:
                    match = pattern.search(self._buf, start)
                    if match:
                        return match
                left = deadline - time.monotonic()
                if self.proc.poll() is not None:
                    raise VMError("waiting for %s: %s; console: %s"
                                  % (what, self.death_report(), self._tail(start)))
                if left <= 0:
                    raise VMTimeout("timeout (%ss) waiting for %s" % (timeout, what),
                                    self._tail(start))
                self._cond.wait(min(left, 1.0))

    def _tail(self, start):
        return bytes(self._buf[start:])[-4000:].decode(errors="replace")

    def _send(self, text):
        try:
            self._console.sendall(text.encode())
        except (BrokenPipeError, ConnectionResetError) as err:
            self._lost_qemu(err)

    def run(self, cmd, timeout=60, check=False):
        """Run a shell command in the guest; return (exit status, output).

        The command is handed over base64-encoded, so quoting and newlines
        need no care, and runs in a subshell with stdin from /dev/null.
        Its output is what it prints between two markers that contain a
        fresh nonce: the typed line never contains them, because the shell
        builds them with printf.  On timeout the command gets ^C and
        VMTimeout carries the output so far.
        """
        nonce = secrets.token_hex(6)
        encoded = base64.b64encode(cmd.encode()).decode()
        with self._cond:
            start = len(self._buf)
        # A tty line holds at most 4095 characters: long commands go
        # through a file in the guest's /tmp, a chunk per line.
        if len(encoded) > 2000:
            script = "/tmp/.vhca-cmd-" + nonce
            for i in range(0, len(encoded), 2000):
                self._send("printf %%s '%s' >> %s\n" % (encoded[i:i + 2000], script))
            source = "base64 -d %s" % script
        else:
            source = "echo %s | base64 -d" % encoded
        self._send("printf '@@VHCA-%%s-BEGIN@@\\n' %s; (eval \"$(%s)\") </dev/null; "
                   "printf '@@VHCA-%%s-END@@ %%d\\n' %s $?\n" % (nonce, source, nonce))
        begin = b"@@VHCA-%s-BEGIN@@" % nonce.encode()
        end = re.compile(rb"@@VHCA-%s-END@@ (\d+)\r?\n" % nonce.encode())
        try:
            match = self._wait_for(end, start, timeout, "command: " + cmd)
        except VMTimeout as err:
            if self.proc.poll() is None:
                self._send("\x03")
            raise VMTimeout("guest command timed out after %ss: %s" % (timeout, cmd),
                            err.output) from None
        with self._cond:
            text = bytes(self._buf[start:match.start()])
        pos = text.find(begin)
        output = text[pos + len(begin):] if pos >= 0 else text
        output = output.replace(b"\r\n", b"\n").decode(errors="replace")
        if output.startswith("\n"):
            output = output[1:]
        status = int(match.group(1))
        if check and status != 0:
            raise VMError("guest command failed with status %d: %s\n%s"
                          % (status, cmd, output))
        return status, output

    def dmesg(self):
        """The guest's kernel log."""
        return self.run("dmesg --color=never", timeout=60, check=True)[1]

    def has_kmemleak(self):
        """True when the guest kernel has kmemleak (the debug kernel)."""
        return self.run("test -e %s" % KMEMLEAK, timeout=30)[0] == 0

    def kmemleak_report(self):
        """Scan for leaks and return kmemleak's report ("" when none).
        Two scans: an object is reported only when it was unreferenced
        for a whole scan, and a fresh one may still be referenced from a
        register or stack in the first."""
        self.run("echo scan > %s; sleep 1; echo scan > %s" % (KMEMLEAK, KMEMLEAK),
                 timeout=300, check=True)
        return self.run("cat %s" % KMEMLEAK, timeout=60, check=True)[1]

    def wait_until(self, cmd, predicate, timeout, interval=0.5):
        """Run cmd until predicate(output) is true; return the last output
        or raise VMTimeout with it."""
        deadline = time.monotonic() + timeout * TIMEOUT_SCALE
        while True:
            _, out = self.run(cmd, timeout=max(timeout, 30))
            if predicate(out):
                return out
            if time.monotonic() > deadline:
                raise VMTimeout("condition not met after %ss: %s" % (timeout, cmd), out)
            time.sleep(interval)

    def interact(self):
        """Hand the console to the user (stdio) until the guest powers off.
        ^] ends the session (and the guest)."""
        if sys.stdin.isatty():
            cols, rows = shutil.get_terminal_size()
            self._send("stty rows %d cols %d\n" % (rows, cols))
        self._send("stty sane; dmesg -n 4; export PS1='\\h:\\w\\$ '; "
                   "exec bash --noprofile --norc -i\n")
        with self._cond:
            printed = len(self._buf)
        stdin = sys.stdin.fileno()
        saved = None
        if sys.stdin.isatty():
            saved = termios.tcgetattr(stdin)
            tty.setraw(stdin)
        try:
            stdin_open = True
            while self.proc.poll() is None:
                fds = [stdin] if stdin_open else []
                ready, _, _ = select.select(fds, [], [], 0.1)
                with self._cond:
                    data = bytes(self._buf[printed:])
                    printed = len(self._buf)
                if data:
                    os.write(sys.stdout.fileno(), data)
                if stdin in ready:
                    chunk = os.read(stdin, 4096)
                    if not chunk:
                        stdin_open = False
                        self._send("\nexit\n")
                    elif b"\x1d" in chunk:
                        break
                    else:
                        self._console.sendall(chunk)
        finally:
            if saved is not None:
                termios.tcsetattr(stdin, termios.TCSADRAIN, saved)

    # ------------------------------------------------------------------
    # QMP

    def _qmp_read(self):
        while b"\n" not in self._qmp_buf:
            ready, _, _ = select.select([self._qmp], [], [], QMP_TIMEOUT)
            if not ready:
                raise VMTimeout("no answer on QMP")
            try:
                data = self._qmp.recv(65536)
            except ConnectionResetError as err:
                self._lost_qemu(err)
            if not data:
                self._lost_qemu(VMError("QMP connection closed"))
            self._qmp_buf += data
        line, self._qmp_buf = self._qmp_buf.split(b"\n", 1)
        return json.loads(line)

    def _qmp_greeting(self):
        greeting = self._qmp_read()
        if "QMP" not in greeting:
            raise VMError("unexpected QMP greeting %r" % greeting)
        self.qmp("qmp_capabilities")

    def qmp(self, cmd, **args):
        """Execute a QMP command; return its "return" value or raise
        VMError with QEMU's error.  Events seen meanwhile go to qmp_events.

        Each command carries an id, which QEMU copies into its answer
        (QMP spec, "Commands Responses"): the answer to an earlier command
        that timed out, arriving late, goes to qmp_late_replies instead of
        being taken for this command's."""
        request = {"execute": cmd}
        if args:
            request["arguments"] = args
        with self._qmp_lock:
            self._qmp_last_id += 1
            request["id"] = self._qmp_last_id
            try:
                self._qmp.sendall(json.dumps(request).encode() + b"\n")
            except (BrokenPipeError, ConnectionResetError) as err:
                self._lost_qemu(err)
            while True:
                reply = self._qmp_read()
                if "event" in reply:
                    self.qmp_events.append(reply)
                    continue
                if reply.get("id") != request["id"]:
                    self.qmp_late_replies.append(reply)
                    continue
                if "error" in reply:
                    raise VMError("QMP %s failed: %s" % (cmd, reply["error"]))
                return reply.get("return")


def choose_accel(vm):
    """KVM when a probe boot with KVM reaches the guest shell quickly, else
    TCG.  On these build machines Debian's kernel hangs under the nested
    KVM, so the probe usually says TCG.  The answer is per host kernel,
    QEMU and guest kernel, cached in build/kvm-probe, one line each
    ("<key>\t<accel>"), so that make test, which boots 7.3, 6.12, 6.1 and
    the debug kernel in turn, probes each once (a failed probe costs its
    20 s boot timeout; with only the last answer kept, every change of
    kernel probed again)."""
    key = "%s %s %s" % (os.uname().release, os.path.realpath(vm.qemu), vm.kernel)
    answers = _read_kvm_probe()
    if key in answers:
        return answers[key]
    accel = "tcg"
    if os.access("/dev/kvm", os.R_OK | os.W_OK):
        probe = VM(qemu=vm.qemu, accel="kvm", name="kvm-probe", kernel=vm.kernel,
                   initrd=vm.initrd, log_dir=vm.log_dir)
        try:
            probe.start(boot_timeout=20)
            accel = "kvm"
        except (VMError, OSError):
            pass
        finally:
            probe.kill()
    _save_kvm_probe(key, accel)
    return accel


def _read_kvm_probe():
    answers = {}
    try:
        with open(KVM_PROBE_FILE) as f:
            for line in f:
                k, sep, v = line.rstrip("\n").rpartition("\t")
                if sep and v in ("kvm", "tcg"):
                    answers[k] = v
    except OSError:
        pass
    return answers


def _save_kvm_probe(key, accel):
    """Adds key's answer to build/kvm-probe.  Guests that boot at once
    (the smoke tier's two kernels) may probe at once: each merges under a
    lock and writes its own temporary file, so neither loses the other's
    answer or renames a file the other already renamed."""
    directory = os.path.dirname(KVM_PROBE_FILE)
    os.makedirs(directory, exist_ok=True)
    with open(KVM_PROBE_FILE + ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        answers = _read_kvm_probe()
        answers[key] = accel
        fd, tmp = tempfile.mkstemp(dir=directory, prefix="kvm-probe.")
        with os.fdopen(fd, "w") as f:
            f.writelines("%s\t%s\n" % kv for kv in sorted(answers.items()))
        os.replace(tmp, KVM_PROBE_FILE)
