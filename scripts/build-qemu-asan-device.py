#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""build-qemu-asan-device.py - a QEMU whose vhca device model (and nothing
else) is compiled with AddressSanitizer, in about a minute.

`VHCA_QEMU_SANITIZE=1 make qemu` builds the whole of QEMU with
--enable-sanitizers: 1535 ninja steps, over an hour on 2 loaded cores.  The
device model is where our bugs are, and ASan works with partly instrumented
programs (accesses in uninstrumented code are not checked; every malloc and
free is, and the device's accesses to freed or overflowed memory are).  So:
take the plain tree that `make qemu` built (read only: its
compile_commands.json and objects), compile this clone's qemu-device/ files
with its flags plus -fsanitize=address, and link QEMU with them.  The same
for the qtest programs named on the command line (not instrumented; they link
this clone's qtest helpers).

Needs: `make qemu` done, with this clone's trace-events (the generated trace
headers are the plain tree's).  Output: build/qemu-asan-device/
(qemu-system-x86_64, qtest/<program>).  Documentation/device-qemu.md
"Debugging with AddressSanitizer".
"""
import json
import os
import shlex
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(REPO, "build", "qemu-asan-device")
SAN = ["-fsanitize=address", "-fno-omit-frame-pointer"]
REF_TEST = "vhca-reset-test"        # a qtest whose link line we reuse


def die(msg):
    sys.exit("build-qemu-asan-device: error: " + msg)


def plain_build_dir():
    qemu = os.path.join(REPO, os.environ.get("VHCA_QEMU_OUT", "build/qemu"),
                        "qemu-system-x86_64")
    if not os.path.exists(qemu):
        die("no %s: run `make qemu` first" % qemu)
    return os.path.dirname(os.path.realpath(qemu))


def check_generated_inputs(build):
    """The plain tree's generated trace headers and its copy of the uapi
    headers (which the qtests include) must be this clone's."""
    tree = os.path.join(build, "..", "hw", "infiniband", "vhca")
    names = [os.path.join("qemu-device", "trace-events")]
    names += [os.path.join("uapi", f) for f in
              os.listdir(os.path.join(REPO, "uapi")) if f.startswith("vhca_hw")]
    for name in names:
        mine = open(os.path.join(REPO, name)).read()
        where = "uapi" if name.startswith("uapi") else ""
        if mine != open(os.path.join(tree, where, os.path.basename(name))).read():
            die("%s changed since `make qemu`: run it again" % name)


def recompile(entry, src, obj, sanitize, test=None):
    """entry's command line, for src into obj (test: the qtest whose
    include directory it names instead of REF_TEST's)."""
    args = shlex.split(entry["command"])
    args[args.index("-o") + 1] = obj
    args[args.index("-MF") + 1] = obj + ".d"
    args[-1] = src
    if test:
        args = [a.replace(REF_TEST + ".p", test + ".p")
                if a.startswith("-I") else a for a in args]
    extra = SAN + ["-iquote", os.path.join(REPO, "uapi")] if sanitize else []
    return args[:1] + extra + args[1:]


def run_jobs(jobs, cwd):
    """Two compilers at a time (a 2-core machine shared with others)."""
    running = []
    for job in jobs:
        if len(running) == 2:
            if running.pop(0).wait():
                die("compile failed")
        running.append(subprocess.Popen(job, cwd=cwd))
    if any(p.wait() for p in running):
        die("compile failed")


def link(build, target, out, replace, sanitize):
    line = subprocess.run(["ninja", "-C", build, "-t", "commands", target],
                          check=True, capture_output=True,
                          text=True).stdout.splitlines()[-1]
    args = [replace.get(a, a) for a in shlex.split(line)]
    args[args.index("-o") + 1] = out
    args = args[:1] + (["-fsanitize=address"] if sanitize else []) + args[1:]
    if subprocess.run(args, cwd=build).returncode:
        die("link of %s failed" % target)


def device_objects(build, entries):
    """Compile jobs and {plain object: instrumented object} for the device."""
    jobs, objs = [], {}
    for e in entries:
        # The fabric library (hw/infiniband/vhca/fabric/) is linked as the
        # plain tree's archive, uninstrumented: its own host builds run it
        # under ASan (make check-fuzz, check-unit).
        if e["file"].startswith("../hw/infiniband/vhca/fabric/"):
            continue
        if e["file"].startswith("../hw/infiniband/vhca/"):
            name = os.path.basename(e["file"])
            src = os.path.join(REPO, "qemu-device", name)
            if not os.path.exists(src):
                src = os.path.join(REPO, "uapi", name)
            obj = os.path.join(OUT, "obj", os.path.basename(e["output"]))
            jobs.append(recompile(e, src, obj, True))
            objs[e["output"]] = obj
    return jobs, objs


def test_objects(entries, test):
    """Compile jobs and object map for qtest program `test` (this clone's
    sources, REF_TEST's flags)."""
    ref = {e["output"]: e for e in entries
           if e["output"].startswith("tests/qtest/%s.p/" % REF_TEST)}
    libs = open(os.path.join(REPO, "qemu-device", "tests",
                             "vhca-qtest-libs.txt")).read().split()
    jobs, objs = [], {}
    for src in [test + ".c"] + libs:
        plain = "tests/qtest/%s.p/%s.o" % (REF_TEST, REF_TEST + ".c"
                                          if src == test + ".c" else src)
        obj = os.path.join(OUT, "obj", test, src + ".o")
        jobs.append(recompile(ref[plain], os.path.join(
            REPO, "qemu-device", "tests", src), obj, False, test))
        objs[plain] = obj
    return jobs, objs


def main():
    build = plain_build_dir()
    check_generated_inputs(build)
    entries = json.load(open(os.path.join(build, "compile_commands.json")))
    tests = sys.argv[1:]
    for d in ["obj", "qtest"] + ["obj/" + t for t in tests]:
        os.makedirs(os.path.join(OUT, d), exist_ok=True)
    jobs, objs = device_objects(build, entries)
    test_maps = {}
    for t in tests:
        tj, test_maps[t] = test_objects(entries, t)
        jobs += tj
    run_jobs(jobs, build)
    link(build, "qemu-system-x86_64",
         os.path.join(OUT, "qemu-system-x86_64"), objs, True)
    for t in tests:
        link(build, "tests/qtest/" + REF_TEST,
             os.path.join(OUT, "qtest", t), test_maps[t], False)
    # firmware, as QEMU finds it next to a binary in its build tree
    for d in ("qemu-bundle", "pc-bios"):
        dst = os.path.join(OUT, d)
        if not os.path.lexists(dst):
            os.symlink(os.path.join(build, d), dst)
    print("build-qemu-asan-device: %s (%d device objects instrumented)"
          % (OUT, len(objs)))


main()
