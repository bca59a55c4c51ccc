#!/usr/bin/python3
# Fails without the Lambda convention (exit 2, a message on stderr): States.TaskFailed.
import sys
sys.stdin.read()
sys.exit("crashed on purpose")
