#pragma once
// Messages between the controller (rank 0) and the workers (rank g+1 is
// worker g), as arrays of long long / double on MPI_COMM_WORLD.
#include <cstdint>
#include <vector>

#include "vnsim/real_exec/worker_fleet.hpp"

namespace vnsim::real_exec::mpi {

constexpr int kTagLaunch = 11;   // controller -> each member: run a segment (job -1: exit)
constexpr int kTagCommand = 12;  // controller -> a job's leader: stop / resize
constexpr int kTagEvent = 13;    // leader -> controller: FleetEvent
constexpr int kTagCalibrate = 14;
constexpr int kTagProbe = 15;  // first worker -> controller: the transport probe's times

std::vector<long long> encode_launch(const Launch& l);
Launch decode_launch(const std::vector<long long>& w, std::size_t offset = 0);

// [job, epoch, command, launch...]
std::vector<long long> encode_command(JobIndex job, int epoch, long long command, const Launch* next);

constexpr int kEventWords = 12;
std::vector<double> encode_event(const FleetEvent& e);
FleetEvent decode_event(const std::vector<double>& w);

// Receives a whole long long message of any length from `source` with `tag`.
std::vector<long long> receive_longs(int source, int tag, int* from = nullptr);

}  // namespace vnsim::real_exec::mpi
