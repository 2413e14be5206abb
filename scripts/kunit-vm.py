#!/usr/bin/python3
"""Run vhca_kunit.ko in a debug-kernel guest and judge it (run-kunit.sh).

KUnit prints KTAP to the kernel log when the module loads (KUnit runs a
module's suites from its init), one indented subtest per suite.  The
kernel's own parser (tools/testing/kunit/kunit.py parse, scripts/
kunit-tool.sh) reads the lines the load added, under a top-level plan of
len(SUITES) suites, so that a missing or extra suite is an error too.
Every case, every missing suite and every other problem (insmod, rmmod,
kmemleak, a KASAN/lockdep/WARNING/BUG line) is a JUnit case in
build/results/kunit.xml (scripts/junit.py).
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

SUITES = ["vhca_cmdq", "vhca_eq", "vhca_ring", "vhca_pd", "vhca_ports", "vhca_alloc_fail"]
MODULE = os.environ.get("VHCA_KUNIT_MODULE") or os.path.join(vmlib.BUILD, "debug", "vhca_kunit.ko")
RESULTS = os.path.join(vmlib.BUILD, "results", "kunit.xml")
LOG = os.path.join(vmlib.BUILD, "vm-logs", "kunit-dmesg.log")
KTAP = os.path.join(vmlib.BUILD, "vm-logs", "kunit.ktap")
# insmod returns when every suite has run; vmlib scales this (TIMEOUT_SCALE).
LOAD_TIMEOUT = 300

TIMESTAMP = re.compile(r"^\[\s*\d+\.\d+\]\s?")
STATUS = {"PASS": "pass", "SKIP": "skip"}


def ktap_cases(module_log):
    """JUnit cases of the module's KTAP, as kunit.py parse reads it."""
    lines = [TIMESTAMP.sub("", line) for line in module_log.splitlines()]
    with open(KTAP, "w") as f:
        f.write("KTAP version 1\n1..%d\n%s\n" % (len(SUITES), "\n".join(lines)))
    tool = subprocess.check_output([os.path.join(HERE, "kunit-tool.sh")], text=True).strip()
    report = KTAP + ".json"
    parse = subprocess.run([sys.executable, tool, "parse", "--json=" + report, KTAP],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    print(parse.stdout, end="")
    with open(report) as f:
        tree = json.load(f)
    cases = []
    for group in tree["sub_groups"]:
        for case in group["test_cases"]:
            cases.append(("%s.%s" % (group["name"], case["name"]),
                          STATUS.get(case["status"], "fail"), case["status"]))
    for case in tree["test_cases"]:   # a suite that reported no cases
        cases.append((case["name"] or "unnamed", STATUS.get(case["status"], "fail"), case["status"]))
    reported = {g["name"] for g in tree["sub_groups"] if g["test_cases"]}
    for name in SUITES:
        if name not in reported:
            cases.append((name, "fail", "suite missing, crashed or without cases"))
    if parse.returncode != 0 and all(c[1] == "pass" for c in cases):
        cases.append(("ktap", "fail", parse.stdout[-4000:]))
    return cases


def main():
    problems = []
    if not os.path.exists(MODULE):
        print("run-kunit: %s missing" % MODULE, file=sys.stderr)
        return junit.finish("kunit", 1)
    vm = vmlib.VM(name="kunit")
    log_text = module_log = ""
    try:
        vm.start()
        print("run-kunit: %s booted in %.1f s" % (vm.kver, vm.boot_seconds))
        boot_lines = len(vm.dmesg().splitlines())
        status, out = vm.run("insmod %s" % MODULE, timeout=LOAD_TIMEOUT)
        if status != 0:
            problems.append(("insmod", "insmod vhca_kunit.ko failed (%d): %s" % (status, out.strip())))
        module_log = "\n".join(vm.dmesg().splitlines()[boot_lines:])
        # Leaks of the tests show up now, while the module's symbols still
        # name the allocating functions in kmemleak's backtraces; leaks of
        # the unload after rmmod (the report then lists both).
        leaks = vm.kmemleak_report()
        status, out = vm.run("rmmod vhca_kunit", timeout=120)
        if status != 0:
            problems.append(("rmmod", "rmmod vhca_kunit failed (%d): %s" % (status, out.strip())))
        log_text = vm.dmesg()
        if not leaks.strip():
            leaks = vm.kmemleak_report()
        if leaks.strip():
            problems.append(("kmemleak", leaks[:8000]))
        bad = vmlib.bad_dmesg_lines(log_text)
        if bad:
            problems.append(("kernel_log", "\n".join(bad[:100])))
    except vmlib.VMError as err:
        problems.append(("guest", "%s\n%s" % (err, getattr(err, "output", ""))))
    finally:
        vm.shutdown()
    os.makedirs(os.path.dirname(LOG), exist_ok=True)
    with open(LOG, "w") as f:
        f.write(log_text)

    cases = ktap_cases(module_log)
    for name, message in problems:
        print("kunit: %s: %s" % (name, message))
        cases.append((name, "fail", message))
    junit.write(RESULTS, "kunit", cases)
    print("kunit: kernel log in %s" % LOG)
    return junit.finish("kunit", 0)


if __name__ == "__main__":
    sys.exit(main())
