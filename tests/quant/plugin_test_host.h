// What a test needs to load a plugin module as the host does: dlopen with an
// RAII handle, and a minimal orcd_host_services table (errors are heap
// objects, logs are recorded, CPU backend unless a CUDA stream is set).
#ifndef ORCD_TESTS_QUANT_PLUGIN_TEST_HOST_H_
#define ORCD_TESTS_QUANT_PLUGIN_TEST_HOST_H_

#include <string>
#include <vector>

#include "orcd/plugin.h"

namespace orcd::quant::test {

const orcd_host_services& test_host_services();
// Lines "<plugin>: <message>" logged through test_host_services().
std::vector<std::string>& logged_lines();
// What test_host_services().cuda_stream() returns (nullptr: the default stream).
void set_test_cuda_stream(void* stream);

// An error made by test_host_services().error_new, freed on destruction.
class OwnedError {
 public:
  explicit OwnedError(orcd_error* e) : e_(e) {}
  ~OwnedError();
  OwnedError(const OwnedError&) = delete;
  OwnedError& operator=(const OwnedError&) = delete;
  bool ok() const { return e_ == nullptr; }
  orcd_status code() const;
  std::string message() const;

 private:
  orcd_error* e_;
};

class LoadedPlugin {
 public:
  // Loads ORCD_PLUGIN_DIR/orcd-plugin-<name>.so.
  explicit LoadedPlugin(const std::string& name);
  ~LoadedPlugin();
  LoadedPlugin(const LoadedPlugin&) = delete;
  LoadedPlugin& operator=(const LoadedPlugin&) = delete;

  bool loaded() const { return handle_ != nullptr; }
  const std::string& path() const { return path_; }
  const std::string& error() const { return error_; }  // dlerror() of a failed load
  void* symbol(const char* name) const;
  orcd_plugin_entry_fn entry() const;

 private:
  std::string path_;
  std::string error_;
  void* handle_;
};

}  // namespace orcd::quant::test

#endif  // ORCD_TESTS_QUANT_PLUGIN_TEST_HOST_H_
