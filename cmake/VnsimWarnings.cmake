# Warning flags for every vnsim target; -Werror is on unless VNSIM_WERROR=OFF.
add_compile_options(-Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor)
if(VNSIM_WERROR)
  add_compile_options(-Werror)
endif()
# GCC 12 at -O3 reports -Wrestrict inside libstdc++'s own std::string
# concatenation (GCC bug 105329), so a Release build would fail on code that
# is correct; the warning stays on for every other compiler.
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
  add_compile_options(-Wno-restrict)
endif()
