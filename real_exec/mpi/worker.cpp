#include "worker.hpp"

#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <stdexcept>

#include "mpi_group_comm.hpp"
#include "vnsim/real_exec/step_runner.hpp"
#include "wire.hpp"

namespace vnsim::real_exec::mpi {
namespace {

void send_event(const FleetEvent& e) {
  const std::vector<double> w = encode_event(e);
  MPI_Send(w.data(), static_cast<int>(w.size()), MPI_DOUBLE, 0, kTagEvent, MPI_COMM_WORLD);
}

// The communicator tag of one segment: equal on its members, different from
// segments that may form at the same time on other ranks.
int segment_tag(const Launch& l) {
  return 1000 + static_cast<int>((l.job * 131 + static_cast<JobIndex>(l.epoch)) % 30000);
}

// Commands for a segment this worker leads but is not running yet: a resize
// of a resize that has not taken effect reaches the new leader before its
// launch does. Commands for segments that ended stay here unused.
std::vector<std::vector<long long>>& parked_commands() {
  static std::vector<std::vector<long long>> parked;
  return parked;
}

struct Carried {
  std::vector<double> params;
  long long iteration = 0;
  long long last_checkpoint = 0;
};

void run_segments(const WorkerConfig& c, Launch l, std::optional<Carried> carried) {
  int world_rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  const JobSpec& spec = c.jobs->at(l.job);
  const ModelParams& model = c.models->at(spec.model);
  while (true) {
    std::vector<int> ranks;
    for (GpuId g : l.gpus) ranks.push_back(g + 1);
    const auto me = static_cast<int>(std::find(ranks.begin(), ranks.end(), world_rank) - ranks.begin());
    MpiGroupComm comm(create_group_comm(ranks, segment_tag(l)), true);
    std::unique_ptr<DataPlane> plane = c.backend->open(comm, emulated_parameter_count(model, c.scale));
    long long start = 0, last_checkpoint = 0;
    if (l.params == ParamSource::Checkpoint) {
      std::vector<double> params;
      long long header[2] = {0, 0};
      if (comm.rank() == 0) {
        header[0] = read_checkpoint(checkpoint_path(c.checkpoint_dir, l.job), params);
        header[1] = header[0];
        plane->write_params(params);
      }
      comm.broadcast(header, sizeof header, 0);
      start = header[0];
      last_checkpoint = header[1];
      plane->broadcast_params(0);
    } else if (l.params == ParamSource::FromMember) {
      long long header[2] = {0, 0};
      if (me == l.params_root) {
        if (!carried) throw std::logic_error("resize: the root member holds no parameters");
        plane->write_params(carried->params);
        header[0] = carried->iteration;
        header[1] = carried->last_checkpoint;
      }
      comm.broadcast(header, sizeof header, l.params_root);
      start = header[0];
      last_checkpoint = header[1];
      plane->broadcast_params(l.params_root);
      FleetEvent e;
      e.kind = FleetEvent::Kind::Resized;
      e.job = l.job;
      e.epoch = l.epoch;
      e.iteration = start;
      e.params_consistent = parameters_agree(comm, *plane, e.checksum);
      if (comm.rank() == 0) send_event(e);
    }
    carried.reset();

    std::optional<Launch> pending;
    LoopHooks hooks;
    hooks.clock = wall_s;
    hooks.checkpoint_every = c.checkpoint_every;
    hooks.poll_command = [&]() {
      const auto mine = [&](const std::vector<long long>& w) {
        return static_cast<JobIndex>(w.at(0)) == l.job && w.at(1) == l.epoch;
      };
      const auto take = [&](const std::vector<long long>& w) {
        const auto cmd = static_cast<Command>(w.at(2));
        if (cmd == Command::Resize) pending = decode_launch(w, 3);
        return cmd;
      };
      std::vector<std::vector<long long>>& parked = parked_commands();
      if (const auto it = std::find_if(parked.begin(), parked.end(), mine); it != parked.end()) {
        const std::vector<long long> w = *it;
        parked.erase(it);
        return take(w);
      }
      int flag = 0;
      MPI_Status st;
      while (true) {
        MPI_Iprobe(0, kTagCommand, MPI_COMM_WORLD, &flag, &st);
        if (!flag) return Command::None;
        std::vector<long long> w = receive_longs(0, kTagCommand);
        if (mine(w)) return take(w);
        parked.push_back(std::move(w));
      }
    };
    hooks.report = [&](const IterationReport& r) {
      FleetEvent e;
      e.kind = FleetEvent::Kind::Iteration;
      e.job = l.job;
      e.epoch = l.epoch;
      e.iteration = r.iteration;
      e.seconds = r.seconds;
      e.compute_s = r.timing.compute_s;
      e.allreduce_s = r.timing.allreduce_s;
      send_event(e);
    };
    hooks.fails_at = [&](long long it) {
      return it == l.fail_at_iteration && me == static_cast<int>(ranks.size()) - 1;
    };
    hooks.checkpoint = [&](long long iterations, const std::vector<double>& params) {
      write_checkpoint(checkpoint_path(c.checkpoint_dir, l.job), iterations, params);
    };
    const LoopResult res =
        run_job_loop(comm, *plane, emulated_shape(model, c.scale, l.global_batch, l.vn_per_gpu), start,
                     l.total_iterations > 0 ? l.total_iterations : spec.iterations, last_checkpoint, hooks);
    FleetEvent e;
    e.job = l.job;
    e.epoch = l.epoch;
    e.iteration = res.iterations_done;
    e.checksum = res.checksum;
    e.params_consistent = res.params_consistent;
    switch (res.reason) {
      case LoopResult::Reason::Finished:
        e.kind = FleetEvent::Kind::Finished;
        if (comm.rank() == 0) send_event(e);
        return;
      case LoopResult::Reason::Stopped:
        e.kind = FleetEvent::Kind::Stopped;
        if (comm.rank() == 0) send_event(e);
        return;
      case LoopResult::Reason::Failed:
        e.kind = FleetEvent::Kind::Failed;
        e.failed_gpu = l.gpus.at(static_cast<std::size_t>(res.failed_rank));
        if (comm.rank() == 0) send_event(e);
        return;
      case LoopResult::Reason::Resize: {
        // The leader holds the next rank set; every member learns it here.
        std::vector<long long> w = pending ? encode_launch(*pending) : std::vector<long long>{};
        long long n = static_cast<long long>(w.size());
        comm.broadcast(&n, sizeof n, 0);
        w.resize(static_cast<std::size_t>(n));
        comm.broadcast(w.data(), w.size() * sizeof(long long), 0);
        const Launch next = decode_launch(w);
        e.kind = FleetEvent::Kind::ResizeBoundary;
        if (comm.rank() == 0) send_event(e);
        if (std::find(next.gpus.begin(), next.gpus.end(), world_rank - 1) == next.gpus.end()) return;
        carried = Carried{plane->read_params(), res.iterations_done, res.iterations_done};
        l = next;
        break;
      }
    }
  }
}

}  // namespace

std::string checkpoint_path(const std::string& checkpoint_dir, JobIndex job) {
  return checkpoint_dir + "/job-" + std::to_string(job) + ".ckpt";
}

void write_checkpoint(const std::string& path, long long iterations, const std::vector<double>& params) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary);
    const auto n = static_cast<long long>(params.size());
    out.write(reinterpret_cast<const char*>(&iterations), sizeof iterations);
    out.write(reinterpret_cast<const char*>(&n), sizeof n);
    out.write(reinterpret_cast<const char*>(params.data()),
              static_cast<std::streamsize>(params.size() * sizeof(double)));
    if (!out) throw std::runtime_error(tmp + ": cannot write checkpoint");
  }
  std::filesystem::rename(tmp, path);
}

long long read_checkpoint(const std::string& path, std::vector<double>& params) {
  std::ifstream in(path, std::ios::binary);
  long long iterations = 0, n = 0;
  in.read(reinterpret_cast<char*>(&iterations), sizeof iterations);
  in.read(reinterpret_cast<char*>(&n), sizeof n);
  if (!in || n < 0) throw std::runtime_error(path + ": missing or corrupt checkpoint");
  params.resize(static_cast<std::size_t>(n));
  in.read(reinterpret_cast<char*>(params.data()),
          static_cast<std::streamsize>(params.size() * sizeof(double)));
  if (!in) throw std::runtime_error(path + ": truncated checkpoint");
  return iterations;
}

void run_worker(const WorkerConfig& config) {
  while (true) {
    const std::vector<long long> w = receive_longs(0, kTagLaunch);
    if (w.at(0) < 0) return;
    run_segments(config, decode_launch(w), std::nullopt);
  }
}

}  // namespace vnsim::real_exec::mpi
