# COIN-OR CLP (LP) and CBC (MILP) from Debian's coinor-libclp-dev and
# coinor-libcbc-dev. They ship pkg-config files only, so this module wraps
# them as CoinOR::Clp and CoinOR::Cbc.
find_package(PkgConfig REQUIRED)
pkg_check_modules(PC_Clp QUIET IMPORTED_TARGET clp)
pkg_check_modules(PC_Cbc QUIET IMPORTED_TARGET cbc)

include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(CoinOR
  REQUIRED_VARS PC_Clp_FOUND PC_Cbc_FOUND
  VERSION_VAR PC_Cbc_VERSION)

if(CoinOR_FOUND)
  if(NOT TARGET CoinOR::Clp)
    add_library(CoinOR::Clp INTERFACE IMPORTED)
    target_link_libraries(CoinOR::Clp INTERFACE PkgConfig::PC_Clp)
  endif()
  if(NOT TARGET CoinOR::Cbc)
    add_library(CoinOR::Cbc INTERFACE IMPORTED)
    target_link_libraries(CoinOR::Cbc INTERFACE PkgConfig::PC_Cbc)
  endif()
endif()
