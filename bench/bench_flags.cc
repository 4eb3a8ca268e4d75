#include "bench_flags.h"

#include <charconv>
#include <sstream>

namespace orcd::bench {
namespace {

// The whole text must be the number: "12x" or "" is refused.
template <typename T>
bool ParseNumber(const std::string& text, T* out) {
  T value{};
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || ptr != end || text.empty()) return false;
  *out = value;
  return true;
}

}  // namespace

Flag Switch(std::string_view name, bool* out) {
  return {name, false, [out](const std::string&) {
            *out = true;
            return true;
          }};
}

Flag IntFlag(std::string_view name, int* out) {
  return {name, true, [out](const std::string& v) { return ParseNumber(v, out); }};
}

Flag IntFlag(std::string_view name, int64_t* out) {
  return {name, true, [out](const std::string& v) { return ParseNumber(v, out); }};
}

Flag DoubleFlag(std::string_view name, double* out) {
  return {name, true, [out](const std::string& v) { return ParseNumber(v, out); }};
}

Flag StringFlag(std::string_view name, std::string* out) {
  return {name, true, [out](const std::string& v) {
            *out = v;
            return true;
          }};
}

Flag PathListFlag(std::string_view name, std::vector<std::filesystem::path>* out) {
  return {name, true, [out](const std::string& v) {
            out->emplace_back(v);
            return true;
          }};
}

Flag CsvFlag(std::string_view name, std::vector<std::string>* out) {
  return {name, true, [out](const std::string& v) {
            std::stringstream list(v);
            for (std::string item; std::getline(list, item, ',');) {
              if (!item.empty()) out->push_back(item);
            }
            return true;
          }};
}

std::string ParseFlags(const Args& args, std::initializer_list<Flag> flags) {
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    const Flag* flag = nullptr;
    for (const Flag& f : flags) {
      if (f.name == arg) flag = &f;
    }
    if (flag == nullptr) return "unknown option " + arg;
    if (!flag->takes_value) {
      flag->set("");
      continue;
    }
    if (i + 1 >= args.size()) return arg + " needs a value";
    const std::string& value = args[++i];
    if (!flag->set(value)) return "bad value for " + arg + ": '" + value + "'";
  }
  return "";
}

int ParseOrExit(std::string_view subcommand, const Args& args, std::initializer_list<Flag> flags,
                void (*usage)(std::FILE* out)) {
  for (const std::string& a : args) {
    if (a == "--help" || a == "-h") {
      usage(stdout);
      return 0;
    }
  }
  const std::string error = ParseFlags(args, flags);
  if (error.empty()) return -1;
  std::fprintf(stderr, "orcd-bench %.*s: %s\n", static_cast<int>(subcommand.size()),
               subcommand.data(), error.c_str());
  usage(stderr);
  return 2;
}

}  // namespace orcd::bench
