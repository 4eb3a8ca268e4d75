# find_package(orcd-sdk) for out-of-tree plugins: provides orcd::sdk and orcd_add_plugin().
include("${CMAKE_CURRENT_LIST_DIR}/orcd-sdk-targets.cmake")
include("${CMAKE_CURRENT_LIST_DIR}/OrcdPlugin.cmake")
