//===- unum-deploy.cpp - Deployment files for FaaS platforms --------------===//
//
//   unum-deploy APPDIR --target knative|openfaas|lambda -o OUTDIR [options]
//
// Writes what a platform needs to run a compiled application (APPDIR, one
// directory per function as unumc writes it), one function per container or
// Lambda function, all sharing one data store:
//
//  * knative:  OUTDIR/app (a copy of APPDIR), OUTDIR/Dockerfile (one image:
//              unum-serve and the app; the function is chosen by
//              UNUM_FUNCTION), OUTDIR/knative/NAME.yaml (a Knative Service
//              per function, its peers' in-cluster URLs in UNUM_PEERS).
//  * openfaas: the same image, and OUTDIR/stack.yml (a function per Unum
//              function; peers are invoked through the gateway's
//              /async-function/ route, which queues them).
//  * lambda:   OUTDIR/template.yaml, an AWS SAM template: a function per Unum
//              function on the custom runtime provided.al2023 (the code in
//              OUTDIR/package: the app's function directories, and the Lambda
//              bootstrap, unum-lambda, which runs the function named by the
//              handler setting), a DynamoDB
//              table with TTL, each function's environment (its name, the
//              store URI, its peers' ARNs) and an IAM policy allowing
//              exactly the table and the functions it continues to.
//
// Nothing is deployed: docs/Deploy.md says how. Bad input gets a message and
// exit status 1, and nothing is written.
//
//===----------------------------------------------------------------------===//

#include "unum/Runtime/App.h"
#include "unum/Version.h"

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>

using namespace unum::runtime;
namespace fs = std::filesystem;

namespace {
const char *const kUsage =
    "usage: unum-deploy APPDIR --target knative|openfaas|lambda -o OUTDIR\n"
    "                   [--store URI] [--image NAME] [--namespace NS]\n"
    "                   [--gateway URL] [--ttl SECONDS] [--timeout SECONDS]\n"
    "                   [--memory MB]\n"
    "\n"
    "Writes the deployment files of the compiled application in APPDIR to\n"
    "OUTDIR (which must not exist or be empty): see docs/Deploy.md.\n"
    "\n"
    "  --target T       knative (Knative Services), openfaas (stack.yml) or\n"
    "                   lambda (an AWS SAM template with a DynamoDB table)\n"
    "  -o OUTDIR        where the files go\n"
    "  --store URI      (knative, openfaas) the store the functions share\n"
    "                   (default redis://redis:6379?ttl=86400)\n"
    "  --image NAME     (knative, openfaas) the container image (default\n"
    "                   unum-app:latest)\n"
    "  --namespace NS   (knative) the Kubernetes namespace (default default)\n"
    "  --gateway URL    (openfaas) the gateway (default\n"
    "                   http://gateway.openfaas:8080)\n"
    "  --ttl SECONDS    how long tombstones and consumed completion-set\n"
    "                   markers are kept (lambda; default 86400): longer than\n"
    "                   the platform's longest redelivery delay\n"
    "  --timeout S      a function's time limit (default 300)\n"
    "  --memory MB      (lambda) a function's memory (default 512)\n";

int fail(const std::string &msg) {
  std::cerr << "unum-deploy: error: " << msg << "\n";
  return 1;
}

/// A YAML double-quoted scalar (JSON's string syntax is one).
std::string q(const std::string &s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\')
      out += '\\', out += char(c);
    else if (c == '\n')
      out += "\\n";
    else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    } else
      out += char(c);
  }
  return out + "\"";
}

/// Each function name made into a platform name by `make`; distinct names
/// must stay distinct.
Result<std::map<std::string, std::string>>
platformNames(const App &app, const char *what,
              std::string (*make)(const std::string &)) {
  std::map<std::string, std::string> out;
  std::map<std::string, std::string> taken;
  for (const auto &[name, spec] : app.functions()) {
    std::string p = make(name);
    if (p.empty())
      return Status::error("function '" + name + "' gives an empty " + what);
    auto [it, fresh] = taken.emplace(p, name);
    if (!fresh)
      return Status::error("functions '" + it->second + "' and '" + name +
                           "' both become the " + what + " '" + p +
                           "': rename one");
    out[name] = p;
  }
  return out;
}

/// A Kubernetes / OpenFaaS name: lower-case letters, digits and '-', starting
/// with a letter, at most 63 characters.
std::string dnsName(const std::string &name) {
  std::string out;
  for (char c : name) {
    if (std::isalnum(static_cast<unsigned char>(c)))
      out += char(std::tolower(static_cast<unsigned char>(c)));
    else if (!out.empty() && out.back() != '-')
      out += '-';
  }
  while (!out.empty() && out.back() == '-')
    out.pop_back();
  if (!out.empty() && !std::isalpha(static_cast<unsigned char>(out[0])))
    out = "f-" + out;
  return out.size() > 63 ? "" : out;
}

/// A CloudFormation logical ID and Lambda name part: letters and digits.
std::string alnumName(const std::string &name) {
  std::string out;
  for (char c : name)
    if (std::isalnum(static_cast<unsigned char>(c)))
      out += c;
  return out.size() > 40 ? "" : out; // StackName-NAME within Lambda's 64
}

/// The functions `spec` continues to (its edges' targets), sorted.
std::set<std::string> peersOf(const FunctionSpec &spec) {
  std::set<std::string> out;
  for (const auto &edge : spec.config.next)
    out.insert(edge.target);
  return out;
}

struct Options {
  std::string target, out, store = "redis://redis:6379?ttl=86400",
                           image = "unum-app:latest", ns = "default",
                           gateway = "http://gateway.openfaas:8080";
  long ttl = 86400, timeout = 300, memory = 512;
};

std::string dockerfile() {
  return R"(# One image for every function of the application: unum-serve hosts the
# function named by UNUM_FUNCTION (set per function by the platform's files).
# Build context: this directory, with unum-serve copied in (docs/Deploy.md).
FROM debian:bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends \
      libsqlite3-0 libhiredis0.14 libcurl4 libssl3 libyaml-cpp0.7 \
    && rm -rf /var/lib/apt/lists/*
COPY unum-serve /usr/local/bin/unum-serve
COPY app /app
ENV UNUM_APP=/app UNUM_LISTEN=0.0.0.0:8080
EXPOSE 8080
# A mounted secret file (OpenFaaS) or UNUM_HTTP_SECRET (Knative) signs and
# checks the calls between functions.
ENTRYPOINT ["/bin/sh", "-c", "exec unum-serve ${UNUM_SECRET_FILE:+--secret-file \"$UNUM_SECRET_FILE\"}"]
)";
}

std::string knativeService(const std::string &fn, const FunctionSpec &spec,
                           const std::map<std::string, std::string> &names,
                           const Options &o) {
  std::string peers;
  for (const std::string &p : peersOf(spec))
    peers += (peers.empty() ? "" : ",") + p + "=http://" + names.at(p) + "." +
             o.ns + ".svc.cluster.local/";
  std::ostringstream y;
  y << "# The Unum function " << q(fn) << " as a Knative Service.\n"
    << "apiVersion: serving.knative.dev/v1\n"
    << "kind: Service\n"
    << "metadata:\n"
    << "  name: " << q(names.at(fn)) << "\n"
    << "  namespace: " << q(o.ns) << "\n"
    << "spec:\n"
    << "  template:\n"
    << "    spec:\n"
    << "      timeoutSeconds: " << o.timeout << "\n"
    << "      containers:\n"
    << "        - image: " << q(o.image) << "\n"
    << "          ports:\n"
    << "            - containerPort: 8080\n"
    << "          readinessProbe:\n"
    << "            httpGet:\n"
    << "              path: /healthz\n"
    << "          env:\n"
    << "            - name: UNUM_FUNCTION\n"
    << "              value: " << q(fn) << "\n"
    << "            - name: UNUM_STORE\n"
    << "              value: " << q(o.store) << "\n"
    << "            - name: UNUM_PEERS\n"
    << "              value: " << q(peers) << "\n"
    << "            - name: UNUM_HTTP_SECRET\n"
    << "              valueFrom:\n"
    << "                secretKeyRef:\n"
    << "                  name: unum-http-secret\n"
    << "                  key: secret\n";
  return y.str();
}

std::string openfaasStack(const App &app,
                          const std::map<std::string, std::string> &names,
                          const Options &o) {
  std::ostringstream y;
  y << "# The application's functions on OpenFaaS (faas-cli deploy -f "
       "stack.yml).\n"
    << "version: 1.0\n"
    << "provider:\n"
    << "  name: openfaas\n"
    << "  gateway: " << q(o.gateway) << "\n"
    << "functions:\n";
  for (const auto &[fn, spec] : app.functions()) {
    std::string peers;
    for (const std::string &p : peersOf(spec))
      peers += (peers.empty() ? "" : ",") + p + "=" + o.gateway +
               "/async-function/" + names.at(p);
    y << "  " << q(names.at(fn)) << ":\n"
      << "    image: " << q(o.image) << "\n"
      << "    environment:\n"
      << "      UNUM_FUNCTION: " << q(fn) << "\n"
      << "      UNUM_STORE: " << q(o.store) << "\n"
      << "      UNUM_PEERS: " << q(peers) << "\n"
      << "      UNUM_SECRET_FILE: /var/openfaas/secrets/unum-http-secret\n"
      << "      exec_timeout: " << q(std::to_string(o.timeout) + "s") << "\n"
      << "      read_timeout: " << q(std::to_string(o.timeout) + "s") << "\n"
      << "      write_timeout: " << q(std::to_string(o.timeout) + "s") << "\n"
      << "    secrets:\n"
      << "      - unum-http-secret\n";
  }
  return y.str();
}

std::string samTemplate(const App &app,
                        const std::map<std::string, std::string> &ids,
                        const Options &o) {
  auto arn = [&](const std::string &fn) {
    return "arn:aws:lambda:${AWS::Region}:${AWS::AccountId}:function:${AWS::"
           "StackName}-" +
           ids.at(fn);
  };
  std::ostringstream y;
  y << "# The application on AWS Lambda (sam deploy): one function per Unum\n"
    << "# function, the DynamoDB table they share, and least-privilege "
       "roles.\n"
    << "AWSTemplateFormatVersion: \"2010-09-09\"\n"
    << "Transform: AWS::Serverless-2016-10-31\n"
    << "Description: " << q("Unum application (unum-deploy)") << "\n"
    << "Globals:\n"
    << "  Function:\n"
    << "    Runtime: provided.al2023\n"
    << "    CodeUri: package/\n"
    << "    Timeout: " << o.timeout << "\n"
    << "    MemorySize: " << o.memory << "\n"
    << "Resources:\n"
    << "  UnumTable:\n"
    << "    Type: AWS::DynamoDB::Table\n"
    << "    Properties:\n"
    << "      BillingMode: PAY_PER_REQUEST\n"
    << "      AttributeDefinitions:\n"
    << "        - AttributeName: pk\n"
    << "          AttributeType: S\n"
    << "        - AttributeName: sk\n"
    << "          AttributeType: S\n"
    << "      KeySchema:\n"
    << "        - AttributeName: pk\n"
    << "          KeyType: HASH\n"
    << "        - AttributeName: sk\n"
    << "          KeyType: RANGE\n"
    << "      TimeToLiveSpecification:\n"
    << "        AttributeName: ttl\n"
    << "        Enabled: true\n";
  for (const auto &[fn, spec] : app.functions()) {
    std::set<std::string> peers = peersOf(spec);
    std::string peerList;
    for (const std::string &p : peers)
      peerList += (peerList.empty() ? "" : ",") + p + "=" + arn(p);
    y << "  " << ids.at(fn) << "Function:\n"
      << "    Type: AWS::Serverless::Function\n"
      << "    Properties:\n"
      << "      Handler: " << q(fn) << "\n"
      << "      FunctionName: !Sub " << q("${AWS::StackName}-" + ids.at(fn))
      << "\n"
      << "      Environment:\n"
      << "        Variables:\n"
      << "          UNUM_FUNCTION: " << q(fn) << "\n"
      << "          UNUM_STORE: !Sub "
      << q("dynamodb:///${UnumTable}?region=${AWS::Region}&ttl=" +
           std::to_string(o.ttl))
      << "\n"
      << "          UNUM_PEERS: !Sub " << q(peerList) << "\n"
      << "      EventInvokeConfig:\n"
      << "        MaximumRetryAttempts: 2\n"
      << "        MaximumEventAgeInSeconds: "
      << std::min<long>(21600, std::max<long>(60, o.ttl / 2)) << "\n"
      << "      Policies:\n"
      << "        - Version: \"2012-10-17\"\n"
      << "          Statement:\n"
      << "            - Effect: Allow\n"
      << "              Action:\n";
    // What lib/Runtime/DynamoStore.cpp calls (CreateTable only with
    // ?create=1): the outbox is read with Query. Its one Scan (the layout
    // check of a table without a layout marker, at most one item) may read
    // the partition key only.
    for (const char *a : {"DescribeTable", "GetItem", "BatchGetItem", "PutItem",
                          "UpdateItem", "BatchWriteItem", "Query"})
      y << "                - dynamodb:" << a << "\n";
    y << "              Resource: !GetAtt UnumTable.Arn\n"
      << "            - Effect: Allow\n"
      << "              Action: dynamodb:Scan\n"
      << "              Resource: !GetAtt UnumTable.Arn\n"
      << "              Condition:\n"
      << "                ForAllValues:StringEquals:\n"
      << "                  dynamodb:Attributes: [pk]\n"
      << "                StringEquals:\n"
      << "                  dynamodb:Select: SPECIFIC_ATTRIBUTES\n";
    if (!peers.empty()) {
      y << "            - Effect: Allow\n"
        << "              Action: lambda:InvokeFunction\n"
        << "              Resource:\n";
      for (const std::string &p : peers)
        y << "                - !Sub " << q(arn(p)) << "\n";
    }
  }
  y << "Outputs:\n"
    << "  Table:\n"
    << "    Value: !Ref UnumTable\n";
  for (const auto &[fn, spec] : app.functions())
    if (spec.config.start)
      y << "  " << ids.at(fn) << "Arn:\n"
        << "    Description: " << q("start the workflow here: " + fn) << "\n"
        << "    Value: !GetAtt " << ids.at(fn) << "Function.Arn\n";
  return y.str();
}

Status writeFile(const fs::path &path, const std::string &text) {
  std::error_code ec;
  fs::create_directories(path.parent_path(), ec);
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f << text;
  f.close();
  if (!f)
    return Status::error("cannot write '" + path.string() + "'");
  return Status::ok();
}
} // namespace

int main(int argc, char **argv) {
  Options o;
  std::string appDir;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&](const char *name) -> const char * {
      if (i + 1 >= argc) {
        fail(std::string(name) + " needs a value");
        std::exit(1);
      }
      return argv[++i];
    };
    auto number = [&](const char *name, long lo, long hi) {
      const char *v = value(name);
      char *end = nullptr;
      long n = std::strtol(v, &end, 10);
      if (!*v || *end || n < lo || n > hi) {
        fail(std::string(name) + ": expected an integer from " +
             std::to_string(lo) + " to " + std::to_string(hi) + ", got '" + v +
             "'");
        std::exit(1);
      }
      return n;
    };
    if (arg == "--help" || arg == "-h") {
      std::cout << kUsage;
      return 0;
    } else if (arg == "--version") {
      std::cout << "unum-deploy (Unum) " UNUM_VERSION_STRING "\n";
      return 0;
    } else if (arg == "--target") {
      o.target = value("--target");
    } else if (arg == "-o") {
      o.out = value("-o");
    } else if (arg == "--store") {
      o.store = value("--store");
    } else if (arg == "--image") {
      o.image = value("--image");
    } else if (arg == "--namespace") {
      o.ns = value("--namespace");
    } else if (arg == "--gateway") {
      o.gateway = value("--gateway");
    } else if (arg == "--ttl") {
      o.ttl = number("--ttl", 60, 10 * 365 * 86400L);
    } else if (arg == "--timeout") {
      o.timeout = number("--timeout", 1, 900);
    } else if (arg == "--memory") {
      o.memory = number("--memory", 128, 10240);
    } else if (!arg.empty() && arg[0] == '-') {
      std::cerr << kUsage;
      return fail("unknown option '" + arg + "'");
    } else if (appDir.empty()) {
      appDir = arg;
    } else {
      return fail("more than one APPDIR ('" + appDir + "', '" + arg + "')");
    }
  }
  if (appDir.empty() || o.target.empty() || o.out.empty()) {
    std::cerr << kUsage;
    return fail("APPDIR, --target and -o are required");
  }
  if (o.target != "knative" && o.target != "openfaas" && o.target != "lambda")
    return fail("--target: expected knative, openfaas or lambda, got '" +
                o.target + "'");
  if (dnsName(o.ns) != o.ns)
    return fail("--namespace: '" + o.ns + "' is not a Kubernetes name");
  std::error_code ec;
  if (fs::exists(o.out, ec) && !fs::is_empty(o.out, ec))
    return fail("-o: '" + o.out + "' exists and is not empty");
  auto app = App::load(appDir);
  if (!app)
    return fail(app.getStatus().message());

  std::map<std::string, std::string> files;
  if (o.target == "lambda") {
    auto ids = platformNames(*app, "Lambda function name", alnumName);
    if (!ids)
      return fail(ids.getStatus().message());
    files["template.yaml"] = samTemplate(*app, *ids, o);
  } else {
    auto names = platformNames(*app, "service name", dnsName);
    if (!names)
      return fail(names.getStatus().message());
    files["Dockerfile"] = dockerfile();
    if (o.target == "knative")
      for (const auto &[fn, spec] : app->functions())
        files["knative/" + names->at(fn) + ".yaml"] =
            knativeService(fn, spec, *names, o);
    else
      files["stack.yml"] = openfaasStack(*app, *names, o);
  }
  // The app goes next to the files: into the image, or the Lambda package.
  fs::path appCopy =
      fs::path(o.out) / (o.target == "lambda" ? "package" : "app");
  fs::create_directories(appCopy, ec);
  if (!ec)
    fs::copy(appDir, appCopy,
             fs::copy_options::recursive | fs::copy_options::copy_symlinks, ec);
  if (ec)
    return fail("cannot copy '" + appDir + "' to '" + appCopy.string() +
                "': " + ec.message());
  for (const auto &[name, text] : files)
    if (Status s = writeFile(fs::path(o.out) / name, text); !s)
      return fail(s.message());
  for (const auto &[name, text] : files)
    std::cout << (fs::path(o.out) / name).string() << "\n";
  return 0;
}
