//===- Subprocess.cpp - User code as an executable (JSON in, JSON out) ----===//
//
// The child gets its input on stdin and writes its output to stdout; side
// effects go to a third pipe, UNUM_EFFECTS_FD (fd 3), one JSON value per
// line, so that staging them never disturbs the output. All three are
// drained together: a child blocked on a full pipe would never exit.
//
//===----------------------------------------------------------------------===//

#include "unum/Runtime/Handler.h"

#include "unum/Config/Document.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <optional>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

using namespace unum::runtime;
namespace config = unum::config;

namespace {
constexpr size_t kMaxOutput = size_t(256) << 20;
/// The child's end of the effects pipe, named by UNUM_EFFECTS_FD.
constexpr int kEffectsFd = 3;

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
    std::string out, err, fx;
    int status = 0;
    bool timedOut = false;
    std::string problem = run(in, ctx, out, err, fx, status, timedOut);
    if (timedOut)
      return HandlerResult::failure(exe + " ran longer than its timeout (" +
                                        std::to_string(ctx.timeout) +
                                        " s) and was killed",
                                    "States.Timeout");
    if (!problem.empty())
      return HandlerResult::failure(exe + ": " + problem);
    if (WIFSIGNALED(status))
      return HandlerResult::failure(exe + " killed by signal " +
                                    std::to_string(WTERMSIG(status)) +
                                    tail(err));
    if (WEXITSTATUS(status) != 0) {
      // A named error, as a Lambda function reports one.
      if (std::optional<HandlerResult> named = namedError(out))
        return std::move(*named);
      return HandlerResult::failure(exe + " exited with status " +
                                    std::to_string(WEXITSTATUS(status)) +
                                    tail(err));
    }
    auto v = parseJsonValue(out, exe + " output");
    if (!v)
      return HandlerResult::failure(v.getStatus().message() + tail(err));
    // Staged only now: a failed call's effects are dropped with it.
    if (!fx.empty())
      if (std::string bad = parseEffects(fx, ctx.effects); !bad.empty())
        return HandlerResult::failure(exe + ": " + bad);
    return HandlerResult::success(v.take());
  }

private:
  /// A failed child's stdout that is a JSON object with a string
  /// "errorType": the error's name, and its "errorMessage" (a string, ""
  /// when absent) the cause (the Lambda convention).
  static std::optional<HandlerResult> namedError(const std::string &out) {
    if (out.find("errorType") == std::string::npos)
      return std::nullopt;
    auto v = parseJsonValue(out, "error");
    if (!v || !v->isObject())
      return std::nullopt;
    const Value *type = v->find("errorType");
    if (!type || !type->isString() || type->getString().empty())
      return std::nullopt;
    const Value *message = v->find("errorMessage");
    std::string cause =
        message && message->isString() ? message->getString() : "";
    return HandlerResult::failure(std::move(cause), type->getString());
  }

  /// Appends the effects written to UNUM_EFFECTS_FD, one JSON value per line
  /// (blank lines are skipped), to `effects`; all or nothing. Returns what
  /// is wrong, naming the line, or "".
  static std::string parseEffects(const std::string &text,
                                  std::vector<Value> &effects) {
    std::vector<Value> parsed;
    unsigned line = 0;
    for (size_t pos = 0; pos < text.size();) {
      size_t end = text.find('\n', pos);
      if (end == std::string::npos)
        end = text.size();
      std::string_view l(text.data() + pos, end - pos);
      pos = end + 1;
      ++line;
      if (l.find_first_not_of(" \t\r") == std::string_view::npos)
        continue;
      config::DiagnosticSink diags;
      std::vector<config::Node> docs;
      std::string where =
          "effect on line " + std::to_string(line) + " of UNUM_EFFECTS_FD";
      if (!config::parseJson(l, docs, diags)) {
        for (const config::Diagnostic &d : diags.diagnostics())
          if (d.severity == config::Diagnostic::Severity::Error)
            return where + " is not valid JSON (column " +
                   std::to_string(d.loc.col) + ": " + d.message + ")";
        return where + " is not valid JSON";
      }
      if (docs.size() != 1)
        return where + " holds " + std::to_string(docs.size()) +
               " JSON values; write one per line";
      parsed.push_back(valueOf(std::move(docs[0])));
    }
    for (Value &v : parsed)
      effects.push_back(std::move(v));
    return "";
  }

  static std::string tail(const std::string &err) {
    if (err.empty())
      return "";
    std::string t = err.size() > 2000 ? err.substr(err.size() - 2000) : err;
    while (!t.empty() && (t.back() == '\n' || t.back() == '\r'))
      t.pop_back();
    return ": " + t;
  }

  std::string run(const std::string &in, const Context &ctx, std::string &out,
                  std::string &err, std::string &fx, int &status,
                  bool &timedOut) {
    int pin[2] = {-1, -1}, pout[2] = {-1, -1}, perr[2] = {-1, -1},
        pfx[2] = {-1, -1};
    bool piped = !pipe2(pin, O_CLOEXEC) && !pipe2(pout, O_CLOEXEC) &&
                 !pipe2(perr, O_CLOEXEC) && !pipe2(pfx, O_CLOEXEC);
    int pipeErrno = errno;
    Fd inR{pin[0]}, inW{pin[1]}, outR{pout[0]}, outW{pout[1]}, errR{perr[0]},
        errW{perr[1]}, fxR{pfx[0]}, fxW{pfx[1]};
    if (!piped)
      return std::string("pipe: ") + std::strerror(pipeErrno);
    // dup2 onto the same number would keep close-on-exec: move it first.
    if (fxW.fd == kEffectsFd) {
      int moved = fcntl(fxW.fd, F_DUPFD_CLOEXEC, kEffectsFd + 1);
      if (moved < 0)
        return std::string("fcntl: ") + std::strerror(errno);
      fxW.reset();
      fxW.fd = moved;
    }

    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, inR.fd, 0);
    posix_spawn_file_actions_adddup2(&fa, outW.fd, 1);
    posix_spawn_file_actions_adddup2(&fa, errW.fd, 2);
    posix_spawn_file_actions_adddup2(&fa, fxW.fd, kEffectsFd);
    if (!dir.empty())
      posix_spawn_file_actions_addchdir_np(&fa, dir.c_str());

    std::vector<std::string> env;
    for (char **e = environ; *e; ++e)
      if (std::strncmp(*e, "UNUM_", 5) != 0)
        env.emplace_back(*e);
    env.push_back(std::string("UNUM_FUNCTION=").append(ctx.function));
    env.push_back(std::string("UNUM_INSTANCE=").append(ctx.instance));
    env.push_back(std::string("UNUM_SESSION=").append(ctx.session));
    env.push_back("UNUM_ATTEMPT=" + std::to_string(ctx.attempt));
    env.push_back("UNUM_EFFECTS_FD=" + std::to_string(kEffectsFd));
    std::vector<char *> envp;
    for (std::string &e : env)
      envp.push_back(e.data());
    envp.push_back(nullptr);
    std::string exeCopy = exe;
    char *argv[] = {exeCopy.data(), nullptr};

    // The handler starts with no signal blocked, whatever this thread
    // blocks (a function host waits for SIGTERM with sigwait).
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    sigset_t none;
    sigemptyset(&none);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK);
    pid_t pid;
    int rc = posix_spawn(&pid, exe.c_str(), &fa, &attr, argv, envp.data());
    posix_spawnattr_destroy(&attr);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0)
      return std::string("cannot start: ") + std::strerror(rc);
    inR.reset();
    outW.reset();
    errW.reset();
    fxW.reset();

    // Feed stdin and drain stdout, stderr and the effects together so that
    // no side blocks on a full pipe.
    struct Sink {
      Fd &src;
      std::string &dst;
      const char *what;
    };
    Sink sinks[] = {
        {outR, out, "output"}, {errR, err, "stderr"}, {fxR, fx, "effects"}};
    size_t written = 0;
    if (in.empty())
      inW.reset();
    fcntl(inW.fd, F_SETFL, O_NONBLOCK);
    char buf[65536];
    std::string problem;
    using Clock = std::chrono::steady_clock;
    const auto deadline =
        Clock::now() + std::chrono::duration_cast<Clock::duration>(
                           std::chrono::duration<double>(std::min(
                               ctx.timeout, Context::kMaxWaitSeconds)));
    while (outR.fd >= 0 || errR.fd >= 0 || fxR.fd >= 0) {
      pollfd fds[4];
      Sink *of[4] = {};
      int n = 0;
      if (inW.fd >= 0)
        fds[n++] = {inW.fd, POLLOUT, 0};
      for (Sink &k : sinks)
        if (k.src.fd >= 0) {
          of[n] = &k;
          fds[n++] = {k.src.fd, POLLIN, 0};
        }
      int waitMs = -1;
      if (ctx.timeout > 0) {
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
            deadline - Clock::now());
        if (left.count() <= 0) {
          // Out of time: kill it; its pipes (perhaps held by its children)
          // are closed on our side.
          timedOut = true;
          kill(pid, SIGKILL);
          for (Sink &s : sinks)
            s.src.reset();
          break;
        }
        waitMs = int(std::min<long long>(left.count() + 1, 1 << 30));
      }
      if (poll(fds, n, waitMs) < 0) {
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
        Sink &k = *of[i];
        if (k.src.fd < 0)
          continue; // closed above, after the child was killed
        ssize_t r = ::read(k.src.fd, buf, sizeof(buf));
        if (r > 0) {
          k.dst.append(buf, size_t(r));
          if (k.dst.size() > kMaxOutput) {
            problem = std::string(k.what) + " larger than 256 MiB";
            kill(pid, SIGKILL);
            for (Sink &s : sinks)
              s.src.reset();
          }
        } else if (r == 0 || (errno != EAGAIN && errno != EINTR)) {
          k.src.reset();
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
