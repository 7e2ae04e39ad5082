"""Runs a Pulumi program under the Python SDK's mocks (no engine, no service): resources register with their
inputs and a few outputs, each function answers from the table given as JSON; prints the registered types.
Run by test/e2e/generated-sdks.test.ts on the registry page's Python example.

    run.py <program.py> <{token: answer} JSON>"""
import asyncio
import json
import sys

import pulumi
from pulumi.runtime.stack import wait_for_rpcs

answers = json.loads(sys.argv[2])
registered = []

class Mocks(pulumi.runtime.Mocks):
    def new_resource(self, args):
        registered.append(args.typ)
        return [f"{args.name}-id", {**args.inputs, "vmId": "vm-1", "status": "running", "apiVersion": "v8", "shareUrl": "https://share.example.test/x"}]

    def call(self, args):
        return answers[args.token]

pulumi.runtime.set_mocks(Mocks(), preview=False)
with open(sys.argv[1]) as f:
    exec(compile(f.read(), sys.argv[1], "exec"), {"__name__": "__main__"})

asyncio.get_event_loop().run_until_complete(wait_for_rpcs())
print(json.dumps(registered))
