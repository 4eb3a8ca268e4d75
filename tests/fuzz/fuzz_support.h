// Shared by the fuzz targets: the libFuzzer entry point's signature, where
// the fixtures are, and a check that turns a broken invariant into a crash
// libFuzzer reports (and a replay test fails on).
#ifndef ORCD_TESTS_FUZZ_FUZZ_SUPPORT_H_
#define ORCD_TESTS_FUZZ_FUZZ_SUPPORT_H_

#include <cstddef>
#include <cstdint>
#include <filesystem>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
// Optional: targets with fixtures to load define it, so that loading (seconds
// under ASan) happens once before the first input and never counts against
// libFuzzer's per-input timeout.
extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv);

namespace orcd::fuzz {

// ORCD_FIXTURES_DIR from the environment, else the one CMake configured.
std::filesystem::path FixturesDir();

// Prints `what` and aborts when `condition` is false.
void Check(bool condition, const char* what);

}  // namespace orcd::fuzz

#endif  // ORCD_TESTS_FUZZ_FUZZ_SUPPORT_H_
