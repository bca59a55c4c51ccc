#!/usr/bin/env bash
# Runs the ```sh blocks of a Markdown doc, in order, as one `bash -e` script in
# WORKDIR, and prints what they print (stdout and stderr, interleaved) on
# stdout. If a command fails, the output so far and the failing command go to
# stderr and the exit status is non-zero. Tests use it so that a doc's
# commands are the ones tested: `run-doc-commands.sh docs/X.md DIR | FileCheck`.
set -euo pipefail
if [ $# -ne 2 ]; then
  echo "usage: run-doc-commands.sh DOC.md WORKDIR" >&2
  exit 2
fi
doc=$1
workdir=$2
script=$workdir/doc-commands.sh
sed -n '/^```sh$/,/^```$/{/^```/d;p}' "$doc" > "$script"
if [ ! -s "$script" ]; then
  echo "run-doc-commands.sh: $doc has no \`\`\`sh block" >&2
  exit 1
fi
log=$workdir/doc-commands.log
trace=$workdir/doc-commands.trace
# The trace goes to its own file (BASH_XTRACEFD): on stderr, the traces of
# the two sides of a pipeline come from two processes and can interleave
# with the commands' own output.
if ! (cd "$workdir" && BASH_XTRACEFD=9 bash -ex doc-commands.sh 9>"$trace") > "$log" 2>&1; then
  cat "$log" >&2
  echo "run-doc-commands.sh: a command of $doc failed: $(tail -n 1 "$trace")" >&2
  exit 1
fi
cat "$log"
