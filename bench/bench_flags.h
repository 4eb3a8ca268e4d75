// Command-line flags of the orcd-bench subcommands: each declares a table of
// the flags it knows and where their values go; one parser handles them all,
// so a mistyped number or an unknown flag is an error naming it everywhere.
#ifndef ORCD_BENCH_BENCH_FLAGS_H_
#define ORCD_BENCH_BENCH_FLAGS_H_

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "subcommands.h"

namespace orcd::bench {

struct Flag {
  std::string_view name;
  bool takes_value = true;
  // Stores the value; false when it does not parse.
  std::function<bool(const std::string& value)> set;
};

Flag Switch(std::string_view name, bool* out);
Flag IntFlag(std::string_view name, int* out);
Flag IntFlag(std::string_view name, int64_t* out);
Flag DoubleFlag(std::string_view name, double* out);
Flag StringFlag(std::string_view name, std::string* out);
// Repeatable: each occurrence appends.
Flag PathListFlag(std::string_view name, std::vector<std::filesystem::path>* out);
// Comma-separated; empty items are skipped.
Flag CsvFlag(std::string_view name, std::vector<std::string>* out);

// Applies `args` to `flags`. Returns "" on success, else what is wrong.
std::string ParseFlags(const Args& args, std::initializer_list<Flag> flags);

// A subcommand's whole front matter: --help prints `usage` to stdout (returns
// 0); a bad flag prints what is wrong and the usage to stderr (returns 2);
// otherwise returns -1 and the subcommand goes on.
int ParseOrExit(std::string_view subcommand, const Args& args, std::initializer_list<Flag> flags,
                void (*usage)(std::FILE* out));

}  // namespace orcd::bench

#endif  // ORCD_BENCH_BENCH_FLAGS_H_
