// The differential suite's oracle: runs ASL state machines with the npm
// package aws-local-stepfunctions (an interpreter nobody on this project
// wrote), every Task state overridden by the same subprocess handler that
// unum-run runs.
//
// Protocol: one JSON request per line on stdin, one JSON answer per line on
// stdout, in order.
//   request: {"definition": ASL, "input": JSON,
//             "handlers": {"<Task state name>": ["/usr/bin/python3", "h.py"]
//                          or {"argv": [...], "lambdaInvoke": true}},
//             "env": {"NAME": "value"}, "waitStates": [names], "waitMs": ms,
//             "retryStates": [names], "retryMs": ms, "validate": bool}
//   answer:  {"status": "succeeded", "output": JSON}
//          | {"status": "failed", "error": NAME, "cause": CAUSE}
//          | {"status": "invalid", "message": TEXT}   (definition rejected)
//          | {"status": "crashed", "message": TEXT}   (any other exception)
//
// Handlers follow the Lambda convention of docs/Tools/unum-run.md: input JSON
// on stdin, output JSON on stdout; a non-zero exit whose stdout is a JSON
// object with a string "errorType" throws that error (message: errorMessage,
// "" when absent); any other failure throws States.TaskFailed with the
// stderr tail.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

// The package targets Node 22; Node 20 (Debian 12's nodesource, CI) lacks
// only Promise.withResolvers, which TaskStateAction uses for timeouts.
if (typeof Promise.withResolvers !== 'function') {
  Promise.withResolvers = function () {
    let resolve, reject;
    const promise = new Promise((res, rej) => { resolve = res; reject = rej; });
    return { promise, resolve, reject };
  };
}

const { StateMachine, ExecutionError } = await import('aws-local-stepfunctions');

function namedError(name, message) {
  const e = new Error(message);
  e.name = name;
  return e;
}

function runHandler(argv, input, env, children) {
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0], argv.slice(1), {
      env: { ...process.env, ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    children.add(child);
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => { out += d; });
    child.stderr.on('data', (d) => { err += d; });
    child.on('error', (e) => { children.delete(child); reject(namedError('States.TaskFailed', String(e))); });
    child.on('close', (code, signal) => {
      children.delete(child);
      if (code === 0) {
        try {
          resolve(JSON.parse(out));
        } catch (e) {
          reject(namedError('States.TaskFailed', 'handler output is not JSON: ' + out.slice(-200)));
        }
        return;
      }
      let parsed = null;
      try { parsed = JSON.parse(out); } catch (e) { /* not the Lambda convention */ }
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed) &&
          typeof parsed.errorType === 'string') {
        const msg = typeof parsed.errorMessage === 'string' ? parsed.errorMessage : '';
        reject(namedError(parsed.errorType, msg));
        return;
      }
      reject(namedError('States.TaskFailed', (err || `exit ${code} ${signal || ''}`).slice(-500)));
    });
    child.stdin.on('error', () => {});
    child.stdin.end(JSON.stringify(input));
  });
}

async function execute(req) {
  let machine;
  try {
    // Validation (asl-validator) builds a new JSON-schema compiler on every
    // call (about 0.3 s idle, seconds on a loaded machine), so it is on
    // request only: run.py --validate, when cases are written.
    machine = new StateMachine(req.definition, {
      validationOptions: req.validate ? { checkArn: false } : { noValidate: true },
    });
  } catch (e) {
    return { status: 'invalid', message: String(e && e.message || e) };
  }
  const children = new Set();
  const handlers = {};
  for (const [state, spec] of Object.entries(req.handlers || {})) {
    if (Array.isArray(spec)) {
      handlers[state] = (input) => runHandler(spec, input, req.env || {}, children);
    } else {
      // arn:aws:states:::lambda:invoke: the function gets Parameters.Payload
      // ({} when absent) and the state's result is the service's response,
      // the function's output under "Payload" (the package calls the
      // override with the effective input and returns what it returns).
      handlers[state] = async (input) => {
        const payload = input && typeof input === 'object' && 'Payload' in input ? input.Payload : {};
        const out = await runHandler(spec.argv, payload, req.env || {}, children);
        return { ExecutedVersion: '$LATEST', Payload: out, StatusCode: 200 };
      };
    }
  }
  const waits = {};
  for (const name of req.waitStates || []) waits[name] = req.waitMs ?? 0;
  const retries = {};
  for (const name of req.retryStates || []) retries[name] = req.retryMs ?? 0;
  try {
    const execution = machine.run(req.input, {
      overrides: {
        taskResourceLocalHandlers: handlers,
        waitTimeOverrides: waits,
        retryIntervalOverrides: retries,
      },
    });
    const output = await execution.result;
    return { status: 'succeeded', output: output === undefined ? null : output };
  } catch (e) {
    if (e instanceof ExecutionError && e.cause) {
      const c = e.cause;
      return { status: 'failed', error: c.name, cause: c.message ?? '' };
    }
    return { status: 'crashed', message: String(e && e.stack || e) };
  } finally {
    for (const child of children) child.kill('SIGKILL');
  }
}

const rl = createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of rl) {
  if (!line.trim()) continue;
  let answer;
  try {
    answer = await execute(JSON.parse(line));
  } catch (e) {
    answer = { status: 'crashed', message: String(e && e.stack || e) };
  }
  process.stdout.write(JSON.stringify(answer) + '\n');
}
