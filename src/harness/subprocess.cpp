// fork/exec with pipes, poll and a deadline (see subprocess.h). On timeout the child's process
// group gets SIGTERM, then SIGKILL two seconds later; it is always reaped.
#include "sched2cu/harness/subprocess.h"

#include "sched2cu/common/diag.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <climits>
#include <cstring>

namespace sched2cu::harness {

namespace {
volatile sig_atomic_t g_interrupt = 0;
extern "C" void on_interrupt(int sig) { g_interrupt = sig; }
}  // namespace

void install_interrupt_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_interrupt;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0;  // no SA_RESTART: poll and waits return EINTR and see the flag
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaction(sig, &sa, nullptr);
}

bool interrupt_requested() { return g_interrupt != 0; }

int interrupt_signal() { return g_interrupt; }

std::string interrupt_text() {
  const char* name = g_interrupt != 0 ? sigabbrev_np(g_interrupt) : nullptr;
  return "SIG" + std::string(name ? name : "?");
}

void clear_interrupt() { g_interrupt = 0; }

void throw_if_interrupted(const std::string& what) {
  if (g_interrupt == 0) return;
  throw Error(what + ": interrupted by " + interrupt_text() +
              ": the running child was stopped and its temporary files are removed");
}

namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

}  // namespace

std::string self_exe() {
  char buf[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return "sched2cu";
  buf[n] = '\0';
  return buf;
}

ProcResult run_process(const std::vector<std::string>& argv, const ProcOptions& opt) {
  ProcResult r;
  if (argv.empty()) {
    r.spawn_error = "empty command";
    return r;
  }
  int out_pipe[2] = {-1, -1}, err_pipe[2] = {-1, -1}, exec_pipe[2] = {-1, -1};
  if ((opt.capture_stdout && pipe2(out_pipe, O_CLOEXEC) != 0) ||
      (opt.capture_stderr && pipe2(err_pipe, O_CLOEXEC) != 0) || pipe2(exec_pipe, O_CLOEXEC) != 0) {
    r.spawn_error = std::string("pipe: ") + std::strerror(errno);
    return r;
  }
  std::vector<char*> args;
  args.reserve(argv.size() + 1);
  for (auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  auto t0 = Clock::now();
  pid_t pid = fork();
  if (pid < 0) {
    r.spawn_error = std::string("fork: ") + std::strerror(errno);
    return r;
  }
  if (pid == 0) {
    setpgid(0, 0);
    int devnull = open("/dev/null", O_RDONLY);
    if (devnull >= 0) dup2(devnull, 0);
    if (opt.capture_stdout)
      dup2(out_pipe[1], 1);
    else if (opt.stdout_to_stderr)
      dup2(2, 1);
    if (opt.capture_stderr) dup2(err_pipe[1], 2);
    if (!opt.cwd.empty() && chdir(opt.cwd.c_str()) != 0) {
      int e = errno;
      [[maybe_unused]] ssize_t w = write(exec_pipe[1], &e, sizeof e);
      _exit(127);
    }
    execvp(args[0], args.data());
    int e = errno;
    [[maybe_unused]] ssize_t w = write(exec_pipe[1], &e, sizeof e);
    _exit(127);
  }
  setpgid(pid, pid);  // also from the parent, so a kill right away already reaches the group
  close(exec_pipe[1]);
  if (opt.capture_stdout) close(out_pipe[1]);
  if (opt.capture_stderr) close(err_pipe[1]);
  int child_errno = 0;
  if (read(exec_pipe[0], &child_errno, sizeof child_errno) == sizeof child_errno) {
    close(exec_pipe[0]);
    if (opt.capture_stdout) close(out_pipe[0]);
    if (opt.capture_stderr) close(err_pipe[0]);
    waitpid(pid, nullptr, 0);
    r.spawn_error = argv[0] + ": " + std::strerror(child_errno);
    return r;
  }
  close(exec_pipe[0]);
  r.started = true;

  std::vector<pollfd> fds;
  if (opt.capture_stdout) fds.push_back({out_pipe[0], POLLIN, 0});
  if (opt.capture_stderr) fds.push_back({err_pipe[0], POLLIN, 0});
  bool exited = false, term_sent = false, kill_sent = false;
  int status = 0;
  Clock::time_point term_at{}, exited_at{};
  char buf[65536];
  while (true) {
    int open_fds = 0;
    for (auto& f : fds) open_fds += f.fd >= 0;
    if (!exited) {
      pid_t w = waitpid(pid, &status, WNOHANG);
      if (w == pid) {
        exited = true;
        exited_at = Clock::now();
      }
    }
    if (exited && open_fds == 0) break;
    if (!exited && g_interrupt != 0 && !term_sent) {
      r.interrupted = true;
      kill(-pid, SIGTERM);
      term_sent = true;
      term_at = Clock::now();
    }
    if (!exited && opt.timeout_s >= 0 && since(t0) > opt.timeout_s && !term_sent) {
      r.timed_out = true;
      kill(-pid, SIGTERM);
      term_sent = true;
      term_at = Clock::now();
    }
    if (term_sent && !kill_sent && since(term_at) > 2.0) {
      kill(-pid, SIGKILL);
      kill_sent = true;
    }
    if (open_fds > 0) {
      int pr = poll(fds.data(), fds.size(), 50);
      if (pr > 0) {
        for (size_t i = 0; i < fds.size(); ++i) {
          if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
          ssize_t n = read(fds[i].fd, buf, sizeof buf);
          if (n > 0) {
            bool is_out = opt.capture_stdout && i == 0;
            (is_out ? r.out : r.err).append(buf, static_cast<size_t>(n));
          } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
            close(fds[i].fd);
            fds[i].fd = -1;
          }
        }
      }
      // A grandchild holding the pipes open must not keep us here once the child is gone.
      if (exited && (kill_sent || since(exited_at) > 2.0)) {
        for (auto& f : fds) {
          if (f.fd >= 0) close(f.fd);
          f.fd = -1;
        }
      }
    } else if (!exited) {
      usleep(20000);
    }
  }
  r.seconds = since(t0);
  if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) r.term_signal = WTERMSIG(status);
  if (r.timed_out && r.term_signal == 0 && r.exit_code == 0) r.term_signal = SIGTERM;
  return r;
}

std::string describe_exit(const ProcResult& r) {
  if (!r.started) return "could not start: " + r.spawn_error;
  if (r.timed_out) {
    char b[64];
    std::snprintf(b, sizeof b, "timed out after %.0f s", r.seconds);
    return b;
  }
  if (r.term_signal) {
    const char* name = sigabbrev_np(r.term_signal);
    return std::string("killed by signal ") + (name ? std::string("SIG") + name : "?") + " (" +
           std::to_string(r.term_signal) + ")";
  }
  if (r.exit_code != 0) return "exited with status " + std::to_string(r.exit_code);
  return "succeeded";
}

}  // namespace sched2cu::harness
