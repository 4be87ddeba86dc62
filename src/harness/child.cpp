// Measurement child runner (see child.h).
#include "sched2cu/harness/child.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "sched2cu/common/diag.h"
#include "sched2cu/common/file_util.h"

namespace sched2cu::harness {

std::string make_result_file() {
  std::string dir = std::filesystem::temp_directory_path().string();
  std::string path = dir + "/sched2cu-measure-XXXXXX.json";
  int fd = mkstemps(path.data(), 5);
  if (fd < 0) throw Error("cannot create a temporary result file in " + dir);
  close(fd);
  return path;
}

Measurement run_measure_child(std::vector<std::string> argv, double timeout_s) {
  std::string path = make_result_file();
  argv.emplace_back("--out");
  argv.push_back(path);
  ProcOptions o;
  o.timeout_s = timeout_s;
  o.capture_stdout = false;
  o.stdout_to_stderr = true;
  o.capture_stderr = false;
  ProcResult p = run_process(argv, o);
  std::string text = read_file_if_exists(path).value_or("");
  std::remove(path.c_str());
  return interpret_child(text, p);
}

}  // namespace sched2cu::harness
