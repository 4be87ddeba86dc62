// Child processes with a wall-clock timeout: used for nvcc, git, the sched2cu subcommands that
// regen drives and every measurement child. A child runs in its own process group so that a
// timeout kills everything it started. Never uses a shell: arguments are passed as a vector.
#pragma once

#include <string>
#include <vector>

namespace sched2cu::harness {

struct ProcOptions {
  double timeout_s = -1;          // < 0: no limit
  bool capture_stdout = true;     // else inherited (or sent to our stderr, see below)
  bool stdout_to_stderr = false;  // when not captured: keep our stdout clean for the table
  bool capture_stderr = true;     // else inherited
  std::string cwd;                // empty: ours
};

struct ProcResult {
  bool started = false;
  std::string spawn_error;  // why it could not start
  int exit_code = -1;       // valid when it exited normally
  int term_signal = 0;      // non-zero when it died by a signal (includes our timeout kill)
  bool timed_out = false;
  bool interrupted = false;  // we stopped it because we were interrupted (SIGINT, SIGTERM)
  double seconds = 0;
  std::string out;
  std::string err;

  bool ok() const { return started && !timed_out && term_signal == 0 && exit_code == 0; }
};

ProcResult run_process(const std::vector<std::string>& argv, const ProcOptions& opt = {});

// Ctrl-C and kill: a child runs in its own process group, so the terminal's SIGINT reaches only
// us. With the handlers installed, SIGINT / SIGTERM / SIGHUP only set a flag: run_process then
// stops its child's whole group (SIGTERM, SIGKILL 2 s later) and returns it `interrupted`, and
// the caller throws, so that destructors remove temporary directories. A second signal, or one
// with no child running, is checked by callers through interrupt_requested().
void install_interrupt_handlers();
bool interrupt_requested();
// The signal that interrupted us (0: none), and "SIGTERM"-style text for it.
int interrupt_signal();
std::string interrupt_text();
// Forgets an interrupt (tests that raise one on purpose).
void clear_interrupt();
// Throws sched2cu::Error("<what>: interrupted ...") when a signal arrived.
void throw_if_interrupted(const std::string& what);

// "timed out after 300 s", "killed by signal SIGSEGV (11)", "exited with status 3",
// "could not start: ...", or "succeeded".
std::string describe_exit(const ProcResult& r);

// The path of the running executable (/proc/self/exe).
std::string self_exe();

}  // namespace sched2cu::harness
