# vnsim_add_test(NAME [SERIAL] SOURCES... LIBS ...): one GoogleTest executable
# whose tests ctest runs one per process. SimGrid allows a single
# s4u::Engine per process, so every test must run alone; we apply the same
# rule everywhere. Every test target finds tests/support/ on its include path
# and the shared test clusters (tests/clusters/) through test_clusters.hpp.
# SERIAL: ctest runs none of them beside another test (for
# tests that time real MPI collectives, which a concurrent test would slow).
function(vnsim_add_test name)
  cmake_parse_arguments(ARG "SERIAL" "" "SOURCES;LIBS" ${ARGN})
  set(serial FALSE)
  if(ARG_SERIAL)
    set(serial TRUE)
  endif()
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ${ARG_LIBS} GTest::gtest GTest::gtest_main)
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR}/tests/support)
  # The shared test clusters (tests/support/test_clusters.hpp); a static
  # library, so a test that loads none links none of it.
  target_link_libraries(${name} PRIVATE vnsim_test_clusters)
  gtest_discover_tests(${name}
    PROPERTIES TIMEOUT 300 RUN_SERIAL ${serial}
    DISCOVERY_TIMEOUT 60)
endfunction()

# The one source that knows where tests/clusters/ is. Absolute paths stay out
# of every other test's compile line, so ccache (scripts/build) hits across
# clones at different paths (docs/CONTRIBUTING.md, "Build cache"). vnsim_core
# is defined later; CMake resolves target names when it generates.
add_library(vnsim_test_clusters STATIC ${PROJECT_SOURCE_DIR}/tests/support/test_clusters.cpp)
target_link_libraries(vnsim_test_clusters PUBLIC vnsim_core)
target_compile_definitions(vnsim_test_clusters PRIVATE VNSIM_TEST_CLUSTERS="${PROJECT_SOURCE_DIR}/tests/clusters")
