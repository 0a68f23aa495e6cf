# lit configuration for nki. Tests run the tools from the build tree and
# LLVM 22's FileCheck / not / split-file.
import os

import lit.formats
from lit.llvm import llvm_config

config.name = "NKI"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test", ".nisa"]
config.excludes = ["lit.cfg.py", "lit.site.cfg.py", "CMakeLists.txt", "Inputs", "gen.py", "run-case.sh",
                   "run-attention.sh",
                   "unittests", "bench"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.nki_obj_root, "test")

# Every FileCheck variable is scoped to its CHECK-LABEL block.
config.environment["FILECHECK_OPTS"] = "--enable-var-scope"

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%nki_version", config.nki_version))
config.substitutions.append(("%llvm_version", config.llvm_version))
config.substitutions.append(("%nki_src_root", config.nki_src_root))
config.substitutions.append(("%system_python", config.system_python))

# The sanitizer build (scripts/sanitize.sh) passes its options to the tools.
llvm_config.with_system_environment(
    ["HOME", "TMP", "TEMP", "ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS"])
llvm_config.use_default_substitutions()

tool_dirs = [config.nki_tools_dir, config.llvm_tools_dir]
tools = ["nki-opt", "nki-translate", "nki-compile", "nki-run"]
llvm_config.add_tool_substitutions(
    [t for t in tools if os.path.exists(os.path.join(config.nki_tools_dir, t))],
    tool_dirs)
llvm_config.with_environment("PATH", config.nki_tools_dir, append_path=False)
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
# The system tools RUN lines use (bash, cmp, head, ...).
llvm_config.with_environment("PATH", os.environ.get("PATH", "/usr/bin:/bin"),
                             append_path=True)

# `lit -D nki_target=trn1|trn3`: the end-to-end cases that name no target
# (test/e2e/run-case.sh) compile for that one instead of the default.
if lit_config.params.get("nki_target"):
    config.environment["NKI_E2E_TARGET"] = lit_config.params["nki_target"]

if os.path.isdir(config.onnx_testdata_dir):
    config.available_features.add("onnx-testdata")
