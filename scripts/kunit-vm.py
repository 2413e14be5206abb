#!/usr/bin/python3
"""Run a KUnit module in a debug-kernel guest and judge it.

    kunit-vm.py [TIER...]   TIER: kunit (default; run-kunit.sh) and/or
                            verbs (run-verbs.sh), see TIERS; several
                            share one boot (`make test` runs both)

KUnit prints KTAP to the kernel log when the module loads (KUnit runs a
module's suites from its init), one indented subtest per suite.  The
kernel's own parser (tools/testing/kunit/kunit.py parse, scripts/
kunit-tool.sh) reads the lines the load added, under a top-level plan of
the tier's suites (in place of the one Linux 6.6+ prints itself), so that
a missing or extra suite is an error too.
Every case, every missing suite and every other problem (a set-up step,
insmod, rmmod, kmemleak, a KASAN/lockdep/WARNING/BUG line) is a JUnit
case in build/results/<tier>.xml (scripts/junit.py).
"""
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "selftests"))
sys.path.insert(0, HERE)
import junit  # noqa: E402
import vmlib  # noqa: E402

DEBUG_BUILD = os.path.join(vmlib.BUILD, "debug")
VERBS_SUITES = ["query", "basic", "rdma", "ud", "sends", "uc", "atomics", "invalidate",
                "ulp", "cq", "errors_local", "errors_remote", "qp_states", "drain"]


class Tier:
    """A KUnit module and the guest it needs.

    devices: the guest's -device options; setup: shell steps before the
    module loads (each must exit 0); teardown: shell steps after it is
    unloaded; params: insmod's module parameters."""

    def __init__(self, module, suites, devices=(), setup=(), teardown=(), params=""):
        self.module, self.suites, self.devices = module, suites, list(devices)
        self.setup, self.teardown, self.params = list(setup), list(teardown), params


TIERS = {
    # driver/kunit: the core against a fake device; no vhca device.
    "kunit": Tier("vhca_kunit", ["vhca_cmdq", "vhca_eq", "vhca_ring", "vhca_pd",
                                 "vhca_ports", "vhca_alloc_fail"]),
    # driver/verbs_kunit: kernel verbs between port 1 and port 2 of vhca0,
    # with vhca.ko of the same build, the VM tier's two devices.
    "verbs": Tier("vhca_verbs_kunit", ["vhca_verbs_" + s for s in VERBS_SUITES],
                  devices=["vhca,id=vhca0,ports=2,node-guid=0x5254000000000100",
                           "vhca,id=vhca1,ports=1,node-guid=0x5254000000000200"],
                  setup=["modprobe -a ib_core ib_uverbs ib_umad",
                         "insmod %s" % os.path.join(DEBUG_BUILD, "vhca.ko"),
                         vmlib.WAIT_ACTIVE],
                  teardown=["rmmod vhca"],
                  params="device=vhca0"),
}
# insmod returns when every suite has run; vmlib scales this (TIMEOUT_SCALE).
LOAD_TIMEOUT = 300

TIMESTAMP = re.compile(r"^\[\s*\d+\.\d+\]\s?")
# The top-level header Linux 6.6 and later print when a module with suites
# loads (lib/kunit/executor.c, kunit_exec_run_tests: "KTAP version 1",
# "1..<suites in the module>"); 6.1 prints none.  Suite headers are
# indented (KUNIT_SUBTEST_INDENT), so they never match.
KERNEL_TOP_HEADER = re.compile(r"^(?:KTAP version 1|1\.\.(\d+))$")
STATUS = {"PASS": "pass", "SKIP": "skip"}


def ktap_cases(tier, module_log, ktap):
    """JUnit cases of the module's KTAP, as kunit.py parse reads it."""
    lines = [TIMESTAMP.sub("", line) for line in module_log.splitlines()]
    # The runner's plan replaces the kernel's header, so the same suites are
    # expected on every kernel; a kernel plan that disagrees fails by itself.
    kernel_plans = [m.group(1) for m in map(KERNEL_TOP_HEADER.match, lines) if m and m.group(1)]
    lines = [line for line in lines if not KERNEL_TOP_HEADER.match(line)]
    with open(ktap, "w") as f:
        f.write("KTAP version 1\n1..%d\n%s\n" % (len(tier.suites), "\n".join(lines)))
    tool = subprocess.check_output([os.path.join(HERE, "kunit-tool.sh")], text=True).strip()
    report = ktap + ".json"
    parse = subprocess.run([sys.executable, tool, "parse", "--json=" + report, ktap],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    print(parse.stdout, end="")
    with open(report) as f:
        tree = json.load(f)
    cases = [("ktap_plan", "fail", "the kernel's plan is 1..%s, the tier expects %d suites"
              % (plan, len(tier.suites))) for plan in kernel_plans if int(plan) != len(tier.suites)]
    for group in tree["sub_groups"]:
        for case in group["test_cases"]:
            cases.append(("%s.%s" % (group["name"], case["name"]),
                          STATUS.get(case["status"], "fail"), case["status"]))
    for case in tree["test_cases"]:   # a suite that reported no cases
        cases.append((case["name"] or "unnamed", STATUS.get(case["status"], "fail"), case["status"]))
    reported = {g["name"] for g in tree["sub_groups"] if g["test_cases"]}
    for name in tier.suites:
        if name not in reported:
            cases.append((name, "fail", "suite missing, crashed or without cases"))
    if parse.returncode != 0 and all(c[1] == "pass" for c in cases):
        cases.append(("ktap", "fail", parse.stdout[-4000:]))
    return cases


def run_module(vm, tier, module, problems):
    """Set-up, insmod, rmmod, teardown; returns the log lines the load
    added.  Leaks of the tests are read while the module's symbols still
    name the allocating functions in kmemleak's backtraces; leaks of the
    unload after rmmod (the report then lists both)."""
    name = os.path.basename(module)[:-len(".ko")]
    for step in tier.setup:
        status, out = vm.run(step, timeout=LOAD_TIMEOUT)
        if status != 0:
            problems.append(("setup", "%s failed (%d): %s" % (step.strip(), status, out.strip())))
            return ""
    boot_lines = len(vm.dmesg().splitlines())
    status, out = vm.run("insmod %s %s" % (module, tier.params), timeout=LOAD_TIMEOUT)
    if status != 0:
        problems.append(("insmod", "insmod %s failed (%d): %s" % (module, status, out.strip())))
    module_log = "\n".join(vm.dmesg().splitlines()[boot_lines:])
    leaks = vm.kmemleak_report()
    for step in ["rmmod " + name] + tier.teardown:
        status, out = vm.run(step, timeout=120)
        if status != 0:
            problems.append(("rmmod", "%s failed (%d): %s" % (step, status, out.strip())))
    if not leaks.strip():
        leaks = vm.kmemleak_report()
    if leaks.strip():
        problems.append(("kmemleak", leaks[:8000]))
    return module_log


def judge_tier(vm, tier_name, problems, first_in_boot):
    """Run one tier's module in the booted vm: its KTAP, set-up, unload,
    kmemleak and the kernel log lines it added (the first tier of a boot
    also answers for the boot's), as JUnit cases in
    build/results/<tier>.xml; returns junit.finish's status."""
    tier = TIERS[tier_name]
    module = (os.environ.get("VHCA_KUNIT_MODULE") or
              os.path.join(DEBUG_BUILD, tier.module + ".ko"))
    logs = os.path.join(vmlib.BUILD, "vm-logs")
    log_text = module_log = ""
    if not os.path.exists(module):
        problems.append(("module", "%s missing" % module))
    elif vm is not None:
        try:
            first = 0 if first_in_boot else len(vm.dmesg().splitlines())
            module_log = run_module(vm, tier, module, problems)
            log_text = "\n".join(vm.dmesg().splitlines()[first:])
            bad = vmlib.bad_dmesg_lines(log_text)
            if bad:
                problems.append(("kernel_log", "\n".join(bad[:100])))
            # kmemleak keeps reporting what it found: the next tier
            # answers only for its own.
            vm.run("echo clear > %s" % vmlib.KMEMLEAK, timeout=120)
        except vmlib.VMError as err:
            problems.append(("guest", "%s\n%s" % (err, getattr(err, "output", ""))))
    os.makedirs(logs, exist_ok=True)
    dmesg_log = os.path.join(logs, tier_name + "-dmesg.log")
    with open(dmesg_log, "w") as f:
        f.write(log_text)
    cases = ktap_cases(tier, module_log, os.path.join(logs, tier_name + ".ktap"))
    for name, message in problems:
        print("%s: %s: %s" % (tier_name, name, message))
        cases.append((name, "fail", message))
    junit.write(os.path.join(vmlib.BUILD, "results", tier_name + ".xml"), tier_name, cases)
    print("%s: kernel log in %s" % (tier_name, dmesg_log))
    return junit.finish(tier_name, 0)


def main():
    """kunit-vm.py [TIER...]: one debug-kernel boot for all of them (the
    boot is most of a tier's time), with every tier's devices, each tier's
    module run in turn and judged on its own."""
    names = sys.argv[1:] or ["kunit"]
    unknown = [n for n in names if n not in TIERS]
    if unknown:
        print("kunit-vm: unknown tier %s (known: %s)" % (" ".join(unknown), " ".join(TIERS)),
              file=sys.stderr)
        return 2
    devices = [d for n in names for d in TIERS[n].devices]
    vm = vmlib.VM(devices=devices, name="-".join(names))
    status = 0
    try:
        try:
            vm.start()
            print("kunit-vm: %s booted in %.1f s" % (vm.kver, vm.boot_seconds))
            boot_problem = None
        except vmlib.VMError as err:
            boot_problem = ("guest", "%s\n%s" % (err, getattr(err, "output", "")))
        for i, name in enumerate(names):
            problems = [boot_problem] if boot_problem else []
            status |= judge_tier(None if boot_problem else vm, name, problems, i == 0)
    finally:
        vm.shutdown()
    return status


if __name__ == "__main__":
    sys.exit(main())
