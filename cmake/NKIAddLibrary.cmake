# nki_add_library(name SOURCES... [DEPENDS tgt...] [LINK_LIBS lib...] [MLIR])
#
# A static library of nki's, exported as NKI::<name> for find_package(NKI).
# MLIR: the library uses MLIR. Installed, it links the MLIR + LLVM shared
# libraries (an embedding framework and nki then share one copy of MLIR);
# in the build tree, MLIR's static archives unless NKI_LINK_MLIR_DYLIB
# (cmake/NKIDependencies.cmake says why).
function(nki_add_library name)
  cmake_parse_arguments(ARG "MLIR" "" "SOURCES;DEPENDS;LINK_LIBS" ${ARGN})
  add_library(${name} STATIC ${ARG_SOURCES} ${ARG_UNPARSED_ARGUMENTS})
  set_target_properties(${name} PROPERTIES POSITION_INDEPENDENT_CODE ON)
  target_include_directories(${name} PUBLIC
    $<BUILD_INTERFACE:${NKI_SOURCE_DIR}/include>
    $<BUILD_INTERFACE:${NKI_BINARY_DIR}/include>
    $<INSTALL_INTERFACE:include>)
  if(ARG_DEPENDS)
    add_dependencies(${name} ${ARG_DEPENDS})
  endif()
  target_compile_features(${name} PUBLIC cxx_std_17)
  if(ARG_MLIR)
    if(NKI_LINK_MLIR_DYLIB)
      set(build_mlir MLIR LLVM)
    else()
      set(build_mlir ${NKI_MLIR_STATIC_LIBS})
    endif()
    target_link_libraries(${name} PUBLIC "$<BUILD_INTERFACE:${build_mlir}>"
                                         "$<INSTALL_INTERFACE:MLIR;LLVM>")
    # MLIR's imported targets carry no include paths; ours do, so that a
    # find_package(NKI) consumer compiles against the same MLIR headers.
    target_include_directories(${name} SYSTEM PUBLIC
      ${LLVM_INCLUDE_DIRS} ${MLIR_INCLUDE_DIRS})
  endif()
  target_link_libraries(${name} PUBLIC ${ARG_LINK_LIBS})
  if(NKI_SANITIZE)
    # Instrumented objects need the sanitizer runtimes wherever they link.
    target_link_options(${name} INTERFACE -fsanitize=${NKI_SANITIZE})
  endif()
  add_library(NKI::${name} ALIAS ${name})
  set_property(GLOBAL APPEND PROPERTY NKI_EXPORTED_LIBS ${name})
endfunction()

# nki_add_tool(name SOURCES... LINK_LIBS lib...)
function(nki_add_tool name)
  cmake_parse_arguments(ARG "" "" "SOURCES;LINK_LIBS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES} ${ARG_UNPARSED_ARGUMENTS})
  # Large blocks on transparent huge pages (the file says why); sanitizer
  # runtimes bring their own allocation functions.
  if(NOT NKI_SANITIZE)
    target_sources(${name} PRIVATE
      ${NKI_SOURCE_DIR}/tools/common/LargeAllocations.cpp)
  endif()
  target_link_libraries(${name} PRIVATE ${ARG_LINK_LIBS})
  set_property(GLOBAL APPEND PROPERTY NKI_TOOLS ${name})
endfunction()
