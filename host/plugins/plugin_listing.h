// `orcd-host --list-plugins`: what an operator checks after dropping a plugin
// into a directory, without loading a model. Every directory searched (in
// order, missing ones marked), every plugin loaded with its version, ABI and
// the architectures or quant types it serves (names an earlier plugin already
// holds are marked with the holder), and every refused file with the reason.
#ifndef ORCD_HOST_PLUGINS_PLUGIN_LISTING_H_
#define ORCD_HOST_PLUGINS_PLUGIN_LISTING_H_

#include <filesystem>
#include <string>
#include <vector>

#include "host/plugins/plugin_registry.h"

namespace orcd {

// The listing of a registry that loaded `dirs`.
std::string FormatPluginListing(const std::vector<std::filesystem::path>& dirs,
                                const PluginRegistry& registry);

// Loads `dirs` into a fresh registry and prints its listing to stdout.
// Refusals are also logged (warn) as the worker logs them. Returns the exit
// status: 0, whatever was refused (the listing is the report).
int PrintPluginListing(const std::vector<std::filesystem::path>& dirs);

}  // namespace orcd

#endif  // ORCD_HOST_PLUGINS_PLUGIN_LISTING_H_
