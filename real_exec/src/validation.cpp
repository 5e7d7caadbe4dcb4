#include "vnsim/real_exec/validation.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iomanip>
#include <limits>

#include "vnsim/core/error.hpp"
#include "vnsim/core/job_record.hpp"
#include "vnsim/core/perf_model.hpp"
#include "vnsim/real_exec/median.hpp"

namespace vnsim::real_exec {
namespace {

InputError bad_line(const std::string& path, int line, const std::string& why) {
  return InputError(path + ":" + std::to_string(line) + ": " + why);
}

nlohmann::ordered_json stats_json(const ErrorStats& s) {
  nlohmann::ordered_json j;
  j["count"] = s.count;
  j["mape"] = s.mape;
  j["p90"] = s.p90;
  j["max"] = s.max;
  j["mean_signed"] = s.mean_signed;
  return j;
}

nlohmann::ordered_json segments_json(const SegmentStats& s) {
  nlohmann::ordered_json j;
  j["count"] = s.segments;
  j["median_mape"] = s.median_mape;
  j["median_max"] = s.median_max;
  j["noise_floor_mape"] = s.noise_floor_mape;
  return j;
}

}  // namespace

SegmentStats segment_errors(const std::map<SegmentKey, std::vector<std::pair<double, double>>>& by_segment) {
  SegmentStats s;
  double segment_sum = 0, floor_sum = 0;
  std::size_t steps = 0;
  for (const auto& [key, pairs] : by_segment) {
    std::vector<double> predicted, measured;
    for (const auto& [p, m] : pairs)
      if (m > 0) {
        predicted.push_back(p);
        measured.push_back(m);
      }
    if (measured.empty()) continue;
    const double median = median_of(measured);
    const double e = std::abs(median_of(predicted) - median) / median;
    segment_sum += e;
    s.median_max = std::max(s.median_max, e);
    ++s.segments;
    for (double m : measured) floor_sum += std::abs(m - median) / m;
    steps += measured.size();
  }
  if (s.segments > 0) s.median_mape = segment_sum / static_cast<double>(s.segments);
  if (steps > 0) s.noise_floor_mape = floor_sum / static_cast<double>(steps);
  return s;
}

ErrorStats relative_errors(const std::vector<std::pair<double, double>>& predicted_measured) {
  std::vector<double> abs_errors;
  ErrorStats s;
  double signed_sum = 0;
  for (const auto& [predicted, measured] : predicted_measured) {
    if (!(measured > 0)) continue;
    const double e = (predicted - measured) / measured;
    signed_sum += e;
    abs_errors.push_back(std::abs(e));
  }
  s.count = abs_errors.size();
  if (s.count == 0) return s;
  std::sort(abs_errors.begin(), abs_errors.end());
  double sum = 0;
  for (double e : abs_errors) sum += e;
  s.mape = sum / static_cast<double>(s.count);
  s.mean_signed = signed_sum / static_cast<double>(s.count);
  // Nearest rank: the smallest error with at least 90% of the errors at or below it.
  const auto rank = static_cast<std::size_t>(std::ceil(0.9 * static_cast<double>(s.count)));
  s.p90 = abs_errors[std::max<std::size_t>(rank, 1) - 1];
  s.max = abs_errors.back();
  return s;
}

MeasuredRun read_measurement_log(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError(path + ": cannot read");
  MeasuredRun run;
  std::string text;
  int line = 0;
  while (std::getline(in, text)) {
    ++line;
    if (text.empty()) continue;
    const auto j = nlohmann::json::parse(text, nullptr, false);
    if (j.is_discarded() || !j.is_object()) throw bad_line(path, line, "not a JSON object");
    const auto field = [&](const char* key) -> const nlohmann::json& {
      if (!j.contains(key)) throw bad_line(path, line, std::string("missing field '") + key + "'");
      return j.at(key);
    };
    try {
      const std::string event = field("event").get<std::string>();
      if (event == "submit") {
        run.submit_s[field("job").get<std::string>()] = field("submit_s").get<double>();
      } else if (event == "finish") {
        run.finish_s[field("job").get<std::string>()] = field("t").get<double>();
      } else if (event == "launch" || (event == "resize" && j.value("in_place", false))) {
        MeasuredSegment seg;
        seg.gpus = field(event == "launch" ? "gpus" : "to_gpus").get<std::vector<GpuId>>();
        seg.vn_per_gpu = field("vn_per_gpu").get<std::vector<int>>();
        seg.global_batch = field("global_batch").get<int>();
        run.segments[{field("job").get<std::string>(), field("epoch").get<int>()}] = seg;
      } else if (event == "iteration") {
        MeasuredIteration it;
        it.job = field("job").get<std::string>();
        it.epoch = field("epoch").get<int>();
        it.iteration = field("iteration").get<long long>();
        it.seconds = field("seconds").get<double>();
        it.compute_s = field("compute_s").get<double>();
        it.allreduce_s = field("allreduce_s").get<double>();
        run.iterations.push_back(it);
      }
    } catch (const nlohmann::json::exception& e) {
      throw bad_line(path, line, std::string("a field has the wrong type (") + e.what() + ")");
    }
  }
  return run;
}

ValidationReport compare_run(const MeasuredRun& measured, const std::vector<JobRecord>& predicted,
                             const Topology& topology, const GpuCatalog& gpus, const ModelCatalog& models,
                             const std::map<std::string, std::string>& model_of_job, int skip_first) {
  ValidationReport r;
  std::vector<std::pair<double, double>> step, compute, allreduce, jct;
  std::map<SegmentKey, std::vector<std::pair<double, double>>> step_by_segment, compute_by_segment,
      allreduce_by_segment;
  std::map<std::pair<std::string, int>, int> seen_in_segment;
  for (const MeasuredIteration& it : measured.iterations) {
    const auto seg = measured.segments.find({it.job, it.epoch});
    const auto model = model_of_job.find(it.job);
    if (seg == measured.segments.end() || model == model_of_job.end()) continue;
    if (seen_in_segment[{it.job, it.epoch}]++ < skip_first) continue;
    const Placement p{seg->second.gpus, seg->second.vn_per_gpu};
    const IterationBreakdown b =
        iteration_time(topology, gpus, models.at(model->second), p, seg->second.global_batch);
    const SegmentKey key{it.job, it.epoch};
    step.emplace_back(b.total_s, it.seconds);
    step_by_segment[key].push_back(step.back());
    compute.emplace_back(b.compute_s, it.compute_s);
    compute_by_segment[key].push_back(compute.back());
    if (p.gpus.size() > 1) {
      allreduce.emplace_back(b.allreduce_s, it.allreduce_s);
      allreduce_by_segment[key].push_back(allreduce.back());
    }
    r.iterations.push_back(IterationSample{it.job, it.epoch, it.iteration, b.total_s, it.seconds, b.compute_s,
                                           it.compute_s, p.gpus.size() > 1 ? b.allreduce_s : 0.0,
                                           p.gpus.size() > 1 ? it.allreduce_s : 0.0});
  }
  for (const JobRecord& rec : predicted) {
    const auto fin = measured.finish_s.find(rec.id);
    const auto sub = measured.submit_s.find(rec.id);
    if (fin != measured.finish_s.end()) r.measured_makespan_s = std::max(r.measured_makespan_s, fin->second);
    if (rec.finish_s >= 0) r.predicted_makespan_s = std::max(r.predicted_makespan_s, rec.finish_s);
    if (fin == measured.finish_s.end() || sub == measured.submit_s.end() || rec.finish_s < 0) continue;
    jct.emplace_back(rec.jct_s(), fin->second - sub->second);
    r.jobs.push_back(JobSample{rec.id, rec.jct_s(), fin->second - sub->second});
  }
  for (const JobSample& j : r.jobs) {
    r.measured_mean_jct_s += j.measured_jct_s / static_cast<double>(r.jobs.size());
    r.predicted_mean_jct_s += j.predicted_jct_s / static_cast<double>(r.jobs.size());
  }
  r.iteration = relative_errors(step);
  r.compute = relative_errors(compute);
  r.allreduce = relative_errors(allreduce);
  r.jct = relative_errors(jct);
  r.iteration_segments = segment_errors(step_by_segment);
  r.compute_segments = segment_errors(compute_by_segment);
  r.allreduce_segments = segment_errors(allreduce_by_segment);
  r.jobs_compared = r.jct.count;
  return r;
}

double ValidationReport::mean_jct_error() const {
  return measured_mean_jct_s > 0 ? (predicted_mean_jct_s - measured_mean_jct_s) / measured_mean_jct_s : 0.0;
}

double ValidationReport::makespan_error() const {
  return measured_makespan_s > 0 ? (predicted_makespan_s - measured_makespan_s) / measured_makespan_s : 0.0;
}

void write_iteration_csv(const std::string& path, const std::vector<IterationSample>& samples) {
  std::ofstream out(path);
  out << std::setprecision(std::numeric_limits<double>::max_digits10);
  out << "job,epoch,iteration,predicted_s,measured_s,predicted_compute_s,measured_compute_s,"
         "predicted_allreduce_s,measured_allreduce_s\n";
  for (const IterationSample& s : samples)
    out << csv_field(s.job) << ',' << s.epoch << ',' << s.iteration << ',' << s.predicted_s << ','
        << s.measured_s << ',' << s.predicted_compute_s << ',' << s.measured_compute_s << ','
        << s.predicted_allreduce_s << ',' << s.measured_allreduce_s << '\n';
  if (!out) throw InputError(path + ": cannot write");
}

void write_job_csv(const std::string& path, const std::vector<JobSample>& samples) {
  std::ofstream out(path);
  out << std::setprecision(std::numeric_limits<double>::max_digits10);
  out << "job,predicted_jct_s,measured_jct_s\n";
  for (const JobSample& s : samples)
    out << csv_field(s.job) << ',' << s.predicted_jct_s << ',' << s.measured_jct_s << '\n';
  if (!out) throw InputError(path + ": cannot write");
}

nlohmann::ordered_json ValidationReport::to_json() const {
  nlohmann::ordered_json j;
  j["iteration_time"] = stats_json(iteration);
  j["iteration_time"]["segments"] = segments_json(iteration_segments);
  j["compute_time"] = stats_json(compute);
  j["compute_time"]["segments"] = segments_json(compute_segments);
  j["allreduce_time"] = stats_json(allreduce);
  j["allreduce_time"]["segments"] = segments_json(allreduce_segments);
  j["jct"] = stats_json(jct);
  j["jobs_compared"] = jobs_compared;
  j["measured_makespan_s"] = measured_makespan_s;
  j["predicted_makespan_s"] = predicted_makespan_s;
  j["makespan_error"] = makespan_error();
  j["measured_mean_jct_s"] = measured_mean_jct_s;
  j["predicted_mean_jct_s"] = predicted_mean_jct_s;
  j["mean_jct_error"] = mean_jct_error();
  return j;
}

}  // namespace vnsim::real_exec
