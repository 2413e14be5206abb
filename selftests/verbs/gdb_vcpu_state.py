"""A gdb script (gdb -p QEMU -x this file), not a test: each TCG vCPU
thread's guest state, read from the CPUState and CPUX86State its cpu_exec()
frame runs: the guest's RIP and privilege level, CR2 (the last page-fault
address), the exception being delivered and the pending interrupts.  The
middleware soak prints it beside QEMU's backtraces when a guest stops
answering (soak_middleware.py save_qemu_backtraces): a vCPU that stays in
exception delivery shows the same RIP and CR2 sample after sample, which
names the guest code that loops.  env.eip is as of the last translation
block boundary, which is where an exception leaves it."""
import gdb  # noqa: F401 (provided by gdb)


# The frames that hold the vCPU's CPUState: cpu_exec() while it runs guest
# code or delivers an exception, the TCG vCPU thread's function (its
# argument) while it waits, halted or for the BQL.
CPU_FRAMES = (("cpu_exec", "cpu"), ("mttcg_cpu_thread_fn", "arg"),
              ("rr_cpu_thread_fn", "arg"))


def vcpu_frame(thread):
    """(frame, expression of its CPUState pointer) of a vCPU thread, or
    None for another thread."""
    thread.switch()
    frame = gdb.newest_frame()
    while frame is not None:
        for name, variable in CPU_FRAMES:
            if frame.name() == name:
                return frame, variable
        frame = frame.older()
    return None


for thread in gdb.selected_inferior().threads():
    found = vcpu_frame(thread)
    if found is None:
        continue
    found[0].select()
    try:
        cpu = gdb.parse_and_eval("(X86CPU *)" + found[1])
        env, state = cpu["env"], cpu["parent_obj"]
        print("LWP %d vCPU %d: guest rip 0x%x cpl %d cr2 0x%x exception_index %d "
              "interrupt_request 0x%x halted %d"
              % (thread.ptid[1], int(state["cpu_index"]), int(env["eip"]),
                 int(env["hflags"]) & 3, int(env["cr"][2]), int(state["exception_index"]),
                 int(state["interrupt_request"]), int(state["halted"])))
    except gdb.error as err:
        print("LWP %d: no vCPU state: %s" % (thread.ptid[1], err))
