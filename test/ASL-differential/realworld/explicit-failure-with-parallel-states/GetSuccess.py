#!/usr/bin/python3
import json, sys
sys.stdin.read()
print(json.dumps({"result": "success"}))
