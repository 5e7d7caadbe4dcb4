// Batsim's jobs.csv from vnsim's (docs/OUTPUTS.md, "vnsim export"). Batsim's
// columns and final states are those of its documentation, "Jobs" output
// (batsim.readthedocs.io, output-jobs); vnsim's jobs.csv keeps its own
// columns so that committed results and golden files stay as they are.
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "export_views.hpp"
#include "output_tables.hpp"
#include "vnsim/core/error.hpp"
#include "vnsim/core/job_record.hpp"

namespace vnsim::cli {

std::string batsim_jobs_csv(const std::filesystem::path& dir) {
  const std::filesystem::path jobs_path = dir / "jobs.csv", summary_path = dir / "summary.json";
  const Table jobs = read_table(jobs_path);
  std::ifstream summary_file(summary_path);
  if (!summary_file) throw InputError(summary_path.string() + ": cannot read");
  std::string workload;
  try {
    workload = nlohmann::json::parse(summary_file).at("run").at("trace").get<std::string>();
  } catch (const nlohmann::json::exception& e) {
    throw InputError(summary_path.string() + ": no run.trace (" + e.what() + ")");
  }
  const std::string file = jobs_path.string();
  auto col = [&](const char* name) { return jobs.column(name, file); };
  const std::size_t id = col("job_id"), model = col("model"), submit = col("submission_time"),
                    gpus = col("requested_number_of_resources"), state = col("final_state"),
                    start = col("starting_time"), exec = col("execution_time"), finish = col("finish_time"),
                    wait = col("waiting_time"), turnaround = col("turnaround_time"), stretch = col("stretch"),
                    alloc = col("allocated_resources"), energy = col("energy_j"), reason = col("reason");

  std::ostringstream out;
  out << "job_id,workload_name,profile,submission_time,requested_number_of_resources,requested_time,success,"
         "final_state,starting_time,execution_time,finish_time,waiting_time,turnaround_time,stretch,"
         "allocated_resources,consumed_energy,metadata\n";
  for (std::size_t i = 0; i < jobs.rows.size(); ++i) {
    const auto& r = jobs.rows[i];
    const std::string where = file + ":" + std::to_string(jobs.lines[i]);
    // vnsim's two final states; Batsim's failed, walltime and killed states
    // have no vnsim counterpart (a preempted job restarts and completes).
    std::string final_state;
    if (r[state] == "COMPLETED")
      final_state = "COMPLETED_SUCCESSFULLY";
    else if (r[state] == "REJECTED")
      final_state = "REJECTED";
    else
      throw InputError(where + ": final_state '" + r[state] + "' is neither COMPLETED nor REJECTED");
    for (std::size_t c : {submit, gpus, energy}) number(r[c], where + ": " + jobs.header[c]);
    for (std::size_t c : {start, exec, finish, wait, turnaround, stretch})
      if (!r[c].empty()) number(r[c], where + ": " + jobs.header[c]);
    // requested_time -1: the job has no walltime (vnsim jobs run to completion).
    out << csv_field(r[id]) << ',' << csv_field(workload) << ',' << csv_field(r[model]) << ',' << r[submit]
        << ',' << r[gpus] << ",-1," << (final_state == "COMPLETED_SUCCESSFULLY" ? 1 : 0) << ',' << final_state
        << ',' << r[start] << ',' << r[exec] << ',' << r[finish] << ',' << r[wait] << ',' << r[turnaround]
        << ',' << r[stretch] << ',' << csv_field(r[alloc]) << ',' << r[energy] << ',' << csv_field(r[reason])
        << '\n';
  }
  return out.str();
}

}  // namespace vnsim::cli
