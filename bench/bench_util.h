// Small helpers shared by the benchmarks: timing, machine description, JSON text.
#ifndef ORCD_BENCH_BENCH_UTIL_H_
#define ORCD_BENCH_BENCH_UTIL_H_

#include <chrono>
#include <string>

namespace orcd::bench {

inline double now_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// "model name" from /proc/cpuinfo, or "unknown CPU".
std::string cpu_model_name();

// A JSON string literal (quoted, escaped).
std::string json_string(const std::string& s);
// A JSON number, or null for NaN / infinity.
std::string json_number(double v);

}  // namespace orcd::bench

#endif  // ORCD_BENCH_BENCH_UTIL_H_
