#include "plugin_test_host.h"

#include <dlfcn.h>

#include <cstdlib>

namespace orcd::quant::test {
namespace {

// $ORCD_PLUGIN_DIR overrides the build's plugin directory (the GPU kit).
std::string PluginDir() {
  const char* env = std::getenv("ORCD_PLUGIN_DIR");
  return env && *env ? env : ORCD_PLUGIN_DIR;
}

}  // namespace
namespace {

struct TestError {
  orcd_status code;
  std::string message;
};

void* g_cuda_stream = nullptr;

void test_log(orcd_log_level, const char* plugin, const char* message) {
  logged_lines().push_back(std::string(plugin) + ": " + message);
}
orcd_error* test_error_new(orcd_status code, const char* message) {
  return reinterpret_cast<orcd_error*>(new TestError{code, message});
}
orcd_status test_error_code(const orcd_error* e) {
  return reinterpret_cast<const TestError*>(e)->code;
}
const char* test_error_message(const orcd_error* e) {
  return reinterpret_cast<const TestError*>(e)->message.c_str();
}
void test_error_free(orcd_error* e) { delete reinterpret_cast<TestError*>(e); }
void* test_host_alloc(size_t bytes, size_t alignment) {
  return std::aligned_alloc(alignment, (bytes + alignment - 1) / alignment * alignment);
}
void test_host_free(void* p) { std::free(p); }
orcd_error* test_device_alloc(size_t, void**) {
  return test_error_new(ORCD_ERR_UNSUPPORTED, "test host: no device allocations");
}
void test_device_free(void*) {}
orcd_backend test_backend() { return g_cuda_stream ? ORCD_BACKEND_CUDA : ORCD_BACKEND_CPU; }
void* test_cuda_stream() { return g_cuda_stream; }

}  // namespace

const orcd_host_services& test_host_services() {
  static const orcd_host_services services = {sizeof(orcd_host_services),
                                              ORCD_ABI_MAJOR,
                                              ORCD_ABI_MINOR,
                                              &test_log,
                                              &test_error_new,
                                              &test_error_code,
                                              &test_error_message,
                                              &test_error_free,
                                              &test_host_alloc,
                                              &test_host_free,
                                              &test_device_alloc,
                                              &test_device_free,
                                              &test_backend,
                                              &test_cuda_stream};
  return services;
}

std::vector<std::string>& logged_lines() {
  static std::vector<std::string> lines;
  return lines;
}

void set_test_cuda_stream(void* stream) { g_cuda_stream = stream; }

OwnedError::~OwnedError() {
  if (e_ != nullptr) test_error_free(e_);
}
orcd_status OwnedError::code() const { return e_ ? test_error_code(e_) : ORCD_OK; }
std::string OwnedError::message() const { return e_ ? test_error_message(e_) : ""; }

LoadedPlugin::LoadedPlugin(const std::string& name)
    : path_(PluginDir() + "/orcd-plugin-" + name + ".so"),
      handle_(dlopen(path_.c_str(), RTLD_NOW | RTLD_LOCAL)) {
  if (handle_ == nullptr) error_ = dlerror();
}

LoadedPlugin::~LoadedPlugin() {
  if (handle_ != nullptr) dlclose(handle_);
}

void* LoadedPlugin::symbol(const char* name) const { return dlsym(handle_, name); }

orcd_plugin_entry_fn LoadedPlugin::entry() const {
  return reinterpret_cast<orcd_plugin_entry_fn>(symbol(ORCD_PLUGIN_ENTRY_SYMBOL));
}

}  // namespace orcd::quant::test
