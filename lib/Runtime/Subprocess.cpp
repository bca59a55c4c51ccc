//===- Subprocess.cpp - User code as an executable (JSON in, JSON out) ----===//

#include "unum/Runtime/Handler.h"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

using namespace unum::runtime;

namespace {
constexpr size_t kMaxOutput = size_t(256) << 20;

struct Fd {
  int fd = -1;
  ~Fd() { reset(); }
  void reset() {
    if (fd >= 0)
      ::close(fd);
    fd = -1;
  }
};

class SubprocessHandler final : public Handler {
public:
  SubprocessHandler(std::string exe, std::string dir)
      : exe(std::move(exe)), dir(std::move(dir)) {}

  HandlerResult call(const Value &input, Context &ctx) override {
    std::string in = toJson(input);
    std::string out, err;
    int status = 0;
    std::string problem = run(in, ctx, out, err, status);
    if (!problem.empty())
      return HandlerResult::failure(exe + ": " + problem);
    if (WIFSIGNALED(status))
      return HandlerResult::failure(exe + " killed by signal " +
                                    std::to_string(WTERMSIG(status)) +
                                    tail(err));
    if (WEXITSTATUS(status) != 0)
      return HandlerResult::failure(exe + " exited with status " +
                                    std::to_string(WEXITSTATUS(status)) +
                                    tail(err));
    auto v = parseJsonValue(out, exe + " output");
    if (!v)
      return HandlerResult::failure(v.getStatus().message() + tail(err));
    return HandlerResult::success(v.take());
  }

private:
  static std::string tail(const std::string &err) {
    if (err.empty())
      return "";
    std::string t = err.size() > 2000 ? err.substr(err.size() - 2000) : err;
    while (!t.empty() && (t.back() == '\n' || t.back() == '\r'))
      t.pop_back();
    return ": " + t;
  }

  std::string run(const std::string &in, const Context &ctx, std::string &out,
                  std::string &err, int &status) {
    int pin[2], pout[2], perr[2];
    if (pipe2(pin, O_CLOEXEC) || pipe2(pout, O_CLOEXEC) ||
        pipe2(perr, O_CLOEXEC))
      return std::string("pipe: ") + std::strerror(errno);
    Fd inR{pin[0]}, inW{pin[1]}, outR{pout[0]}, outW{pout[1]}, errR{perr[0]},
        errW{perr[1]};

    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, inR.fd, 0);
    posix_spawn_file_actions_adddup2(&fa, outW.fd, 1);
    posix_spawn_file_actions_adddup2(&fa, errW.fd, 2);
    if (!dir.empty())
      posix_spawn_file_actions_addchdir_np(&fa, dir.c_str());

    std::vector<std::string> env;
    for (char **e = environ; *e; ++e)
      if (std::strncmp(*e, "UNUM_", 5) != 0)
        env.emplace_back(*e);
    env.push_back("UNUM_FUNCTION=" + ctx.function);
    env.push_back("UNUM_INSTANCE=" + ctx.instance);
    env.push_back("UNUM_SESSION=" + ctx.session);
    env.push_back("UNUM_ATTEMPT=" + std::to_string(ctx.attempt));
    std::vector<char *> envp;
    for (std::string &e : env)
      envp.push_back(e.data());
    envp.push_back(nullptr);
    std::string exeCopy = exe;
    char *argv[] = {exeCopy.data(), nullptr};

    pid_t pid;
    int rc = posix_spawn(&pid, exe.c_str(), &fa, nullptr, argv, envp.data());
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0)
      return std::string("cannot start: ") + std::strerror(rc);
    inR.reset();
    outW.reset();
    errW.reset();

    // Feed stdin and drain stdout/stderr together so neither side blocks.
    size_t written = 0;
    if (in.empty())
      inW.reset();
    fcntl(inW.fd, F_SETFL, O_NONBLOCK);
    char buf[65536];
    std::string problem;
    while (outR.fd >= 0 || errR.fd >= 0) {
      pollfd fds[3];
      int n = 0;
      if (inW.fd >= 0)
        fds[n++] = {inW.fd, POLLOUT, 0};
      if (outR.fd >= 0)
        fds[n++] = {outR.fd, POLLIN, 0};
      if (errR.fd >= 0)
        fds[n++] = {errR.fd, POLLIN, 0};
      if (poll(fds, n, -1) < 0) {
        if (errno == EINTR)
          continue;
        problem = std::string("poll: ") + std::strerror(errno);
        break;
      }
      for (int i = 0; i < n; ++i) {
        if (!fds[i].revents)
          continue;
        if (fds[i].fd == inW.fd) {
          ssize_t w = ::write(inW.fd, in.data() + written, in.size() - written);
          if (w > 0)
            written += size_t(w);
          if (w < 0 && errno != EAGAIN && errno != EINTR)
            inW.reset(); // the child closed stdin early; not our problem
          else if (written == in.size())
            inW.reset();
          continue;
        }
        Fd &src = fds[i].fd == outR.fd ? outR : errR;
        std::string &dst = &src == &outR ? out : err;
        ssize_t r = ::read(src.fd, buf, sizeof(buf));
        if (r > 0) {
          dst.append(buf, size_t(r));
          if (dst.size() > kMaxOutput) {
            problem = "output larger than 256 MiB";
            kill(pid, SIGKILL);
            outR.reset();
            errR.reset();
          }
        } else if (r == 0 || (errno != EAGAIN && errno != EINTR)) {
          src.reset();
        }
      }
    }
    inW.reset();
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    return problem;
  }

  std::string exe, dir;
};
} // namespace

std::shared_ptr<Handler>
unum::runtime::makeSubprocessHandler(std::string executable,
                                     std::string workingDir) {
  // A child that exits without reading its stdin must not kill us by SIGPIPE.
  static bool once = [] {
    std::signal(SIGPIPE, SIG_IGN);
    return true;
  }();
  (void)once;
  return std::make_shared<SubprocessHandler>(std::move(executable),
                                             std::move(workingDir));
}
