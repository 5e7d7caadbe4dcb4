# Warning flags for every vnsim target; -Werror is on unless VNSIM_WERROR=OFF.
add_compile_options(-Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor)
if(VNSIM_WERROR)
  add_compile_options(-Werror)
endif()
