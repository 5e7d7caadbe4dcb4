#pragma once
// The code works in SI base units (seconds, bytes, bytes/s, flop/s). Specs
// and traces use human units; these helpers are the only place they convert.
namespace vnsim::units {

constexpr double gbps_to_Bps(double gbit_per_s) {
  return gbit_per_s * 1e9 / 8.0;
}
constexpr double Bps_to_gbps(double bytes_per_s) {
  return bytes_per_s * 8.0 / 1e9;
}
constexpr double us_to_s(double microseconds) {
  return microseconds * 1e-6;
}
constexpr double gib_to_bytes(double gib) {
  return gib * 1024.0 * 1024.0 * 1024.0;
}

}  // namespace vnsim::units
