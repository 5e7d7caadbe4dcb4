// The same trace through the simulator and through the real executor's
// controller (on a fake fleet whose steps take the perf model's time) asks
// the policy the same questions and gets the same decisions: both engines
// drive the policy through one PolicyDriver.
#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <sstream>
#include <string>
#include <variant>
#include <vector>

#include "vnsim/core/cluster_spec.hpp"
#include "vnsim/core/perf_model.hpp"
#include "vnsim/policies/policy.hpp"
#include "vnsim/real_exec/controller.hpp"
#include "vnsim/sim/replay.hpp"

namespace vnsim {
namespace {

// Wraps a policy and writes down every question and answer as text, with
// times and estimates printed exactly (%a).
class RecordingPolicy final : public Policy {
 public:
  explicit RecordingPolicy(std::unique_ptr<Policy> inner) : inner_(std::move(inner)) {}
  std::string name() const override { return inner_->name(); }
  std::optional<double> next_timer_s(double now_s) const override { return inner_->next_timer_s(now_s); }
  std::vector<Decision> decide(const SchedulerInput& input) override {
    std::ostringstream out;
    out << "t=" << exact(input.now_s) << " free=" << input.view->free_total() << " queued:";
    for (const QueuedJob& q : input.queued)
      out << " " << q.index << "(attained " << exact(q.attained_gpu_s) << ", est "
          << exact(q.estimated_remaining_s) << ", types " << q.allowed_types << ")";
    out << " running:";
    for (const RunningJob& r : input.running) out << " " << r.index << gpus(r.placement.gpus);
    std::vector<Decision> decisions = inner_->decide(input);
    out << " ->";
    for (const Decision& d : decisions) {
      if (const auto* s = std::get_if<StartJob>(&d)) {
        out << " start " << s->job << gpus(s->placement.gpus);
      } else if (const auto* p = std::get_if<PreemptJob>(&d)) {
        out << " preempt " << p->job;
      } else if (const auto* z = std::get_if<ResizeJob>(&d)) {
        out << " resize " << z->job << gpus(z->placement.gpus);
      } else {
        out << " reject " << std::get<RejectJob>(d).job;
      }
    }
    log.push_back(out.str());
    return decisions;
  }
  std::vector<std::string> log;

 private:
  static std::string exact(double x) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%a", x);
    return buf;
  }
  static std::string gpus(const std::vector<GpuId>& g) {
    std::string s = "[";
    for (std::size_t i = 0; i < g.size(); ++i) s += (i ? "," : "") + std::to_string(g[i]);
    return s + "]";
  }
  std::unique_ptr<Policy> inner_;
};

// A fleet on a fake clock: a job's steps take the perf model's idle-network
// iteration time on its GPUs, computed as the simulator's analytic jobs
// (single-node placements) take it, so both engines see the same ends.
class ModelTimedFleet final : public real_exec::WorkerFleet {
 public:
  ModelTimedFleet(const Cluster& cluster, const std::vector<JobSpec>& jobs)
      : topology_(cluster), jobs_(jobs) {}
  double now_s() override { return now_; }
  void start(const real_exec::Launch& l) override {
    const JobSpec& spec = jobs_[l.job];
    const Placement p{l.gpus, l.vn_per_gpu};
    const double step = iteration_time(topology_, GpuCatalog::builtin(),
                                       ModelCatalog::builtin().at(spec.model), p, l.global_batch)
                            .total_s;
    ends_[l.job] = {now_ + static_cast<double>(spec.iterations - l.start_iteration) * step, l.epoch};
  }
  void stop(JobIndex, int) override { FAIL() << "no policy of this test preempts"; }
  void resize(JobIndex, int, const real_exec::Launch&) override {
    FAIL() << "no policy of this test resizes";
  }
  std::vector<real_exec::FleetEvent> wait(double until_s) override {
    auto first = ends_.end();
    for (auto it = ends_.begin(); it != ends_.end(); ++it)
      if (first == ends_.end() || it->second.first < first->second.first) first = it;
    if (first == ends_.end() || first->second.first > until_s) {
      now_ = until_s;
      return {};
    }
    now_ = first->second.first;
    real_exec::FleetEvent e;
    e.kind = real_exec::FleetEvent::Kind::Finished;
    e.job = first->first;
    e.epoch = first->second.second;
    e.time_s = now_;
    e.iteration = jobs_[e.job].iterations;
    ends_.erase(first);
    return {e};
  }
  void shutdown() override {}

 private:
  Topology topology_;
  const std::vector<JobSpec>& jobs_;
  double now_ = 0;
  std::map<JobIndex, std::pair<double, int>> ends_;  // job -> (end, epoch)
};

// One node of 4 V100s: every placement is single-node, so the simulator
// times every job analytically, as the fake fleet does.
Cluster one_node_cluster() {
  return Cluster(parse_cluster_spec(R"({"name": "one-node", "defaults": {"gpu_type": "V100", "gpus": 4,
      "intra": {"kind": "nvlink", "bandwidth_gbps": 1200}, "nic": {"bandwidth_gbps": 100}},
      "racks": [{"name": "r", "nodes": [{"name": "n"}]}]})",
                                    "test"));
}

std::vector<JobSpec> trace() {
  // Mixed sizes and lengths, some arriving together, one that can never fit
  // (rejected at arrival by the driver's feasibility check).
  const struct {
    const char* id;
    double submit;
    int gpus;
    const char* model;
    long long iterations;
  } rows[] = {{"a", 0, 2, "cifar10", 400},    {"b", 0, 4, "imagenet", 30}, {"c", 5, 1, "ncf", 900},
              {"d", 5, 2, "imagenet", 20},    {"e", 12, 8, "cifar10", 10}, {"f", 20, 1, "cifar10", 50},
              {"g", 20, 3, "deepspeech2", 8}, {"h", 31, 1, "yolov3", 12},  {"i", 40, 2, "bert", 25}};
  std::vector<JobSpec> jobs;
  for (const auto& r : rows) {
    JobSpec s;
    s.id = r.id;
    s.submit_s = r.submit;
    s.gpus = r.gpus;
    s.model = r.model;
    s.iterations = r.iterations;
    s.global_batch = ModelCatalog::builtin().at(r.model).default_local_batch * r.gpus;
    jobs.push_back(s);
  }
  return jobs;
}

std::vector<std::string> simulated(const std::string& policy) {
  RecordingPolicy p(make_policy(policy));
  run_replay(one_node_cluster(), GpuCatalog::builtin(), ModelCatalog::builtin(), trace(), p, {});
  return p.log;
}

std::vector<std::string> executed(const std::string& policy) {
  RecordingPolicy p(make_policy(policy));
  const Cluster cluster = one_node_cluster();
  const std::vector<JobSpec> jobs = trace();
  ModelTimedFleet fleet(cluster, jobs);
  real_exec::MeasurementLog log;
  real_exec::Controller c(cluster, GpuCatalog::builtin(), ModelCatalog::builtin(), jobs, p, fleet, log);
  c.run();
  return p.log;
}

void expect_same_decisions(const std::string& policy) {
  const std::vector<std::string> sim = simulated(policy);
  const std::vector<std::string> exec = executed(policy);
  ASSERT_GT(sim.size(), 5u);
  ASSERT_EQ(sim.size(), exec.size()) << policy;
  for (std::size_t i = 0; i < sim.size(); ++i) EXPECT_EQ(sim[i], exec[i]) << policy << ", decide call " << i;
}

// One test per process: the simulator runs one SimGrid engine per process.
TEST(CrossEngineDecisions, FifoGetsTheSameInputsAndDecidesTheSameInBothEngines) {
  expect_same_decisions("fifo");
}
TEST(CrossEngineDecisions, SjfGetsTheSameInputsAndDecidesTheSameInBothEngines) {
  expect_same_decisions("sjf");
}
TEST(CrossEngineDecisions, BackfillGetsTheSameInputsAndDecidesTheSameInBothEngines) {
  expect_same_decisions("fifo-backfill");
}

}  // namespace
}  // namespace vnsim
