#include "gpu_energy_meter.hpp"

#include <simgrid/plugins/energy.h>

#include <array>
#include <charconv>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/simix.hpp>
#include <stdexcept>
#include <system_error>
#include <utility>

namespace vnsim::sim {
namespace {

// Shortest text that parses back to exactly `w`, so the plugin's power is
// the catalog's to the last bit.
std::string exact(double w) {
  std::array<char, 32> buf{};
  const auto [end, ec] = std::to_chars(buf.data(), buf.data() + buf.size(), w);
  if (ec != std::errc()) throw std::logic_error("cannot format a wattage");
  return std::string(buf.data(), end);
}

std::string constant_power(double w) {
  const std::string s = exact(w);
  return s + ":" + s + ":" + s;
}

}  // namespace

std::string gpu_wattage_per_state(const GpuType& type) {
  // Same order as GpuPowerState: Free, Held, Down.
  return constant_power(type.idle_watts) + "," + constant_power(type.busy_watts) + "," + constant_power(0);
}

void enable_gpu_energy_plugin() {
  sg_host_energy_plugin_init();
}

GpuEnergyMeter::GpuEnergyMeter(const Platform& platform, std::vector<std::size_t> type_of_gpu,
                               std::vector<GpuWatts> watts_of_type, EnergyCounters counters,
                               const std::vector<GpuId>& plugin_gpus)
    : platform_(platform),
      type_of_gpu_(std::move(type_of_gpu)),
      watts_of_type_(std::move(watts_of_type)),
      counters_(counters),
      plugin_counted_(type_of_gpu_.size(), counters == EnergyCounters::Plugin ? 1 : 0),
      counter_j_(type_of_gpu_.size(), 0),
      counter_clock_(type_of_gpu_.size(), simgrid::s4u::Engine::get_clock()),
      tenants_(type_of_gpu_.size(), 0),
      state_(type_of_gpu_.size(), GpuPowerState::Free),
      told_(type_of_gpu_.size(), GpuPowerState::Free),
      is_changed_(type_of_gpu_.size(), 0),
      energy_read_j_(type_of_gpu_.size(), 0),
      is_unread_(type_of_gpu_.size(), 0),
      unread_state_(type_of_gpu_.size(), GpuPowerState::Free),
      busy_j_(watts_of_type_.size(), 0),
      idle_j_(watts_of_type_.size(), 0) {
  if (type_of_gpu_.size() != platform.gpu_hosts.size())
    throw std::logic_error("energy meter: one GPU type per GPU host expected");
  for (std::size_t t : type_of_gpu_)
    if (t >= watts_of_type_.size()) throw std::logic_error("energy meter: GPU type out of range");
  for (GpuId g : plugin_gpus) plugin_counted_.at(static_cast<std::size_t>(g)) = 1;
}

void GpuEnergyMeter::taken(const std::vector<GpuId>& gpus) {
  for (GpuId g : gpus)
    if (++tenants_.at(static_cast<std::size_t>(g)) == 1) enter(g, GpuPowerState::Held);
}

void GpuEnergyMeter::released(const std::vector<GpuId>& gpus) {
  for (GpuId g : gpus) {
    int& n = tenants_.at(static_cast<std::size_t>(g));
    if (n == 0) throw std::logic_error("energy meter: GPU " + std::to_string(g) + " released while free");
    if (--n == 0) enter(g, GpuPowerState::Free);
  }
}

void GpuEnergyMeter::went_down(const std::vector<GpuId>& gpus) {
  for (GpuId g : gpus) enter(g, GpuPowerState::Down);
}

void GpuEnergyMeter::came_up(const std::vector<GpuId>& gpus) {
  for (GpuId g : gpus)
    enter(g, tenants_.at(static_cast<std::size_t>(g)) > 0 ? GpuPowerState::Held : GpuPowerState::Free);
}

void GpuEnergyMeter::finish() {
  instant_over();
  const auto read_all = [this] {
    for (std::size_t g = 0; g < state_.size(); ++g) account(static_cast<GpuId>(g), state_[g]);
  };
  if (counters_ == EnergyCounters::Analytic) {
    read_all();
    return;
  }
  ++kernel_calls_;
  simgrid::kernel::actor::simcall_answered(read_all);
}

// The host's counter is read at the first change of each instant, as if
// its pstate were switched there: the plugin's sum is then taken over the
// same pieces of time, so the energies come out bit for bit the same, while
// the switch itself waits for the end of the instant and is skipped when
// the GPU ends it in the state SimGrid knows. Within an instant no time
// passes, so the state in between draws nothing, and the read itself waits
// for the end of the instant too: the counter does not move within it
// (SimGrid's HostEnergy::update adds nothing while the clock stands still).
// A round of a round-based policy changes hundreds of GPUs at one instant;
// reading each in its own simcall was the meter's cost.
void GpuEnergyMeter::enter(GpuId g, GpuPowerState state) {
  const auto i = static_cast<std::size_t>(g);
  if (state_.at(i) == state) return;
  const double clock = simgrid::s4u::Engine::get_clock();
  // The controller ends every instant (instant_over) before time passes;
  // should a change come later all the same, the earlier ones are read now.
  if (!unread_.empty() && clock != unread_clock_) read_unread();
  if (is_unread_[i] == 0) {
    is_unread_[i] = 1;
    unread_state_[i] = state_[i];
    unread_.push_back(g);
    unread_clock_ = clock;
  }
  state_[i] = state;
  if (is_changed_[i] == 0) {
    is_changed_[i] = 1;
    changed_.push_back(g);
  }
}

void GpuEnergyMeter::read_unread() {
  if (unread_.empty()) return;
  const auto read = [this] {
    for (GpuId g : unread_) account(g, unread_state_[static_cast<std::size_t>(g)]);
  };
  if (counters_ == EnergyCounters::Analytic) {
    read();
  } else {
    ++kernel_calls_;
    simgrid::kernel::actor::simcall_answered(read);
  }
  for (GpuId g : unread_) is_unread_[static_cast<std::size_t>(g)] = 0;
  unread_.clear();
}

void GpuEnergyMeter::instant_over() {
  read_unread();
  bool any = false;
  for (GpuId g : changed_) {
    const auto i = static_cast<std::size_t>(g);
    if (told_[i] != state_[i]) any = true;
  }
  if (any && counters_ == EnergyCounters::Analytic) {
    // What the plugin does at set_pstate (its on_speed_change callback):
    // update in the old state, then keep the new one.
    const double now = simgrid::s4u::Engine::get_clock();
    for (GpuId g : changed_) {
      const auto i = static_cast<std::size_t>(g);
      if (told_[i] == state_[i]) continue;
      if (plugin_counted_[i] != 0) {
        ++kernel_calls_;
        platform_.gpu_hosts[i]->set_pstate(static_cast<unsigned long>(state_[i]));  // its own simcall
      } else {
        update_counter(i, now);
      }
      told_[i] = state_[i];
    }
  } else if (any) {
    ++kernel_calls_;
    simgrid::kernel::actor::simcall_answered([this] {
      for (GpuId g : changed_) {
        const auto i = static_cast<std::size_t>(g);
        if (told_[i] == state_[i]) continue;
        told_[i] = state_[i];
        platform_.gpu_hosts[i]->set_pstate(static_cast<unsigned long>(state_[i]));
      }
    });
  }
  for (GpuId g : changed_) is_changed_[static_cast<std::size_t>(g)] = 0;
  changed_.clear();
}

// Books what the host consumed since its last read to `state`, the state
// it was in (nothing can accrue while Down: that state draws 0 W).
void GpuEnergyMeter::account(GpuId g, GpuPowerState state) {
  const auto i = static_cast<std::size_t>(g);
  const double now_j = counter_j(i);
  const double delta = now_j - energy_read_j_[i];
  energy_read_j_[i] = now_j;
  if (state == GpuPowerState::Held) busy_j_[type_of_gpu_[i]] += delta;
  if (state == GpuPowerState::Free) idle_j_[type_of_gpu_[i]] += delta;
}

double GpuEnergyMeter::watts(std::size_t i, GpuPowerState state) const {
  const GpuWatts& w = watts_of_type_[type_of_gpu_[i]];
  switch (state) {
    case GpuPowerState::Free:
      return w.idle;
    case GpuPowerState::Held:
      return w.busy;
    case GpuPowerState::Down:
      break;
  }
  return 0;
}

// HostEnergy::update's sum, term for term: the plugin's power of a state is
// its constant watts (idle = epsilon = max, so its load-dependent term is
// 0 W), and it adds watts x (now - last update) to the total whenever
// updated at a later clock. The build has no -march flag, so neither this
// sum nor the plugin's is fused into an FMA.
void GpuEnergyMeter::update_counter(std::size_t i, double now) {
  if (!(counter_clock_[i] < now)) return;
  const double step = watts(i, told_[i]) * (now - counter_clock_[i]);
  counter_j_[i] = counter_j_[i] + step;
  counter_clock_[i] = now;
}

double GpuEnergyMeter::counter_j(std::size_t i) {
  // Within the meter's simcall with Plugin counters, in its own otherwise.
  if (plugin_counted_[i] != 0) return sg_host_get_consumed_energy(platform_.gpu_hosts[i]);
  update_counter(i, simgrid::s4u::Engine::get_clock());
  return counter_j_[i];
}

}  // namespace vnsim::sim
