#include "vnsim/policies/vf_wfs_policy.hpp"

#include <algorithm>
#include <map>
#include <memory>
#include <numeric>
#include <stdexcept>

#include "vnsim/core/parallel_layout.hpp"
#include "vnsim/core/parameter_server_job.hpp"
#include "vnsim/policies/placement.hpp"
#include "vnsim/policies/policy_registration.hpp"

namespace vnsim {
namespace {

int floor_pow2(double x) {
  int p = 1;
  while (static_cast<double>(p) * 2 <= x) p *= 2;
  return p;
}

// The job with the lowest weight; ties go to the latest in admission order.
// Rigid jobs cannot be halved, only dropped.
std::size_t lowest_priority(const std::vector<WfsJob>& jobs, const std::vector<int>& shares, int min_share,
                            bool halving) {
  std::size_t best = jobs.size();
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    if (shares[j] < min_share || (halving && jobs[j].rigid)) continue;
    if (best == jobs.size() || jobs[j].weight <= jobs[best].weight) best = j;
  }
  return best;
}

std::uint64_t fnv1a(const std::string& s, std::uint64_t seed) {
  std::uint64_t h = 1469598103934665603ULL ^ seed;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  return h;
}

// GPUs a shrinking job keeps: those on the nodes where it has most GPUs.
std::vector<GpuId> kept_gpus(const Cluster& cluster, std::vector<GpuId> gpus, int keep) {
  std::map<NodeId, int> per_node;
  for (GpuId g : gpus) ++per_node[cluster.gpu(g).node];
  std::stable_sort(gpus.begin(), gpus.end(), [&](GpuId a, GpuId b) {
    const NodeId na = cluster.gpu(a).node, nb = cluster.gpu(b).node;
    if (per_node[na] != per_node[nb]) return per_node[na] > per_node[nb];
    return a < b;
  });
  gpus.resize(static_cast<std::size_t>(keep));
  std::sort(gpus.begin(), gpus.end());
  return gpus;
}

// `extra` free GPUs of the job's type: first on nodes it already uses, then
// on the nodes with the most free GPUs. nullopt when there are not enough.
std::optional<std::vector<GpuId>> growth_gpus(const FreeGpus& free, const std::vector<GpuId>& held,
                                              int extra) {
  const Cluster& cluster = free.cluster();
  const std::string& type = cluster.gpu(held.front()).type;
  std::vector<char> used(static_cast<std::size_t>(cluster.node_count()), 0);
  for (GpuId g : held) used[static_cast<std::size_t>(cluster.gpu(g).node)] = 1;
  std::vector<std::pair<NodeId, std::vector<GpuId>>> nodes;
  for (const NodeInfo& n : cluster.nodes()) {
    std::vector<GpuId> gpus;
    for (GpuId g : free.on_node(n.id))
      if (cluster.gpu(g).type == type) gpus.push_back(g);
    if (!gpus.empty()) nodes.emplace_back(n.id, std::move(gpus));
  }
  std::stable_sort(nodes.begin(), nodes.end(), [&](const auto& a, const auto& b) {
    const bool ua = used[static_cast<std::size_t>(a.first)] != 0,
               ub = used[static_cast<std::size_t>(b.first)] != 0;
    if (ua != ub) return ua;
    return a.second.size() > b.second.size();
  });
  std::vector<GpuId> out;
  for (const auto& [node, gpus] : nodes)
    for (GpuId g : gpus)
      if (static_cast<int>(out.size()) < extra) out.push_back(g);
  if (static_cast<int>(out.size()) < extra) return std::nullopt;
  return out;
}

}  // namespace

std::vector<int> wfs_shares(const std::vector<WfsJob>& jobs, int gpus) {
  const std::size_t n = jobs.size();
  std::vector<int> shares(n, 0);
  if (n == 0 || gpus <= 0) return shares;
  // Water-filling: jobs whose fair share reaches their demand get exactly
  // their demand, and the others share what is left.
  std::vector<char> fixed(n, 0);
  int left = gpus;
  while (true) {
    double weights = 0;
    for (std::size_t j = 0; j < n; ++j)
      if (!fixed[j]) weights += jobs[j].weight;
    if (weights <= 0) break;
    bool any_fixed = false;
    const int pool = left;
    for (std::size_t j = 0; j < n; ++j) {
      if (fixed[j]) continue;
      shares[j] = floor_pow2(static_cast<double>(pool) * jobs[j].weight / weights);
      // A rigid job below its demand waits for the spare GPUs (below).
      if (jobs[j].rigid && shares[j] < jobs[j].demand) shares[j] = 0;
      if (shares[j] >= jobs[j].demand) {
        shares[j] = jobs[j].demand;
        fixed[j] = 1;
        left -= shares[j];
        any_fixed = true;
      }
    }
    if (!any_fixed || left <= 0) break;
  }
  // Over-subscribed: halve the lowest-priority jobs first; drop one only
  // when every job is down to a single GPU.
  int total = std::accumulate(shares.begin(), shares.end(), 0);
  while (total > gpus) {
    std::size_t j = lowest_priority(jobs, shares, 2, true);
    if (j == n) {
      j = lowest_priority(jobs, shares, 1, false);
      total -= shares[j];
      shares[j] = 0;
      continue;
    }
    total -= shares[j] / 2;
    shares[j] /= 2;
  }
  // Leftover GPUs double the highest-priority jobs (earlier first on ties)
  // and start a rigid job whose whole demand fits.
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return jobs[a].weight > jobs[b].weight; });
  int spare = gpus - total;
  for (std::size_t j : order) {
    if (jobs[j].rigid && shares[j] == 0 && jobs[j].demand <= spare) {
      shares[j] = jobs[j].demand;
      spare -= shares[j];
    }
    while (shares[j] > 0 && shares[j] * 2 <= jobs[j].demand && shares[j] <= spare) {
      spare -= shares[j];
      shares[j] *= 2;
    }
  }
  return shares;
}

VfWfsPolicy::VfWfsPolicy(VfWfsParams params) : params_(std::move(params)) {
  if (params_.priorities.empty()) throw std::invalid_argument("vf-wfs: priorities must not be empty");
  for (double w : params_.priorities)
    if (!(w > 0)) throw std::invalid_argument("vf-wfs: priorities must be > 0");
}

double VfWfsPolicy::weight_of(const std::string& job_id) const {
  if (params_.priorities.size() == 1) return params_.priorities.front();
  return params_.priorities[fnv1a(job_id, params_.seed) % params_.priorities.size()];
}

std::vector<Decision> VfWfsPolicy::decide(const SchedulerInput& input) {
  const ClusterView& view = *input.view;
  const Cluster& cluster = view.cluster();
  int gpus = view.free_total();
  // Parameter-server and layout jobs are rigid: the engine runs them only
  // on exactly their requested GPUs (fixed servers/workers, fixed layout).
  // A queued one starts when its whole demand fits in the shares; once
  // running it keeps its GPUs until it ends, outside the sharing, since it
  // can be neither halved nor doubled.
  const auto is_rigid = [](const JobSpec& s) { return is_parameter_server_job(s) || uses_layout(s); };
  const auto wfs_job = [&](const JobSpec& s) {
    const bool rigid = is_rigid(s);
    return WfsJob{weight_of(s.id), rigid ? s.gpus : std::min(s.gpus, s.effective_virtual_nodes()), rigid};
  };
  std::vector<const RunningJob*> sharing;  // the running jobs whose shares are computed
  std::vector<WfsJob> jobs;
  for (const RunningJob& r : input.running) {
    if (is_rigid(*r.spec)) continue;
    gpus += static_cast<int>(r.placement.gpus.size());
    jobs.push_back(wfs_job(*r.spec));
    sharing.push_back(&r);
  }
  std::vector<int> shares = wfs_shares(jobs, gpus);
  // Admission, in submission order: a queued job comes in only if no running
  // job of higher priority loses GPUs by it. Each job needs at least one GPU,
  // so at most `gpus` jobs can be in.
  std::vector<const QueuedJob*> admitted;
  for (const QueuedJob& q : input.queued) {
    if (static_cast<int>(jobs.size()) >= gpus) break;
    const WfsJob candidate = wfs_job(*q.spec);
    jobs.push_back(candidate);
    const std::vector<int> trial = wfs_shares(jobs, gpus);
    bool ok = trial.back() > 0;
    for (std::size_t r = 0; ok && r < sharing.size(); ++r)
      if (jobs[r].weight > candidate.weight && trial[r] < shares[r]) ok = false;
    if (!ok) {
      jobs.pop_back();
      continue;
    }
    shares = trial;
    admitted.push_back(&q);
  }

  // Preempt and shrink first, so their GPUs are free for growth and starts.
  std::vector<Decision> out;
  FreeGpus free(view, input.running);
  for (std::size_t r = 0; r < sharing.size(); ++r) {
    const RunningJob& job = *sharing[r];
    const int held = static_cast<int>(job.placement.gpus.size());
    if (shares[r] == 0) {
      out.emplace_back(std::in_place_type<PreemptJob>, PreemptJob{job.index});
      free.release(job.placement.gpus);
    } else if (shares[r] < held) {
      std::vector<GpuId> keep = kept_gpus(cluster, job.placement.gpus, shares[r]);
      std::vector<GpuId> given;
      for (GpuId g : job.placement.gpus)
        if (!std::binary_search(keep.begin(), keep.end(), g)) given.push_back(g);
      free.release(given);
      out.push_back(ResizeJob{job.index, Placement{std::move(keep), {}}, params_.mode, 0});
    }
  }
  for (std::size_t r = 0; r < sharing.size(); ++r) {
    const RunningJob& job = *sharing[r];
    const int held = static_cast<int>(job.placement.gpus.size());
    if (shares[r] <= held) continue;
    auto extra = growth_gpus(free, job.placement.gpus, shares[r] - held);
    if (!extra) continue;  // fragmented: keep the current size
    free.take(*extra);
    std::vector<GpuId> grown = job.placement.gpus;
    grown.insert(grown.end(), extra->begin(), extra->end());
    std::sort(grown.begin(), grown.end());
    out.push_back(ResizeJob{job.index, Placement{std::move(grown), {}}, params_.mode, 0});
  }
  auto placement = make_placement("consolidated");
  for (std::size_t a = 0; a < admitted.size(); ++a) {
    const QueuedJob& q = *admitted[a];
    const int share = shares[sharing.size() + a];
    auto gpus_for = placement->place(free, share, q.allowed_types);
    if (!gpus_for) continue;  // fragmented: wait for the next event
    free.take(*gpus_for);
    out.push_back(StartJob{q.index, spread_virtual_nodes(*gpus_for, q.spec->effective_virtual_nodes())});
  }
  return out;
}

namespace {
const PolicyRegistration kVfWfs(
    "vf-wfs", 120,
    ParamTable<VfWfsParams>()
        .numbers("priorities", &VfWfsParams::priorities,
                 "priority weights; job j gets priorities[hash(id, seed) mod n]", NumberRange::positive())
        .choice("mode", &VfWfsParams::mode,
                {{"in-place", ResizeMode::InPlace}, {"checkpoint-restart", ResizeMode::CheckpointRestart}},
                "how jobs are resized")
        .seed("seed", &VfWfsParams::seed, "seed of the priority draw (replay: --seed unless given here)"),
    [](const VfWfsParams& p) { return std::make_unique<VfWfsPolicy>(p); });
}  // namespace

}  // namespace vnsim
