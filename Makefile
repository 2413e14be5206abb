# vhca top-level Makefile.  `make test` runs every test tier; `make run`
# boots a guest with two vhca devices and shows their ports; `make bench`
# compares perftest on vhca and rdma_rxe (not part of `make test`).  Each target
# first runs scripts/deps.sh (a few milliseconds when nothing is missing).
# Documentation/testing.md describes the tiers, testing-vm.md the VM harness.

PYTHON := /usr/bin/python3
# QEMU_VERSION: the QEMU every target builds and runs.  10.2 (default):
# Debian's 10.2 source with the device's patch series applied by `git am`
# (scripts/build-qemu10.sh), linked into build/qemu/; QEMU_SRC=DIR builds
# the device into the user's own git checkout of 10.2 instead.  7.2:
# Debian 12's package, glued in (scripts/build-qemu.sh), build/qemu-7.2/.
# Documentation/device-qemu.md "QEMU versions".
QEMU_VERSION ?= 10.2
ifeq ($(QEMU_VERSION),10.2)
BUILD_QEMU := scripts/build-qemu10.sh
QEMU_OUT := build/qemu
else ifeq ($(QEMU_VERSION),7.2)
BUILD_QEMU := scripts/build-qemu.sh
QEMU_OUT := build/qemu-7.2
ifneq ($(QEMU_SRC),)
$(error QEMU_SRC is for QEMU_VERSION=10.2 (the patch series))
endif
else
$(error QEMU_VERSION=$(QEMU_VERSION): expected 10.2 or 7.2)
endif
# The build the scripts use: run-qtest.sh, bench-copy.sh and the build
# scripts read VHCA_QEMU_OUT, selftests/vmlib.py and scripts/vm-run read
# VHCA_QEMU (unless the caller set it).
export VHCA_QEMU_OUT := $(QEMU_OUT)
export VHCA_QEMU ?= $(CURDIR)/$(QEMU_OUT)/qemu-system-x86_64
# KERNEL: the guest kernel of `module`, `initramfs`, `run` and every guest
# tier (selftests/vmlib.py picks the image, its modules and vhca.ko).
# 7.3 (default): Debian's newest (trixie-backports), 6.12 (Debian 13's
# long-term kernel) or 6.1 (Debian 12's, the host's /boot): 7.3 and 6.12
# fetched into the cache by scripts/fetch-kernel.sh.  debug: the debug
# kernel (scripts/build-debug-kernel.sh: 7.3 with KASAN, lockdep, kmemleak,
# KUnit).  Documentation/testing-vm.md "Guest kernels".
KERNEL ?= $(or $(VHCA_KERNEL),7.3)
ifeq ($(KERNEL),debug)
MODULE_KO := build/debug/vhca.ko
else ifeq ($(KERNEL),6.1)
MODULE_KO := build/vhca.ko
else ifneq ($(filter 6.12 7.3,$(KERNEL)),)
MODULE_KO := build/kernel-$(KERNEL)/vhca.ko
else
$(error KERNEL=$(KERNEL): expected 7.3, 6.12, 6.1 or debug)
endif
export VHCA_KERNEL := $(KERNEL)
# GUEST_ROOT: the root filesystem every guest boots.  trixie (default): the
# Debian 13 root of scripts/build-guest-root.sh (rdma-core 65 with the
# provider in its tree), which the guest targets build first (`make
# guest-root`); host: the host's own / (Debian 12, rdma-core 44 with `make
# provider`'s build).  Documentation/testing-vm.md "The Debian 13 guest root".
GUEST_ROOT ?= $(or $(VHCA_GUEST_ROOT),trixie)
ifeq ($(filter host trixie,$(GUEST_ROOT)),)
$(error GUEST_ROOT=$(GUEST_ROOT): expected host or trixie)
endif
export VHCA_GUEST_ROOT := $(GUEST_ROOT)
GUEST_ROOT_DEP := $(if $(filter trixie,$(GUEST_ROOT)),guest-root)
# What every target that boots a guest of the harness builds first.
GUEST_PREREQS := qemu module initramfs provider $(GUEST_ROOT_DEP)
# The same two devices as selftests/conftest.py DEVICES.
VM_DEVICES := --device vhca,id=vhca0,ports=2,node-guid=0x5254000000000100 \
              --device vhca,id=vhca1,ports=1,node-guid=0x5254000000000200
# The driver, and the provider for user verbs (rping, perftest, ibv_*).
GUEST_SETUP := sh $(CURDIR)/scripts/guest/load-driver.sh $(CURDIR)/$(MODULE_KO) && \
	sh $(CURDIR)/scripts/guest/install-provider.sh $(CURDIR)/build/provider

.PHONY: all deps qemu qemu-asan-device module initramfs provider kernel-debug check-unit check-qtest check-vm \
	check-kernels-build check-kernels check-smoke check-kernels-smoke check-vm-debug check-kunit check-kunit-verbs check-debug-tiers check-fuzz check-qemu-fuzz check-verbs check-uverbs check-ulp check-ulp-debug \
	check-ulp-full check-ulp-full-debug check-ulp-open check-fault-rules check-middleware check-riostream soak-middleware check-install check-dkms \
	install check-fabric check-fabric-opensm check-fabric-failover check-fabric-arb check-capture \
	check-fabric-rcwin check-topology check-fabric-ulp check-fabric-middleware switch test bench bench-sqpoll \
	bench-copy run clean qemu-patches check-qemu-patches rdma-core-patches \
	check-rdma-core-patches guest-root

all: qemu module initramfs

deps:
	@scripts/deps.sh

qemu: deps
	$(BUILD_QEMU)

# QEMU with only the device model under AddressSanitizer, from the plain
# tree (Documentation/device-qemu.md "Debugging with AddressSanitizer");
# ASAN_QTESTS: qtest programs to build against it, e.g. ASAN_QTESTS="vhca-hotplug-test vhca-rc-test".
ASAN_QTESTS ?= vhca-hotplug-test
qemu-asan-device: deps qemu
	scripts/build-qemu-asan-device.py $(ASAN_QTESTS)

module: deps
	KERNEL=$(KERNEL) scripts/build-module.sh

# vhca.ko for each kernel it supports: 6.1 (Debian 12), 6.12 and 7.3
# (Documentation/driver-build.md "Kernel compatibility").  Not in `make test`.
check-kernels-build: deps
	KERNEL=6.1 scripts/build-module.sh
	KERNEL=6.12 scripts/build-module.sh
	KERNEL=7.3 scripts/build-module.sh

kernel-debug: deps
	scripts/build-debug-kernel.sh

initramfs: deps
	scripts/build-initramfs.sh

# The standalone switch for ports cabled out of QEMU (Documentation/fabric.md).
switch: deps
	scripts/build-switch.sh

# The libibverbs provider (provider/README.md): build/provider/.
provider: deps
	scripts/build-provider.sh

# The device as a `git format-patch` series against QEMU 10.2's tree:
# build/qemu-patches/; check-qemu-patches applies it with `git am` to a clean
# tree, builds it and runs the qtests.  Not part of `make test`.
qemu-patches: deps
	scripts/qemu-patches.sh write

check-qemu-patches: deps
	@test "$(QEMU_VERSION)" = 10.2 || { echo "check-qemu-patches: QEMU_VERSION=10.2 only" >&2; exit 1; }
	scripts/qemu-patches.sh check

# The provider as a `git format-patch` series against rdma-core 65.0's tree:
# build/rdma-core-patches/ (provider/README.md); check-rdma-core-patches
# applies it with `git am` to a clean tree and builds rdma-core whole in the
# Debian 13 root.  Not part of `make test`.
rdma-core-patches: deps
	scripts/rdma-core-patches.sh

check-rdma-core-patches: deps rdma-core-patches
	scripts/check-rdma-core-patches.sh

# The Debian 13 guest root (GUEST_ROOT=trixie): trixie's packages by
# mmdebstrap, and rdma-core 65 with the series built for /usr
# (scripts/build-rdma-core-usr.sh) installed over trixie's 56.
guest-root: deps rdma-core-patches
	scripts/build-guest-root.sh

check-unit: deps
	scripts/run-unit.sh

check-qtest: deps qemu
	scripts/run-qtest.sh

# libFuzzer targets of the device's parsers, on the host (fuzz/README.md);
# FUZZ_SECONDS per target, default 10 (the corpus grows in the cache).
check-fuzz: deps
	scripts/run-fuzz.sh

# The device fuzzed in QEMU's own form: a fuzzing QEMU 10.2 (clang,
# libFuzzer, ASan, UBSan) with the series, its generic-fuzz-vhca target for
# FUZZ_SECONDS (default 60); Documentation/testing.md "Fuzzing in QEMU's
# form".  Not part of `make test` (a cold build is about 20 minutes).
check-qemu-fuzz: deps
	nice -n 10 scripts/run-qemu-fuzz.sh

# pytest's JUnit report: build/results/vm.xml (vm-debug.xml with KERNEL=debug).
VM_TIER := $(if $(filter debug,$(KERNEL)),vm-debug,vm)
# The debug tier (KASAN, lockdep, kmemleak: five to ten times slower under
# TCG) runs the tests that drive the driver's own paths: load, reload,
# ports, IPoIB datagram and connected mode (whose SA joins and path queries
# also cross the GSI QP).  check-vm keeps the rest: test_harness.py checks
# the harness, and test_diags.py and test_perfquery.py the device's SMA,
# SA and PMA behind that same GSI/SMI path.
VM_DEBUG_TESTS := selftests/test_first_light.py selftests/test_ipoib.py
VM_PYTEST_ARGS := $(if $(filter debug,$(KERNEL)),$(VM_DEBUG_TESTS),selftests)
check-vm: deps $(GUEST_PREREQS)
	rm -f build/results/$(VM_TIER).xml
	$(PYTHON) -m pytest -v --junitxml=build/results/$(VM_TIER).xml $(VM_PYTEST_ARGS); \
	$(PYTHON) scripts/junit.py finish $(VM_TIER) $$?

# The same selftests on the debug kernel; fails on any KASAN, lockdep,
# kmemleak, WARNING or BUG report (selftests/conftest.py).
check-vm-debug: deps
	$(MAKE) --no-print-directory check-vm KERNEL=debug

# vhca_kunit.ko in the debug kernel (scripts/run-kunit.sh).
check-kunit: deps qemu initramfs $(GUEST_ROOT_DEP)
	scripts/run-kunit.sh

# Kernel verbs in a guest (a `make test` tier): the KUnit suites of
# driver/verbs_kunit (vhca_verbs_kunit.ko) against two vhca devices with
# vhca.ko, both built for the debug kernel (built and cached by the
# script).  Documentation/testing-guest-tiers.md "check-verbs".
check-verbs: deps qemu initramfs $(GUEST_ROOT_DEP)
	scripts/run-verbs.sh

# Both KUnit tiers in one boot of the debug kernel (`make test` runs this
# for its kunit and verbs tiers; scripts/run-kunit.sh).
check-kunit-verbs: deps qemu initramfs $(GUEST_ROOT_DEP)
	scripts/run-kunit.sh kunit verbs

# The kunit, verbs and vm-debug tiers, what `make test` runs for them: the
# debug modules built once, then two debug guests at once, one booted for
# both KUnit modules and one for $(VM_DEBUG_TESTS)
# (scripts/run-debug-tiers.sh).
check-debug-tiers: deps qemu $(GUEST_ROOT_DEP)
	$(MAKE) --no-print-directory initramfs KERNEL=debug
	scripts/run-debug-tiers.sh $(VM_DEBUG_TESTS)

# User verbs in a guest (a `make test` tier): the provider with the
# ibv_*_pingpong programs, perftest, rping/ucmatose/udaddy/mckey and
# rdma-core's own tests (selftests/verbs/uverbs.py).
check-uverbs: deps $(GUEST_PREREQS)
	PYTHON=$(PYTHON) scripts/run-uverbs.sh

# Storage ULPs in a guest (Documentation/ulps.md): NVMe over RDMA, iSER,
# SRP, NFS over RDMA with fio verification.  check-ulp (in `make test`) is
# the quick subset, check-ulp-full everything (faults, hot-unplug, FRWR
# forced with ib_core force_mr=1).  KERNEL=debug runs the quick subset on
# the debug kernel (build/results/ulp-debug.xml): check-ulp-debug.
check-ulp: deps $(GUEST_PREREQS)
	PYTHON=$(PYTHON) scripts/run-ulp.sh

# The quick ULP subset on the debug kernel; fails on any KASAN, lockdep,
# kmemleak, WARNING or BUG report (vmlib.check_debug_kernel).
check-ulp-debug: deps kernel-debug
	$(MAKE) --no-print-directory check-ulp KERNEL=debug

check-ulp-full: deps $(GUEST_PREREQS)
	PYTHON=$(PYTHON) scripts/run-ulp.sh full

# Every ULP test, faults and hot-unplug included, in one session on the
# debug kernel (not the force_mr and lossy sessions).
check-ulp-full-debug: deps kernel-debug
	$(MAKE) --no-print-directory check-ulp-full KERNEL=debug

# Fault rules per packet under NVMe over RDMA, iSER, SRP and NFS over
# RDMA (selftests/ulp/ulp_faultrules.py, Documentation/fabric-tests.md
# "Fault rules"): a lost READ response, an RNR NAK burst and a link flap
# in the middle of fio verify, a lost CM REP at connect; a plain rdma_cm
# connect (rping) with a lost REP twice with one seed (the same fault
# trace).  One guest; not in `make test`.  VHCA_FAULT_SEED=N repeats a
# run's seed, and its traces are compared with that run's.
check-fault-rules: deps $(GUEST_PREREQS)
	PYTHON=$(PYTHON) scripts/run-verbs-pytest.sh fault-rules selftests/ulp/ulp_faultrules.py

# ULP tests of open bugs (marked `open_bug`; Documentation/ulps.md "Open
# bugs"): they fail until the bug is fixed, so no other target runs them.
check-ulp-open: deps $(GUEST_PREREQS)
	PYTHON=$(PYTHON) scripts/run-ulp.sh open

# UCX, Open MPI over UCX and libfabric's verbs provider on vhca in a guest
# (in `make test`): selftests/verbs/middleware.py.
check-middleware: deps $(GUEST_PREREQS)
	PYTHON=$(PYTHON) scripts/run-middleware.sh

# riostream -S all -T v across two VMs through the switch (every size,
# riostream's own counts: 100000 verified round trips per size below 1 KiB,
# each waiting for the 2-core host's scheduler; not in `make test`, whose
# uverbs tier runs -S all between the two devices of one guest and whose
# fabric tier runs a bounded riostream per size across the VMs).  Progress
# while it runs: build/results/riostream-fabric.log.  selftests/verbs/rsockets.py.
check-riostream: deps $(GUEST_PREREQS) switch
	VHCA_RIOSTREAM_FULL=1 PYTHON=$(PYTHON) scripts/run-verbs-pytest.sh riostream \
		selftests/fabric/twovms.py -k riostream

# Issue 24's middleware soak (not in `make test`): ucx_perftest series and
# an Open MPI 4 MiB ping-pong, in the same buffers and in a new mapping each
# round trip, VHCA_SOAK_ROUNDS rounds (default 10) in one
# guest at full console log level, kernel log checked after each round,
# QMP asked every second (a stalled main loop fails the round), QEMU's
# backtraces saved on a hang or stall; every round's output (its interrupt
# counts) kept in build/results/soak-middleware.xml, passed or not; the
# device's trace of an EQ the driver does not see (vhca_eq_arm_stuck) on.
# VHCA_SOAK_DEVICES=all: UCX on every port, as the report ran it;
# VHCA_SOAK_KILLS: riostreams killed mid-run before round 1 (default 2).
# VHCA_SOAK_RXE=S: then riostream on rdma_rxe (veth) killed after S s.
# VHCA_SOAK_MIDKILLS=N: N UCX or MPI runs a round killed mid-traffic.
# VHCA_SOAK_OPENSM: opensm master first (before, default), all along
# (during) or not at all (off).
# VHCA_SOAK_BOOTS=N: N guests one after the other, each booted afresh
# through all of the above (with VHCA_SOAK_ROUNDS=1: the report's sequence).
# selftests/verbs/soak_middleware.py.
soak-middleware: deps $(GUEST_PREREQS)
	VHCA_QEMU_TRACE="vhca_eq_arm_stuck$${VHCA_QEMU_TRACE:+,$$VHCA_QEMU_TRACE}" \
	PYTHON=$(PYTHON) scripts/run-verbs-pytest.sh soak-middleware selftests/verbs/soak_middleware.py \
		-o junit_logging=system-out

# `make install` in a guest (NOT in `make test`: DKMS compiles the module
# under TCG, about half an hour): selftests/install/install.py.
check-install: deps qemu initramfs provider $(GUEST_ROOT_DEP)
	PYTHON=$(PYTHON) scripts/run-verbs-pytest.sh install selftests/install/install.py

# `dkms build` of the module, with DKMS's trees in build/dkms* so the
# machine is left as it was (scripts/install.sh): for the host's Debian 12
# kernel (6.1) and for 6.12 (its headers from the cache, which DKMS takes
# with --kernelsourcedir).  7.3's headers need Debian 13's gcc-14 and
# glibc, which this host lacks (Documentation/usage.md "DKMS").
check-dkms: deps
	VHCA_KVER=$$(scripts/kver.sh) scripts/install.sh --dkms-build $(CURDIR)/build/dkms
	cache=$$(scripts/fetch-kernel.sh 6.12 | tail -n 1) && kver=$${cache##*/kernel-} && \
	VHCA_KVER=$$kver VHCA_KDIR=$$cache/root/usr/src/linux-headers-$$kver \
		scripts/install.sh --dkms-build $(CURDIR)/build/dkms-6.12

# The module's sources to /usr/src/vhca-<version> and through DKMS
# (dkms.conf) for VHCA_KVER (default: the running kernel) and every later
# kernel; the provider of `make provider` into libibverbs' provider
# directory.  As root, on the machine (or guest) that runs vhca, which
# needs neither scripts/deps.sh's packages nor this Makefile's builds.
# Documentation/usage.md.
install:
	scripts/install.sh

# Two VMs through the standalone switch (in `make test`):
# IPoIB, RC pingpong, perftest, rping, a VM killed mid-transfer.
# Documentation/fabric.md.
check-fabric: deps $(GUEST_PREREQS) switch
	PYTHON=$(PYTHON) scripts/run-fabric.sh

# The same with RC_WINDOW (default 64, the most) RC requests in flight per
# QP across VMs (the device property rc-window, 1 by default; not in `make
# test`): writes build/results/fabric-rcwin.txt.  Documentation/fabric.md
# "RC over the wire".
RC_WINDOW ?= 64
check-fabric-rcwin: deps $(GUEST_PREREQS) switch
	VHCA_DEVICE_PROPS="$(VHCA_DEVICE_PROPS),rc-window=$(RC_WINDOW)" VHCA_FABRIC_TIER=fabric-rcwin \
		PYTHON=$(PYTHON) scripts/run-fabric.sh

# The storage ULPs between two VMs through the standalone switch (not in
# `make test`; check-fabric runs its NVMe over RDMA test): NVMe over RDMA,
# iSER, NFS over RDMA and SRP, the target in VM a, the host in VM b,
# build/results/fabric-ulp.txt.  Documentation/fabric-tests.md "Storage ULPs
# across VMs".
check-fabric-ulp: deps $(GUEST_PREREQS) switch
	PYTHON=$(PYTHON) scripts/run-verbs-pytest.sh fabric-ulp selftests/fabric/twovm_ulp.py

# Captures that Wireshark reads (not in `make test`): two VMs through the
# standalone switch with --capture, VM b's port captured from QMP, an SMP
# sweep, an SA query and NVMe over RDMA with fio; the pcapng files stay in
# build/capture/, tshark must decode every packet (no malformed mark, CRCs
# recomputed) and the opcode counts, PSN sequences and CM REQ/REP/RTU are
# checked from its fields: build/results/capture.txt.
# Documentation/fabric-tests.md "Capture".
check-capture: deps $(GUEST_PREREQS) switch
	@test "$(KERNEL)" != debug || { echo "check-capture: not on the debug kernel" >&2; exit 1; }
	PYTHON=$(PYTHON) scripts/run-verbs-pytest.sh capture selftests/capture/capture_fabric.py

# UCX (ucx_perftest over rc_verbs and ud_verbs), libfabric (fi_pingpong
# over msg and rdm endpoints) and Open MPI over UCX (one rank in each VM,
# mpirun launching over ssh on IPoIB) between two VMs through the
# standalone switch (not in `make test`): build/results/fabric-middleware.txt.
# Documentation/fabric-tests.md "Middleware across VMs".
check-fabric-middleware: deps $(GUEST_PREREQS) switch
	PYTHON=$(PYTHON) scripts/run-verbs-pytest.sh fabric-middleware \
		selftests/fabric/twovm_middleware.py

# Two VMs behind a two-level fat tree of four standalone switches
# (tools/vhca-topology.py), routed by opensm's ftree engine in a guest;
# ibnetdiscover against the topology file, ibtracert, RC traffic, a cut
# inter-switch link rerouted; then updn and minhop (not in `make test`):
# build/results/topology.txt.  Documentation/fabric-tests.md "A fat tree
# routed by opensm".
check-topology: deps $(GUEST_PREREQS) switch
	PYTHON=$(PYTHON) scripts/run-verbs-pytest.sh topology selftests/fabric/topology.py

# Debian's opensm in a guest manages the switch (embedded SM off), of the
# standalone switch and of one VM's in-process fabric; then a master/standby
# pair of opensm across two VMs (failover.py, three boots: not in `make test`).
check-fabric-opensm: deps $(GUEST_PREREQS) switch
	PYTHON=$(PYTHON) scripts/run-verbs-pytest.sh fabric-opensm selftests/fabric/opensm.py \
		selftests/fabric/onevm_opensm.py selftests/fabric/failover.py

# The master/standby opensm pair alone: failover, client reregistration,
# handover (Documentation/fabric.md "Two opensm: master and standby").
check-fabric-failover: deps $(GUEST_PREREQS) switch
	PYTHON=$(PYTHON) scripts/run-verbs-pytest.sh fabric-failover selftests/fabric/failover.py

# The embedded SM beside opensm in one guest: SMInfo decides the master
# (a lower opensm stays STANDBY, a higher one gets the subnet by HANDOVER,
# the embedded SM takes it back when that opensm dies).  Not in `make test`.
check-fabric-arb: deps $(GUEST_PREREQS) switch
	PYTHON=$(PYTHON) scripts/run-verbs-pytest.sh fabric-arb selftests/fabric/onevm_arb.py \
		selftests/fabric/twovm_arb.py

# The smoke tier of one kernel (KERNEL=6.12 or 6.1; Documentation/testing-vm.md
# "check-smoke"): vhca.ko built for it, then one guest: load, ports ACTIVE,
# IPoIB ping, rping, ib_write_bw, NVMe over RDMA with fio verify, unload,
# no kernel report.  build/results/smoke-<kernel>.xml.
check-smoke: deps $(GUEST_PREREQS)
	PYTHON=$(PYTHON) scripts/run-smoke.sh

# The smoke tier on 6.12 and on 6.1 (a `make test` tier): their modules and
# initramfs built one after the other, then both guests at once
# (scripts/run-smoke.sh --kernels), both run even if one fails.
# Every guest tier on 7.3, 6.12 and 6.1 (scripts/run-kernels.sh): a table
# of kernel x tier.  Hours under TCG; not in `make test`.
check-kernels: deps
	scripts/run-kernels.sh

check-kernels-smoke: deps qemu provider $(GUEST_ROOT_DEP)
	$(MAKE) --no-print-directory module initramfs KERNEL=6.12
	$(MAKE) --no-print-directory module initramfs KERNEL=6.1
	PYTHON=$(PYTHON) scripts/run-smoke.sh --kernels 6.12 6.1

test: deps
	scripts/run-tests.sh

# perftest on vhca and on rdma_rxe over veth in one TCG guest, plus the
# guest's memcpy ceiling: prints a table, writes build/bench/results.json.
# Not part of `make test`.  Documentation/performance.md.
bench: deps $(GUEST_PREREQS) switch
	@test "$(KERNEL)" != debug || { echo "bench: not on the debug kernel" >&2; exit 1; }
	PYTHON=$(PYTHON) scripts/bench.sh

# The message rate and latency rows with the device's send record polling
# off and on, alternating boots (scripts/bench_sqpoll.py); not part of
# `make test`.  Documentation/performance.md "Device-side SQ polling".
bench-sqpoll: deps $(GUEST_PREREQS)
	@test "$(KERNEL)" != debug || { echo "bench-sqpoll: not on the debug kernel" >&2; exit 1; }
	mkdir -p build/bench
	cc -O2 -Wall -Wextra -Werror -pthread -o build/bench/ceilings scripts/bench-ceilings.c
	cc -O2 -Wall -Wextra -Werror -o build/bench/memcpy-bw scripts/bench-memcpy.c
	$(PYTHON) scripts/bench_sqpoll.py

# QEMU's CPU time per message and per payload byte of RDMA WRITE, READ
# and SEND, qtest-driven (scripts/bench-copy.sh; VHCA_BENCH_BEFORE=<another
# qemu-system-x86_64> measures that one too); not part of `make test`.
# Documentation/performance.md "The payload copy".
bench-copy: deps qemu
	scripts/bench-copy.sh

PORT_AND_STACK_REPORT := sh $(CURDIR)/scripts/guest/port-report.sh 60 3 && \
	sh $(CURDIR)/scripts/guest/stack-report.sh $(CURDIR)
# The port table (port-report.sh), then an IPoIB ping, an rping exchange
# and an ib_write_bw between the two adapters (stack-report.sh).
# FABRIC=2: two guests on the standalone switch instead (scripts/fabric-run:
# each guest's ports, then IPoIB ping, rping -V and ib_write_bw from VM a
# to VM b across the switch; INTERACTIVE=1 then a shell in each).
ifeq ($(FABRIC),2)
run: deps $(GUEST_PREREQS) switch
	scripts/fabric-run $(if $(filter 1,$(INTERACTIVE)),--shell)
else ifneq ($(FABRIC),)
run:
	@echo "make run: FABRIC=$(FABRIC): only FABRIC=2 (two VMs on the switch) is built" >&2; exit 1
else ifeq ($(INTERACTIVE),1)
run: deps $(GUEST_PREREQS)
	scripts/vm-run $(VM_DEVICES) --shell -- '$(GUEST_SETUP)'
else
run: deps $(GUEST_PREREQS)
	scripts/vm-run $(VM_DEVICES) -- '$(GUEST_SETUP) && $(PORT_AND_STACK_REPORT)'
endif

# Kbuild leaves its products next to the sources (M=$(CURDIR)): let it
# remove them, then drop build/.  ~/.cache/vhca (QEMU, initramfs) stays.
clean: deps
	-$(MAKE) -C /usr/src/linux-headers-$$(scripts/kver.sh) M=$(CURDIR) clean >/dev/null
	rm -rf build
