// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
// vhca_fake.h: the fake device for C callers (the KUnit suites and their
// environment), each call under the device's lock.
#include "vhca_fake.h"

#include "fake_device.h"
#include "fake_internal.h"
#include "../core/placement_new.h"

struct vhca_fake {
  explicit vhca_fake(vhca_fake_env* env) : device(env) {}
  vhca::fake::Device device;
};

namespace {

using Locked = vhca::fake::Device::Locked;

vhca::fake::Device& Dev(vhca_fake* fake) { return fake->device; }

// fn(device) under the device's lock.
template <typename Fn>
auto UnderLock(vhca_fake* fake, Fn fn) -> decltype(fn(fake->device)) {
  Locked lock(fake->device.env());
  return fn(fake->device);
}

}  // namespace

extern "C" {

size_t vhca_fake_size(void) { return sizeof(vhca_fake); }

vhca_fake* vhca_fake_init(void* memory, vhca_fake_env* env, const vhca_fake_config* config) {
  auto* fake = new (memory) vhca_fake(env);
  vhca::fake::Device& d = fake->device;
  if (!config) return fake;
  if (config->num_ports) d.num_ports = static_cast<uint8_t>(config->num_ports);
  if (config->num_vectors) d.num_vectors = static_cast<uint8_t>(config->num_vectors);
  if (config->max_pd) d.max_pd = config->max_pd;
  if (config->version) d.version = config->version;
  d.fail_enable = config->fail_enable;
  d.data_path = !config->no_data_path;
  return fake;
}

vhca_fake_env* vhca_fake_env_of(vhca_fake* fake) { return Dev(fake).env(); }

unsigned int vhca_fake_reg_read32(vhca_fake* fake, unsigned int offset) {
  return Dev(fake).ReadRegister(offset);
}
void vhca_fake_reg_write32(vhca_fake* fake, unsigned int offset, unsigned int value) {
  Dev(fake).WriteRegister(offset, value);
}
void vhca_fake_db_write32(vhca_fake* fake, unsigned int offset, unsigned int value) {
  Dev(fake).WriteDoorbell(offset, value);
}
void vhca_fake_db_write64(vhca_fake* fake, unsigned int offset, unsigned long long value) {
  Dev(fake).WriteDoorbell64(offset, value);
}
void vhca_fake_run_commands(vhca_fake* fake) { Dev(fake).RunCommands(); }
void vhca_fake_deliver_irq(vhca_fake* fake, unsigned int vector) {
  Dev(fake).DeliverInterrupt(vector);
}
int vhca_fake_owns_ring(vhca_fake* fake, unsigned long long dma) {
  return Dev(fake).OwnsRing(dma);
}

void vhca_fake_set_core(vhca_fake* fake, vhca_core_device* core) {
  UnderLock(fake, [core](vhca::fake::Device& d) { d.core = core; });
}
void vhca_fake_set_hang(vhca_fake* fake, int hang) {
  UnderLock(fake, [hang](vhca::fake::Device& d) { d.hang = hang; });
}
void vhca_fake_complete_hung(vhca_fake* fake) { Dev(fake).CompleteHungCommands(); }
void vhca_fake_force_status(vhca_fake* fake, unsigned int opcode, int status) {
  UnderLock(fake, [opcode, status](vhca::fake::Device& d) {
    d.forced_status.set(opcode, status < 0 ? 0 : static_cast<uint8_t>(status));
  });
}
void vhca_fake_set_port(vhca_fake* fake, unsigned int port, unsigned int state,
                        unsigned int lid) {
  Dev(fake).SetPort(static_cast<uint8_t>(port), static_cast<uint8_t>(state),
                    static_cast<uint16_t>(lid));
}

int vhca_fake_post_eqe(vhca_fake* fake, unsigned int eqn, const vhca_eqe* eqe) {
  return Dev(fake).PostEvent(eqn, *eqe);
}
int vhca_fake_post_port_event(vhca_fake* fake, unsigned int port, unsigned int subtype,
                              unsigned int state, unsigned int lid) {
  return Dev(fake).PostPortEvent(static_cast<uint8_t>(port), static_cast<uint8_t>(subtype),
                                 static_cast<uint8_t>(state), static_cast<uint16_t>(lid));
}
void vhca_fake_post_cqe(vhca_fake* fake, unsigned int cqn, const vhca_cqe* cqe) {
  Dev(fake).PostCqe(cqn, *cqe);
}
int vhca_fake_eq_idle(vhca_fake* fake, unsigned int eqn) { return Dev(fake).EqIdle(eqn); }

int vhca_fake_enabled(vhca_fake* fake) {
  return UnderLock(fake, [](vhca::fake::Device& d) { return d.enabled; });
}
unsigned int vhca_fake_resets(vhca_fake* fake) {
  return UnderLock(fake, [](vhca::fake::Device& d) { return d.resets; });
}
unsigned int vhca_fake_cmdq_pi(vhca_fake* fake) {
  return UnderLock(fake, [](vhca::fake::Device& d) { return d.cmdq_pi; });
}
unsigned int vhca_fake_cmdq_ci(vhca_fake* fake) {
  return UnderLock(fake, [](vhca::fake::Device& d) { return d.cmdq_ci; });
}
unsigned int vhca_fake_cmdq_log(vhca_fake* fake) {
  return UnderLock(fake, [](vhca::fake::Device& d) { return d.cmdq_log; });
}
unsigned int vhca_fake_num_executed(vhca_fake* fake) {
  return UnderLock(fake, [](vhca::fake::Device& d) { return d.executed.size(); });
}
int vhca_fake_executed(vhca_fake* fake, unsigned int i, vhca_cmd* cmd, unsigned int* slot) {
  return UnderLock(fake, [=](vhca::fake::Device& d) {
    if (!d.executed.kept(i)) return 0;
    *cmd = d.executed[i];
    if (slot) *slot = d.executed_slots[i];
    return 1;
  });
}
unsigned int vhca_fake_count_opcode(vhca_fake* fake, unsigned int opcode) {
  return UnderLock(fake, [opcode](vhca::fake::Device& d) {
    unsigned int n = 0;
    for (const vhca_cmd& cmd : d.executed) n += cmd.opcode == opcode;
    return n;
  });
}
unsigned int vhca_fake_num_eq_doorbells(vhca_fake* fake) {
  return UnderLock(fake, [](vhca::fake::Device& d) { return d.eq_doorbells.size(); });
}
unsigned int vhca_fake_eq_doorbell(vhca_fake* fake, unsigned int i) {
  return UnderLock(fake, [i](vhca::fake::Device& d) {
    return d.eq_doorbells.kept(i) ? d.eq_doorbells[i] : 0u;
  });
}
unsigned int vhca_fake_eq_producer(vhca_fake* fake, unsigned int eqn) {
  return UnderLock(fake, [eqn](vhca::fake::Device& d) {
    return eqn < VHCA_MAX_EQS ? d.eqs[eqn].producer : 0u;
  });
}
unsigned int vhca_fake_eq_log(vhca_fake* fake, unsigned int eqn) {
  return UnderLock(fake, [eqn](vhca::fake::Device& d) {
    return eqn < VHCA_MAX_EQS ? d.eqs[eqn].log_size : 0u;
  });
}
int vhca_fake_eq_live(vhca_fake* fake, unsigned int eqn) {
  return UnderLock(fake, [eqn](vhca::fake::Device& d) { return eqn < VHCA_MAX_EQS && d.eqs[eqn].live; });
}
unsigned int vhca_fake_irqs(vhca_fake* fake, unsigned int vector) {
  return UnderLock(fake, [vector](vhca::fake::Device& d) {
    return vector < VHCA_MAX_VECTORS ? d.irqs[vector] : 0u;
  });
}
unsigned int vhca_fake_pds_allocated(vhca_fake* fake) {
  return UnderLock(fake, [](vhca::fake::Device& d) { return d.pds.size(); });
}
unsigned int vhca_fake_protocol_errors(vhca_fake* fake) {
  return UnderLock(fake, [](vhca::fake::Device& d) { return d.protocol_errors; });
}

}  // extern "C"
