# Compiler flags for nki's own code.

if(NKI_USE_LLD AND CMAKE_CXX_COMPILER_ID MATCHES "Clang")
  # Linker choice goes through the link flags only, never the compile flags.
  find_program(NKI_LLD NAMES ld.lld-22 ld.lld)
  if(NKI_LLD)
    foreach(kind EXE SHARED MODULE)
      string(APPEND CMAKE_${kind}_LINKER_FLAGS " -fuse-ld=lld")
    endforeach()
  endif()
endif()

find_program(NKI_CCACHE ccache)
if(NKI_CCACHE)
  set(CMAKE_C_COMPILER_LAUNCHER ${NKI_CCACHE})
  set(CMAKE_CXX_COMPILER_LAUNCHER ${NKI_CCACHE})
endif()

if(NKI_ENABLE_ASSERTIONS)
  # Release builds define NDEBUG; our own code keeps its asserts.
  foreach(cfg RELEASE RELWITHDEBINFO MINSIZEREL)
    string(REPLACE "-DNDEBUG" "" CMAKE_CXX_FLAGS_${cfg} "${CMAKE_CXX_FLAGS_${cfg}}")
    string(REPLACE "-DNDEBUG" "" CMAKE_C_FLAGS_${cfg} "${CMAKE_C_FLAGS_${cfg}}")
  endforeach()
endif()

# Debian's LLVM is built with RTTI; match it. Warnings are errors-free by policy:
# keep -Wall -Wextra clean.
add_compile_options(-Wall -Wextra -Wno-unused-parameter)

# Sanitizers for the whole build (scripts/sanitize.sh: address,undefined),
# and libFuzzer's coverage instrumentation for the fuzz targets in test/fuzz
# (scripts/fuzz.sh). Debian's LLVM/MLIR libraries stay uninstrumented.
set(NKI_SANITIZE "" CACHE STRING
    "Sanitizers for nki's code and tests, e.g. address,undefined")
option(NKI_FUZZ "Build the libFuzzer targets in test/fuzz (implies NKI_SANITIZE=address,undefined)" OFF)
if(NKI_FUZZ AND NOT NKI_SANITIZE)
  set(NKI_SANITIZE address,undefined CACHE STRING "" FORCE)
endif()
if(NKI_SANITIZE)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "NKI_SANITIZE and NKI_FUZZ need clang")
  endif()
  # Every report is an error: no recovery, so a test cannot pass over one.
  add_compile_options(-fsanitize=${NKI_SANITIZE} -fno-sanitize-recover=all
                      -fno-omit-frame-pointer -g1)
  add_link_options(-fsanitize=${NKI_SANITIZE})
  if(NKI_SANITIZE MATCHES "address")
    add_compile_options(
      "$<$<COMPILE_LANGUAGE:CXX>:SHELL:-include ${CMAKE_CURRENT_LIST_DIR}/SanitizerPrelude.h>")
  endif()
endif()
if(NKI_FUZZ)
  add_compile_options(-fsanitize=fuzzer-no-link)
endif()
