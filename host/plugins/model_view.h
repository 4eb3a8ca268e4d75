// Exposes a parsed GGUF to architecture plugins as the ABI's orcd_model_view.
#ifndef ORCD_HOST_PLUGINS_MODEL_VIEW_H_
#define ORCD_HOST_PLUGINS_MODEL_VIEW_H_

#include <deque>
#include <map>
#include <string>

#include "host/gguf/gguf_file.h"
#include "orcd/plugin.h"

// Defined here (the ABI leaves it opaque): the host's view object.
struct orcd_model_view {
  explicit orcd_model_view(const orcd::GgufFile& f) : file(f) {}
  const orcd::GgufFile& file;
  // get_string hands out NUL-terminated copies that live as long as the view.
  mutable std::map<std::string, std::string, std::less<>> strings;
};

namespace orcd {

const orcd_model_view_ops* ModelViewOps();

}  // namespace orcd

#endif  // ORCD_HOST_PLUGINS_MODEL_VIEW_H_
