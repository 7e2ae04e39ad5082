"""Runs a Python Pulumi program (an example's __main__.py) as an inline Automation API program, where no
Python language host is installed: the Automation API serves the program itself.

    python run.py <request.json>

The request names the program folder, the work folder, the backend, the action (up, preview, refresh, destroy),
the engine, the stack config and where to write the result (outputs, secrecy, resource changes)."""

import json
import os
import runpy
import subprocess
import sys

import pulumi.automation as auto

request = json.load(open(sys.argv[1]))


def program():
    runpy.run_path(os.path.join(request["example"], "__main__.py"), run_name="__main__")


env = request["env"]
os.environ.update(env)
command = auto.PulumiCommand(root=request["pulumiRoot"], skip_version_check=True)
workspace = auto.LocalWorkspaceOptions(
    work_dir=request["workDir"],
    env_vars=env,
    pulumi_command=command,
    project_settings=auto.ProjectSettings(name=request["project"], runtime="python"),
)
stack = auto.create_or_select_stack(request["stack"], project_name=request["project"], program=program, opts=workspace)
for key, (value, secret) in request["config"].items():
    if not secret:
        stack.set_config(key, auto.ConfigValue(value))
        continue
    # The Automation API's set_config passes the value as an argument of `pulumi config set`, where any local
    # user can read it; the CLI reads it from standard input instead when the command line has none.
    subprocess.run(
        [os.path.join(request["pulumiRoot"], "bin", "pulumi"), "config", "set", "--secret", "--stack", request["stack"],
         "--non-interactive", "--", key],
        input=value, text=True, check=True, cwd=request["workDir"], env={**os.environ, **env},
        stdout=subprocess.DEVNULL,
    )

result = {}
action = request["action"]
if action == "up":
    up = stack.up(on_output=print)
    result["outputs"] = {k: {"value": v.value, "secret": v.secret} for k, v in up.outputs.items()}
    result["changes"] = up.summary.resource_changes
elif action == "preview":
    result["changes"] = stack.preview(on_output=print, expect_no_changes=True).change_summary
elif action == "refresh":
    result["changes"] = stack.refresh(on_output=print, expect_no_changes=True).summary.resource_changes
elif action == "destroy":
    result["changes"] = stack.destroy(on_output=print).summary.resource_changes
else:
    raise SystemExit(f"unknown action {action}")
with open(request["resultFile"], "w") as f:
    json.dump(result, f)
