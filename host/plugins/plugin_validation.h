// Checks a plugin descriptor against ABI v1 before the host trusts it.
#ifndef ORCD_HOST_PLUGINS_PLUGIN_VALIDATION_H_
#define ORCD_HOST_PLUGINS_PLUGIN_VALIDATION_H_

#include <string>

#include "orcd/plugin.h"

namespace orcd {

// Empty when the descriptor is acceptable, else the reason it is refused.
std::string ValidateDescriptor(const orcd_plugin_descriptor& d);

}  // namespace orcd

#endif  // ORCD_HOST_PLUGINS_PLUGIN_VALIDATION_H_
