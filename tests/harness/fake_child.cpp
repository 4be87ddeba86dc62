// A stand-in measurement child for the harness's process tests (no GPU): given a behaviour and
// `--out FILE` (appended by run_measure_child), it writes a good result, an error, nothing,
// truncated JSON, dies by a signal, or hangs. It exercises the real parent code paths.
#include <unistd.h>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <string>

int main(int argc, char** argv) {
  std::string mode = argc > 1 ? argv[1] : "ok";
  std::string out;
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::strcmp(argv[i], "--out") == 0) out = argv[i + 1];
  }
  const char* good =
      R"({"has_generated":true,"has_hw":true,"vendor_name":"","tol":0.005,"shapes":[)"
      R"({"shape":[64],"label":"64","unit":"GB/s","ok":true,"hw_ok":true,)"
      R"("gen":{"median_ms":1.0,"throughput":100.0},"hw":{"median_ms":1.0,"throughput":200.0}}]})";
  auto write = [&](const std::string& s) {
    std::FILE* f = std::fopen(out.c_str(), "w");
    if (!f) return;
    std::fwrite(s.data(), 1, s.size(), f);
    std::fclose(f);
  };
  if (mode == "ok")
    write(good);
  else if (mode == "error")
    write(R"({"error":"generated launch at 64 returned\ncudaErrorX"})");
  else if (mode == "truncated")
    write(std::string(good).substr(0, 40));
  else if (mode == "nothing")
    return 0;
  else if (mode == "segv")
    std::raise(SIGSEGV);
  else if (mode == "abort_after_result") {
    write(good);
    std::abort();
  } else if (mode == "hang") {
    // A grandchild too, to check that the whole process group is killed.
    if (fork() == 0) {
      for (;;) pause();
    }
    for (;;) pause();
  }
  return mode == "error" ? 1 : 0;
}
