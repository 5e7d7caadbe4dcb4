# How much debug info the builds that have some carry. Line tables (-g1) give
# stack traces, perf's source lines and the sanitizers' reports, and compile
# in about 70 % of the time of full DWARF (-g): measured on this project's
# sources, RelWithDebInfo, gcc 12. Full debug info adds variables and types,
# for gdb.
#   VNSIM_DEBUG_INFO=""     (default) line tables in RelWithDebInfo, full in Debug
#   VNSIM_DEBUG_INFO=lines  line tables in both
#   VNSIM_DEBUG_INFO=full   full in both
set(VNSIM_DEBUG_INFO "" CACHE STRING "Debug info: empty (lines in RelWithDebInfo, full in Debug), lines or full")
set_property(CACHE VNSIM_DEBUG_INFO PROPERTY STRINGS "" lines full)
if(VNSIM_DEBUG_INFO STREQUAL "")
  add_compile_options($<$<CONFIG:RelWithDebInfo>:-g1>)
elseif(VNSIM_DEBUG_INFO STREQUAL "lines")
  add_compile_options($<$<CONFIG:RelWithDebInfo,Debug>:-g1>)
elseif(NOT VNSIM_DEBUG_INFO STREQUAL "full")
  message(FATAL_ERROR "VNSIM_DEBUG_INFO must be empty, lines or full, not '${VNSIM_DEBUG_INFO}'")
endif()
