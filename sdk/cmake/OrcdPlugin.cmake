# orcd_add_plugin(<name> SOURCES <files...> [CUDA_SOURCES <files...>] [TEST_ONLY])
#
# Builds <name> as a loadable module exporting only the orcd entry symbol.
# CUDA_SOURCES are compiled only when the CUDA language is enabled; the plugin
# then gets ORCD_PLUGIN_HAS_CUDA=1. Output: orcd-plugin-<name>.so in
# ORCD_PLUGIN_OUTPUT_DIR (or ORCD_TEST_PLUGIN_OUTPUT_DIR for TEST_ONLY).
# Installed (unless NO_INSTALL) to ORCD_PLUGIN_SUBDIR in the install component
# ORCD_PLUGIN_INSTALL_COMPONENT (default runtime; orcd's own are "plugins").
function(orcd_add_plugin name)
  cmake_parse_arguments(ARG "TEST_ONLY;NO_INSTALL" "" "SOURCES;CUDA_SOURCES" ${ARGN})
  set(target orcd_plugin_${name})
  set(sources ${ARG_SOURCES})
  get_property(languages GLOBAL PROPERTY ENABLED_LANGUAGES)
  set(with_cuda OFF)
  if(ARG_CUDA_SOURCES AND "CUDA" IN_LIST languages)
    list(APPEND sources ${ARG_CUDA_SOURCES})
    set(with_cuda ON)
  endif()
  add_library(${target} MODULE ${sources})
  target_link_libraries(${target} PRIVATE orcd::sdk)
  if(TARGET orcd_warnings)
    target_link_libraries(${target} PRIVATE orcd_warnings)
  endif()
  if(with_cuda)
    target_compile_definitions(${target} PRIVATE ORCD_PLUGIN_HAS_CUDA=1)
    target_link_libraries(${target} PRIVATE CUDA::cudart)
  endif()
  set_target_properties(${target} PROPERTIES
    OUTPUT_NAME "orcd-plugin-${name}"
    PREFIX ""
    C_VISIBILITY_PRESET hidden
    CXX_VISIBILITY_PRESET hidden
    CUDA_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON)
  if(ARG_TEST_ONLY)
    if(DEFINED ORCD_TEST_PLUGIN_OUTPUT_DIR)
      set_target_properties(${target} PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${ORCD_TEST_PLUGIN_OUTPUT_DIR})
    endif()
  else()
    if(DEFINED ORCD_PLUGIN_OUTPUT_DIR)
      set_target_properties(${target} PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${ORCD_PLUGIN_OUTPUT_DIR})
    endif()
    if(NOT ARG_NO_INSTALL)
      if(NOT DEFINED ORCD_PLUGIN_SUBDIR)
        set(ORCD_PLUGIN_SUBDIR lib/orcd/plugins)
      endif()
      if(NOT DEFINED ORCD_PLUGIN_INSTALL_COMPONENT)
        set(ORCD_PLUGIN_INSTALL_COMPONENT runtime)
      endif()
      install(TARGETS ${target} LIBRARY DESTINATION ${ORCD_PLUGIN_SUBDIR}
              COMPONENT ${ORCD_PLUGIN_INSTALL_COMPONENT})
    endif()
  endif()
endfunction()
