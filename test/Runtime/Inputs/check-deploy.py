"""Checks the files unum-deploy wrote against the application they deploy.

usage: /usr/bin/python3 check-deploy.py knative|openfaas|lambda OUTDIR APPDIR
                         [DynamoStore.cpp]

Parses them with python3-yaml and checks the structure each platform
requires and every cross-reference: each function of APPDIR (its
unum_config.json) has its service / Lambda function, with its name in
UNUM_FUNCTION, the store, and as peers exactly the functions it continues to,
named as the platform names them; the SAM template's table, TTL, IAM policy
(exactly the table and the peers; with the store's source, exactly the
DynamoDB operations it calls, and a Scan of keys only) and intrinsic functions (!Sub, !GetAtt,
!Ref name resources that exist, and the template reads back the same after
a dump). Prints "OK" and a summary, or the first problem and exits 1.
"""
import json, os, re, sys

import yaml


class Tag:
    """A CloudFormation intrinsic (!Sub "...", !GetAtt A.B, !Ref A)."""

    def __init__(self, tag, value):
        self.tag, self.value = tag, value

    def __eq__(self, other):
        return isinstance(other, Tag) and (self.tag, self.value) == (other.tag, other.value)

    def __repr__(self):
        return "%s %r" % (self.tag, self.value)


class Loader(yaml.SafeLoader):
    pass


class Dumper(yaml.SafeDumper):
    pass


for name in ("!Sub", "!GetAtt", "!Ref"):
    Loader.add_constructor(name, lambda loader, node, name=name:
                           Tag(name, loader.construct_scalar(node)))
Dumper.add_representer(Tag, lambda d, t: d.represent_scalar(t.tag, t.value))


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def check(cond, msg):
    if not cond:
        fail(msg)


def app_functions(appdir):
    fns = {}
    for d in sorted(os.listdir(appdir)):
        p = os.path.join(appdir, d, "unum_config.json")
        if os.path.isfile(p):
            with open(p) as f:
                c = json.load(f)
            nxt = c.get("Next", [])
            nxt = nxt if isinstance(nxt, list) else [nxt]
            fns[c["Name"]] = {"peers": sorted({e["Name"] for e in nxt}),
                              "start": c.get("Start", False), "dir": d}
    check(fns, "no functions in " + appdir)
    return fns


def peers_of(value):
    return dict(e.split("=", 1) for e in value.split(",")) if value else {}


def check_app_copy(appdir, copy, fns):
    for name, f in fns.items():
        check(os.path.isfile(os.path.join(copy, f["dir"], "unum_config.json")),
              "the app copy %s lacks %s" % (copy, f["dir"]))


def check_dockerfile(out):
    with open(os.path.join(out, "Dockerfile")) as f:
        text = f.read()
    for needed in ("FROM ", "COPY unum-serve ", "COPY app /app", "ENTRYPOINT "):
        check(needed in text, "Dockerfile lacks " + needed)


def knative(out, fns):
    check_dockerfile(out)
    services = {}
    for fname in sorted(os.listdir(os.path.join(out, "knative"))):
        with open(os.path.join(out, "knative", fname)) as f:
            doc = yaml.safe_load(f)
        check(doc["apiVersion"] == "serving.knative.dev/v1" and doc["kind"] == "Service",
              fname + ": not a Knative Service")
        name = doc["metadata"]["name"]
        check(re.fullmatch(r"[a-z]([-a-z0-9]{0,61}[a-z0-9])?", name), "bad name " + name)
        check(fname == name + ".yaml", fname + " holds " + name)
        spec = doc["spec"]["template"]["spec"]
        check(isinstance(spec["timeoutSeconds"], int), name + ": timeoutSeconds")
        (c,) = spec["containers"]
        env = {e["name"]: e for e in c["env"]}
        check(c["ports"][0]["containerPort"] == 8080, name + ": port")
        check(env["UNUM_HTTP_SECRET"]["valueFrom"]["secretKeyRef"]["name"], name + ": secret")
        services[env["UNUM_FUNCTION"]["value"]] = (name, doc["metadata"]["namespace"], env)
    check(set(services) == set(fns), "services %s != functions %s" % (sorted(services), sorted(fns)))
    for fn, (name, ns, env) in services.items():
        check(env["UNUM_STORE"]["value"], fn + ": no store")
        peers = peers_of(env["UNUM_PEERS"]["value"])
        check(sorted(peers) == fns[fn]["peers"], fn + ": peers " + str(sorted(peers)))
        for p, url in peers.items():
            check(url == "http://%s.%s.svc.cluster.local/" % (services[p][0], ns),
                  fn + ": peer URL " + url)
    check_app_copy(None, os.path.join(out, "app"), fns)
    return "%d Knative Services" % len(services)


def openfaas(out, fns):
    check_dockerfile(out)
    with open(os.path.join(out, "stack.yml")) as f:
        doc = yaml.safe_load(f)
    check(doc["provider"]["name"] == "openfaas", "provider")
    gateway = doc["provider"]["gateway"]
    byfn = {}
    for name, f in doc["functions"].items():
        check(re.fullmatch(r"[a-z]([-a-z0-9]{0,61}[a-z0-9])?", name), "bad name " + name)
        check(f["image"], name + ": image")
        env = f["environment"]
        check(os.path.basename(env["UNUM_SECRET_FILE"]) in f["secrets"], name + ": secret")
        for t in ("exec_timeout", "read_timeout", "write_timeout"):
            check(re.fullmatch(r"\d+s", env[t]), name + ": " + t)
        byfn[env["UNUM_FUNCTION"]] = (name, env)
    check(set(byfn) == set(fns), "functions %s != %s" % (sorted(byfn), sorted(fns)))
    for fn, (name, env) in byfn.items():
        peers = peers_of(env["UNUM_PEERS"])
        check(sorted(peers) == fns[fn]["peers"], fn + ": peers")
        for p, url in peers.items():
            check(url == gateway + "/async-function/" + byfn[p][0], fn + ": peer URL " + url)
    check_app_copy(None, os.path.join(out, "app"), fns)
    return "%d OpenFaaS functions" % len(byfn)


PSEUDO = {"AWS::Region", "AWS::AccountId", "AWS::StackName", "AWS::Partition"}


def lambda_(out, fns):
    path = os.path.join(out, "template.yaml")
    with open(path) as f:
        doc = yaml.load(f, Loader=Loader)
    again = yaml.load(yaml.dump(doc, Dumper=Dumper), Loader=Loader)
    check(again == doc, "the template does not read back the same after a dump")
    check(doc["Transform"] == "AWS::Serverless-2016-10-31", "Transform")
    check(str(doc["AWSTemplateFormatVersion"]) == "2010-09-09", "format version")
    res = doc["Resources"]
    g = doc["Globals"]["Function"]
    check(g["Runtime"] == "provided.al2023", "Globals: runtime")
    check(0 < g["Timeout"] <= 900, "Globals: Timeout")
    table = res["UnumTable"]
    check(table["Type"] == "AWS::DynamoDB::Table", "UnumTable type")
    tp = table["Properties"]
    check([(k["AttributeName"], k["KeyType"]) for k in tp["KeySchema"]] ==
          [("pk", "HASH"), ("sk", "RANGE")], "table key schema")
    check({(a["AttributeName"], a["AttributeType"]) for a in tp["AttributeDefinitions"]} ==
          {("pk", "S"), ("sk", "S")}, "attribute definitions")
    check(tp["TimeToLiveSpecification"] == {"AttributeName": "ttl", "Enabled": True}, "TTL")

    # Every intrinsic names something that exists.
    def walk(v):
        if isinstance(v, Tag):
            yield v
        elif isinstance(v, dict):
            for x in v.values():
                yield from walk(x)
        elif isinstance(v, list):
            for x in v:
                yield from walk(x)
    for t in walk(doc):
        if t.tag == "!Ref":
            check(t.value in res, "!Ref " + t.value)
        elif t.tag == "!GetAtt":
            r, _, attr = t.value.partition(".")
            check(r in res and attr == "Arn", "!GetAtt " + t.value)
        else:
            for ref in re.findall(r"\$\{([^}]*)\}", t.value):
                check(ref in res or ref in PSEUDO, "!Sub names ${%s}" % ref)

    byfn, names = {}, {}
    for rid, r in res.items():
        if r["Type"] != "AWS::Serverless::Function":
            continue
        p = r["Properties"]
        env = p["Environment"]["Variables"]
        byfn[env["UNUM_FUNCTION"]] = (rid, p, env)
        check(isinstance(p["FunctionName"], Tag) and p["FunctionName"].tag == "!Sub", rid + ": name")
        names[p["FunctionName"].value] = env["UNUM_FUNCTION"]
    check(set(byfn) == set(fns), "functions %s != %s" % (sorted(byfn), sorted(fns)))
    arn_prefix = "arn:aws:lambda:${AWS::Region}:${AWS::AccountId}:function:"
    for fn, (rid, p, env) in byfn.items():
        # unum-lambda runs the function its handler setting names.
        check(p["Handler"] == fn, fn + ": Handler " + str(p.get("Handler")))
        store = env["UNUM_STORE"]
        check(isinstance(store, Tag) and
              re.fullmatch(r"dynamodb:///\$\{UnumTable\}\?region=\$\{AWS::Region\}&ttl=\d+",
                           store.value), fn + ": store " + repr(store))
        peers = peers_of(env["UNUM_PEERS"].value)
        check(sorted(peers) == fns[fn]["peers"], fn + ": peers " + str(sorted(peers)))
        for peer, arn in peers.items():
            check(arn.startswith(arn_prefix) and names.get(arn[len(arn_prefix):]) == peer,
                  fn + ": peer ARN " + arn)
        ev = p["EventInvokeConfig"]
        check(0 <= ev["MaximumRetryAttempts"] <= 2 and
              60 <= ev["MaximumEventAgeInSeconds"] <= 21600, fn + ": EventInvokeConfig")
        ttl = int(store.value.rsplit("=", 1)[1])
        check(ttl > ev["MaximumEventAgeInSeconds"], fn + ": TTL shorter than redelivery")
        (policy,) = p["Policies"]
        allowed, scans = {}, []
        for st in policy["Statement"]:
            check(st["Effect"] == "Allow", fn + ": policy effect")
            acts = st["Action"] if isinstance(st["Action"], list) else [st["Action"]]
            rs = st["Resource"] if isinstance(st["Resource"], list) else [st["Resource"]]
            if "Condition" in st:
                # Only the store's layout check, which reads the partition
                # key of at most one item, is granted a Scan.
                check(acts == ["dynamodb:Scan"] and st["Condition"] == {
                    "ForAllValues:StringEquals": {"dynamodb:Attributes": ["pk"]},
                    "StringEquals": {"dynamodb:Select": "SPECIFIC_ATTRIBUTES"}},
                    fn + ": conditional statement " + repr(st))
                scans.extend(rs)
                continue
            for a in acts:
                allowed.setdefault(a, []).extend(rs)
        ddb = {a for a in allowed if a.startswith("dynamodb:")}
        check(all(allowed[a] == [Tag("!GetAtt", "UnumTable.Arn")] for a in ddb),
              fn + ": DynamoDB actions on more than the table")
        check(scans == [Tag("!GetAtt", "UnumTable.Arn")], fn + ": the keys-only Scan")
        if store_ops is not None:
            # Exactly what the store calls: CreateTable only with ?create=1
            # (the template creates the table), Scan only keys (above).
            want = {"dynamodb:" + op for op in store_ops - {"CreateTable", "Scan"}}
            check(ddb == want, fn + ": DynamoDB actions %s, the store calls %s" % (
                sorted(ddb), sorted(want)))
        else:
            check({"dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:Query",
                   "dynamodb:BatchWriteItem"} <= ddb, fn + ": DynamoDB actions")
        invoke = sorted(t.value for t in allowed.get("lambda:InvokeFunction", []))
        check(invoke == sorted(peers.values()), fn + ": invokes " + str(invoke))
        check(set(allowed) <= ddb | {"lambda:InvokeFunction"}, fn + ": extra actions")
    starts = [o for o in doc["Outputs"] if o.endswith("Arn")]
    check(len(starts) == sum(f["start"] for f in fns.values()), "Outputs: start ARNs")
    check_app_copy(None, os.path.join(out, g["CodeUri"]), fns)
    return "%d Lambda functions, table, %d intrinsics" % (len(byfn), len(list(walk(doc))))


if __name__ == "__main__":
    target, out, appdir = sys.argv[1:4]
    # Optional: lib/Runtime/DynamoStore.cpp, whose DynamoDB operations (its
    # call("Operation", ...)) the Lambda policy must grant, and no others.
    store_ops = None
    if len(sys.argv) > 4:
        store_ops = set(re.findall(r'\bcall\("([A-Za-z]+)"', open(sys.argv[4]).read()))
        if not store_ops:
            print("FAIL: no DynamoDB operations found in " + sys.argv[4])
            sys.exit(1)
    fns = app_functions(appdir)
    summary = {"knative": knative, "openfaas": openfaas, "lambda": lambda_}[target](out, fns)
    print("OK %s: %s" % (target, summary))
