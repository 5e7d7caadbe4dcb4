# Keeps a build tree small. CI machines have run out of disk while linking
# (a RelWithDebInfo tree was 1.4 GB and the sanitizer tree 2.2 GB, most of it
# DWARF, and every static library held a second copy of its objects).
# - Debug sections are zlib-compressed by the assembler and the linker; gdb,
#   addr2line and the sanitizers' symbolizer read them as before.
# - Static libraries are thin archives: they name their objects instead of
#   copying them. They are build-tree artefacts only, never installed.
option(VNSIM_COMPACT_BUILD "Compress debug info and use thin static archives" ON)
if(NOT VNSIM_COMPACT_BUILD)
  return()
endif()

include(CheckCXXSourceCompiles)
set(CMAKE_REQUIRED_FLAGS "-g -gz=zlib")
set(CMAKE_REQUIRED_LINK_OPTIONS "-gz=zlib")
check_cxx_source_compiles("int main() { return 0; }" VNSIM_HAS_GZ)
unset(CMAKE_REQUIRED_FLAGS)
unset(CMAKE_REQUIRED_LINK_OPTIONS)
if(VNSIM_HAS_GZ)
  add_compile_options(-gz=zlib)
  add_link_options(-gz=zlib)
endif()

if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" OR CMAKE_CXX_COMPILER_ID MATCHES "Clang")
  set(CMAKE_CXX_ARCHIVE_CREATE "<CMAKE_AR> qcT <TARGET> <LINK_FLAGS> <OBJECTS>")
  set(CMAKE_CXX_ARCHIVE_APPEND "<CMAKE_AR> qT <TARGET> <LINK_FLAGS> <OBJECTS>")
endif()
