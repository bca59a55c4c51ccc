"""Stand-ins for the platform CLIs docs/Deploy.md uses (docker, kubectl,
faas-cli, sam): each checks the files and arguments it is given the way the
real command would need them, prints "stand-in: COMMAND ARGS ok" and fails
otherwise. Nothing is deployed. (Run with /usr/bin/python3: python3-yaml.)
"""
import os, re, sys

import yaml

tool, args = os.path.basename(sys.argv[1]), sys.argv[2:]


def fail(msg):
    sys.exit("stand-in %s: %s" % (tool, msg))


def need_file(path):
    if not os.path.isfile(path):
        fail("no file " + path)
    return path


def yaml_docs(path):
    class L(yaml.SafeLoader):
        pass
    L.add_multi_constructor("!", lambda loader, suffix, node: None)
    with open(path) as f:
        return [d for d in yaml.load_all(f, Loader=L) if d is not None]


def option(name):
    if name not in args or args.index(name) + 1 >= len(args):
        fail("missing " + name)
    return args[args.index(name) + 1]


if tool == "docker" and args[:1] == ["build"]:
    ctx = args[-1]
    with open(need_file(os.path.join(ctx, "Dockerfile"))) as f:
        for line in f:
            m = re.match(r"COPY (\S+) ", line)
            if m and not os.path.exists(os.path.join(ctx, m.group(1))):
                fail("the build context lacks " + m.group(1))
    option("-t")
elif tool == "docker" and args[:1] == ["push"]:
    pass
elif tool == "kubectl" and args[:1] == ["apply"]:
    target = option("-f")
    files = ([os.path.join(target, f) for f in sorted(os.listdir(target))]
             if os.path.isdir(target) else [target])
    for f in files:
        for d in yaml_docs(f):
            if not d.get("apiVersion") or not d.get("kind") or not d["metadata"]["name"]:
                fail(f + ": not a Kubernetes object")
elif tool == "kubectl" and args[:3] == ["create", "secret", "generic"]:
    for a in args:
        if a.startswith("--from-file="):
            need_file(a.split("=")[-1])
elif tool == "faas-cli" and args[:2] == ["secret", "create"]:
    need_file(option("--from-file"))
elif tool == "faas-cli" and args[:1] == ["deploy"]:
    (stack,) = yaml_docs(need_file(option("-f")))
    if not stack.get("functions") or stack["provider"]["name"] != "openfaas":
        fail("not an OpenFaaS stack")
elif tool == "sam" and args[:1] == ["deploy"]:
    template = need_file(option("--template-file"))
    (doc,) = yaml_docs(template)
    if doc.get("Transform") != "AWS::Serverless-2016-10-31":
        fail("not a SAM template")
    option("--stack-name")
    if "CAPABILITY_IAM" not in args:
        fail("the template creates roles: --capabilities CAPABILITY_IAM")
    base = os.path.dirname(template)
    code = os.path.join(base, doc["Globals"]["Function"]["CodeUri"])
    need_file(os.path.join(code, "bootstrap"))
else:
    fail("unexpected arguments " + " ".join(args))
print("stand-in: %s %s ok" % (tool, " ".join(args[:2])))
