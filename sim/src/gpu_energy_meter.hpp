#pragma once
// GPU energy (docs/ELASTICITY.md, "Cost and energy"): constant watts per
// power state, integrated over time, either by the meter itself or by
// SimGrid's host energy plugin. Every GPU host has one power state (pstate)
// per GpuPowerState, all at the same speed, so switching state never changes
// compute timing; each state draws a constant power whatever the host's
// load, because a GPU held by a training job stays near board power also
// while it waits on an all-reduce or is timed analytically (no SimGrid Exec
// at all).
#include <cstddef>
#include <string>
#include <vector>

#include "platform.hpp"
#include "replay_recorder.hpp"
#include "vnsim/core/gpu_catalog.hpp"

namespace vnsim::sim {

// A GPU host's pstate index.
enum class GpuPowerState : unsigned long { Free = 0, Held = 1, Down = 2 };
inline constexpr std::size_t kGpuPowerStateCount = 3;

// The `wattage_per_state` host property for a GPU of `type`, one constant
// "W:W:W" (idle:epsilon:full) per GpuPowerState: idle, busy, 0.
std::string gpu_wattage_per_state(const GpuType& type);

// Registers the plugin; call after creating the engine and before building
// the platform (the plugin attaches to hosts as they are sealed).
void enable_gpu_energy_plugin();

// Where a GPU's energy counter comes from.
//  - Analytic: the meter integrates it itself, with the plugin's arithmetic
//    (HostEnergy::update in SimGrid's src/plugins/host_energy.cpp: at each
//    update, total += watts of the last state x time since the last update)
//    at the same updates (the meter's reads and pstate switches), so the
//    energies are bit for bit the plugin's. No simcall, no SimGrid state:
//    reading the plugin's counters of 10,000 hosts missed the cache on
//    every read (SimGrid's Host, CpuImpl and the plugin's extension). The
//    plugin also updates a host's counter whenever a CPU action on it
//    changes state, which splits its sum into other pieces: an actor's
//    sleep or timed wait (the replay's controller waiting for its next
//    event) or an Exec. So the GPUs whose hosts run such an actor for the
//    whole replay (`plugin_gpus`: the controller's) keep the plugin's
//    counters, and a replay where Execs or set-up sleeps run on any GPU
//    host (actor and quiet rings, parameter-server and DP x TP x PP jobs)
//    uses Plugin counters throughout. Left: a state broadcast's set-up
//    sleep (a resize in place that adds GPUs) on a GPU host splits that
//    host's sum in the plugin, not here; it moves that GPU's counter in its
//    last bits, below the last digit of its type's sum on the runs checked
//    (docs/ELASTICITY.md, "Cost and energy").
//  - Plugin: every GPU's counter is the plugin's.
enum class EnergyCounters { Analytic, Plugin };

// The constant power of each state of one GPU type (Down draws 0 W).
struct GpuWatts {
  double idle = 0;
  double busy = 0;
};

// Keeps each GPU's power state in step with the recorder's events and splits
// its energy into busy (Held) and idle (Free) per GPU type by reading each
// GPU's counter whenever its state changes. A GPU shared by several jobs
// (docs/HETEROGENEITY.md) is Held while any of them holds it.
class GpuEnergyMeter : public GpuStateListener {
 public:
  // `type_of_gpu[g]`: GPU g's index into `watts_of_type`. The plugin must be
  // enabled (enable_gpu_energy_plugin); the pstates of the hosts whose
  // counters are the plugin's are switched as their GPUs' states change.
  GpuEnergyMeter(const Platform& platform, std::vector<std::size_t> type_of_gpu,
                 std::vector<GpuWatts> watts_of_type, EnergyCounters counters,
                 const std::vector<GpuId>& plugin_gpus = {});

  void taken(const std::vector<GpuId>& gpus) override;
  void released(const std::vector<GpuId>& gpus) override;
  void went_down(const std::vector<GpuId>& gpus) override;
  void came_up(const std::vector<GpuId>& gpus) override;
  // Tells SimGrid the power state each GPU changed at this instant ends in.
  void instant_over() override;

  // Reads every host's counter at the current simulated time; call from an
  // actor once the replay is over, before the engine advances further.
  void finish();
  const std::vector<double>& busy_j() const { return busy_j_; }  // per type
  const std::vector<double>& idle_j() const { return idle_j_; }
  // Times the meter entered SimGrid's kernel (a simcall) to read counters or
  // switch pstates: with Plugin counters once per instant with any change,
  // whatever the number of GPUs changed then; with Analytic ones only for
  // `plugin_gpus`.
  std::size_t kernel_calls() const { return kernel_calls_; }

 private:
  void enter(GpuId g, GpuPowerState state);
  void account(GpuId g, GpuPowerState state);
  // Reads the counters of the GPUs changed since their last read (in the
  // order they changed), all in one simcall.
  void read_unread();
  // Analytic counters: GPU i's counter brought up to `now`, as the plugin's
  // HostEnergy::update does, in the state SimGrid was told.
  void update_counter(std::size_t i, double now);
  double counter_j(std::size_t i);
  double watts(std::size_t i, GpuPowerState state) const;

  const Platform& platform_;
  std::vector<std::size_t> type_of_gpu_;
  std::vector<GpuWatts> watts_of_type_;
  EnergyCounters counters_;
  std::vector<char> plugin_counted_;  // per GPU: its counter is the plugin's
  // Analytic counters: each GPU's energy and the time it was last updated.
  std::vector<double> counter_j_;
  std::vector<double> counter_clock_;
  std::vector<int> tenants_;
  std::vector<GpuPowerState> state_;  // the state each GPU is in
  // What SimGrid was told: a GPU given back by one job and taken by the next
  // at the same instant (a time slice's swap) ends the instant in the state
  // it began it in, and switching the host's pstate there and back (two
  // simcalls) was most of the meter's cost.
  std::vector<GpuPowerState> told_;
  std::vector<GpuId> changed_;  // since the last instant_over, once each
  std::vector<char> is_changed_;
  std::vector<double> energy_read_j_;  // the host's counter at its last state change
  // Changed at unread_clock_ and not read yet, each with the state it was in
  // before (what its energy since the last read is booked to).
  std::vector<GpuId> unread_;
  std::vector<char> is_unread_;
  std::vector<GpuPowerState> unread_state_;
  double unread_clock_ = 0;
  std::size_t kernel_calls_ = 0;
  std::vector<double> busy_j_, idle_j_;
};

}  // namespace vnsim::sim
