//===- ReplayMain.cpp - Run a fuzz target over files, without libFuzzer ---===//
//
// replay-TARGET FILE_OR_DIR...: calls the target's LLVMFuzzerTestOneInput on
// every file (directories: every file in them but dotfiles, sorted), so the
// normal build and CI replay the seed corpora and crash reproducers of
// test/fuzz. A crash, sanitizer report or abort() in the target fails the run;
// the last line printed names the input.
//
// replay-TARGET --random N [SEED]: N random inputs of 8 to 128 bytes, a
// quick sweep in the normal build (uninstrumented, so several times faster
// than fuzz-TARGET, but blind to coverage). Each input is written to
// ./replay-random-input before it runs: after a crash, that file is the
// reproducer.
//
//===----------------------------------------------------------------------===//

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <random>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
extern "C" __attribute__((weak)) int LLVMFuzzerInitialize(int *argc,
                                                          char ***argv);

/// Runs the target on `bytes` as libFuzzer would pass them: an exactly sized
/// heap copy, so that in a sanitizer build a read past the input's end is
/// caught (a std::string has a NUL there).
static void runOne(const std::string &bytes) {
  std::unique_ptr<uint8_t[]> copy(new uint8_t[bytes.size()]);
  std::memcpy(copy.get(), bytes.data(), bytes.size());
  LLVMFuzzerTestOneInput(copy.get(), bytes.size());
}

static int randomSweep(long count, unsigned long seed) {
  const char *path = "replay-random-input";
  std::fprintf(stderr,
               "replay: %ld random inputs (seed %lu), each written to ./%s "
               "before it runs\n",
               count, seed, path);
  std::mt19937_64 rng(seed);
  for (long i = 0; i < count; ++i) {
    std::string bytes(8 + rng() % 121, '\0');
    for (char &c : bytes)
      c = char(rng());
    std::ofstream(path, std::ios::binary) << bytes;
    runOne(bytes);
  }
  std::printf("replay: %ld random inputs, no crash\n", count);
  return 0;
}

int main(int argc, char **argv) {
  if (LLVMFuzzerInitialize)
    LLVMFuzzerInitialize(&argc, &argv);
  if (argc >= 3 && std::strcmp(argv[1], "--random") == 0) {
    char *end = nullptr, *seedEnd = nullptr;
    long count = std::strtol(argv[2], &end, 10);
    unsigned long seed = argc > 3 ? std::strtoul(argv[3], &seedEnd, 10) : 1;
    if (*end || count < 0 || argc > 4 || (seedEnd && *seedEnd)) {
      std::fprintf(stderr, "replay: usage: --random COUNT [SEED]\n");
      return 2;
    }
    return randomSweep(count, seed);
  }
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
    runOne(bytes);
  }
  std::printf("replay: %zu inputs, no crash\n", files.size());
  return 0;
}
