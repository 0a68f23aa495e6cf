//===- ReplayMain.cpp - Run a fuzz target over files, without libFuzzer ---===//
//
// replay-TARGET FILE_OR_DIR...: calls the target's LLVMFuzzerTestOneInput on
// every file (directories: every file in them but dotfiles, sorted), so the
// normal build and CI replay the seed corpora and crash reproducers of
// test/fuzz. A crash, sanitizer report or abort() in the target fails the run;
// the last line printed names the input.
//
//===----------------------------------------------------------------------===//

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
extern "C" __attribute__((weak)) int LLVMFuzzerInitialize(int *argc,
                                                          char ***argv);

int main(int argc, char **argv) {
  if (LLVMFuzzerInitialize)
    LLVMFuzzerInitialize(&argc, &argv);
  namespace fs = std::filesystem;
  std::vector<fs::path> files;
  for (int i = 1; i < argc; ++i) {
    fs::path p = argv[i];
    std::error_code ec;
    if (fs::is_directory(p, ec)) {
      for (const fs::directory_entry &e : fs::directory_iterator(p))
        if (e.is_regular_file() && e.path().filename().c_str()[0] != '.')
          files.push_back(e.path()); // not .gitkeep
    } else if (fs::is_regular_file(p, ec)) {
      files.push_back(p);
    } else {
      std::fprintf(stderr, "replay: no such file or directory: %s\n", argv[i]);
      return 2;
    }
  }
  std::sort(files.begin(), files.end());
  for (const fs::path &f : files) {
    std::ifstream in(f, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)),
                      std::istreambuf_iterator<char>());
    std::fprintf(stderr, "replay: %s\n", f.c_str());
    // An exactly sized copy, as libFuzzer passes: in a sanitizer build a
    // read past the input's end is caught (a std::string has a NUL there).
    std::unique_ptr<uint8_t[]> copy(new uint8_t[bytes.size()]);
    std::memcpy(copy.get(), bytes.data(), bytes.size());
    LLVMFuzzerTestOneInput(copy.get(), bytes.size());
  }
  std::printf("replay: %zu inputs, no crash\n", files.size());
  return 0;
}
