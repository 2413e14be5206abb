# vhca top-level Makefile.  `make test` runs every test tier; `make run`
# boots a guest with two vhca devices and shows their ports.  Each target
# first runs scripts/deps.sh (a few milliseconds when nothing is missing).
# Documentation/testing.md describes the tiers and the VM harness.

PYTHON := /usr/bin/python3
# The same two devices as selftests/conftest.py DEVICES.
VM_DEVICES := --device vhca,id=vhca0,ports=2,node-guid=0x0002c90300000100 \
              --device vhca,id=vhca1,ports=1,node-guid=0x0002c90300000200
GUEST_SETUP := sh $(CURDIR)/scripts/guest/load-driver.sh $(CURDIR)/build/vhca.ko

.PHONY: all deps qemu module initramfs check-unit check-qtest check-vm test run clean

all: qemu module initramfs

deps:
	@scripts/deps.sh

qemu: deps
	scripts/build-qemu.sh

module: deps
	scripts/build-module.sh

initramfs: deps
	scripts/build-initramfs.sh

check-unit: deps
	scripts/run-unit.sh

check-qtest: deps qemu
	scripts/run-qtest.sh

check-vm: deps qemu module initramfs
	$(PYTHON) -m pytest -v selftests

test: deps
	scripts/run-tests.sh

ifeq ($(INTERACTIVE),1)
run: deps qemu module initramfs
	scripts/vm-run $(VM_DEVICES) --shell -- '$(GUEST_SETUP)'
else
run: deps qemu module initramfs
	scripts/vm-run $(VM_DEVICES) -- '$(GUEST_SETUP) && sh $(CURDIR)/scripts/guest/port-report.sh 60 3'
endif

# Kbuild leaves its products next to the sources (M=$(CURDIR)): let it
# remove them, then drop build/.  ~/.cache/vhca (QEMU, initramfs) stays.
clean: deps
	-$(MAKE) -C /usr/src/linux-headers-$$(scripts/kver.sh) M=$(CURDIR) clean >/dev/null
	rm -rf build
