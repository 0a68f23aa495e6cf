# Every dependency comes from a Debian package listed in third_party/.

find_package(MLIR REQUIRED CONFIG
             HINTS /usr/lib/llvm-22/lib/cmake/mlir)
if(NOT LLVM_VERSION_MAJOR EQUAL 22)
  message(FATAL_ERROR "nki needs LLVM/MLIR 22, found ${LLVM_PACKAGE_VERSION}")
endif()
message(STATUS "Using MLIR ${LLVM_PACKAGE_VERSION} from ${MLIR_DIR}")

list(APPEND CMAKE_MODULE_PATH "${MLIR_CMAKE_DIR}" "${LLVM_CMAKE_DIR}")
include(TableGen)
include(AddLLVM)
include(AddMLIR)

find_package(absl REQUIRED CONFIG)
find_package(Protobuf REQUIRED)

# LLVM/MLIR headers are not ours: keep their warnings quiet.
include_directories(SYSTEM ${LLVM_INCLUDE_DIRS} ${MLIR_INCLUDE_DIRS})
add_definitions(${LLVM_DEFINITIONS})

# The MLIR and LLVM components nki's libraries use; their imported targets
# bring the rest. The build tree's executables (tools, tests, the Python
# module) link these static archives: a static nki-compile starts in 13 MiB
# instead of 88 (the loader resolves and relocates no 200 MB of shared
# libraries) and compiles about 20 % faster (no PLT calls into MLIR). The
# installed package keeps the shared libraries for find_package(NKI)
# consumers (cmake/NKIAddLibrary.cmake), so that an embedding framework
# and nki share one copy of MLIR.
set(NKI_MLIR_STATIC_LIBS
  MLIRIR MLIRParser MLIRPass MLIRTransforms MLIRTransformUtils
  MLIRAnalysis MLIRDialectUtils MLIRBytecodeWriter
  MLIRFuncDialect MLIRFuncTransforms MLIRFuncInlinerExtension
  MLIRArithDialect MLIRArithTransforms MLIRArithUtils MLIRMathDialect
  MLIRAffineDialect MLIRSCFDialect MLIRSCFTransforms
  MLIRLinalgDialect MLIRLinalgTransforms MLIRLinalgUtils
  MLIRTensorDialect MLIRTensorTransforms MLIRTensorUtils
  MLIRTensorInferTypeOpInterfaceImpl MLIRTensorTilingInterfaceImpl
  MLIRMemRefDialect MLIRMemRefTransforms
  MLIRBufferizationDialect MLIRBufferizationTransforms
  MLIRTosaDialect MLIRTosaTransforms MLIRTosaToArith MLIRTosaToLinalg
  MLIRTosaToTensor
  MLIROptLib MLIRTranslateLib)
set(NKI_LLVM_STATIC_LIBS LLVMSupport LLVMRemarks LLVMBitstreamReader)

if(NOT NKI_LINK_MLIR_DYLIB)
  # Debian builds MLIR's archives against the libLLVM shared library: their
  # link interfaces name `LLVM`. Put LLVM's archives in its place, in every
  # MLIR target the build reaches, so that no libLLVM.so is loaded.
  set(pending ${NKI_MLIR_STATIC_LIBS})
  set(visited)
  while(pending)
    list(POP_FRONT pending lib)
    if(NOT TARGET ${lib} OR lib IN_LIST visited OR NOT lib MATCHES "^MLIR")
      continue()
    endif()
    list(APPEND visited ${lib})
    get_target_property(deps ${lib} INTERFACE_LINK_LIBRARIES)
    if(NOT deps)
      continue()
    endif()
    if("LLVM" IN_LIST deps)
      list(TRANSFORM deps REPLACE "^LLVM$" "${NKI_LLVM_STATIC_LIBS}")
      set_target_properties(${lib} PROPERTIES INTERFACE_LINK_LIBRARIES "${deps}")
    endif()
    list(APPEND pending ${deps})
  endwhile()
  list(APPEND NKI_MLIR_STATIC_LIBS ${NKI_LLVM_STATIC_LIBS})
  # Only what is reached: unreferenced sections of the archives, and shared
  # libraries that LLVMSupport names but nothing calls (libz3).
  add_link_options(-Wl,--gc-sections -Wl,--as-needed)
endif()
