#!/usr/bin/env bash
# Installs Debian packages, as root, for the tests that need a system program: postgres.sh, python-venv.sh and
# the generated Java SDK's test (Maven and a JDK).
#
#   scripts/apt-install.sh PACKAGE...
#
# Test files run in parallel and, on a fresh machine, two of them may need a package at the same moment:
# dpkg allows one install at a time and fails the other at once ("Could not get lock"). The installs queue
# on a lock of their own, and apt waits for one held by anything else.
set -euo pipefail
[ $# -gt 0 ] || { echo "usage: scripts/apt-install.sh PACKAGE..." >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "apt-install: root is needed to install $*" >&2; exit 1; }
command -v apt-get >/dev/null 2>&1 || { echo "apt-install: no apt-get on this machine to install $*" >&2; exit 1; }
# A package may start a service of its own (where no policy-rc.d forbids it): that is the machine's, not a
# process of the test run that asked, which must not find it among what the run left behind.
unset PRB_TEST_RUN
# PRB_APT_LOCK: another lock file, for the script's own test (which must not queue behind a real install).
exec 9>"${PRB_APT_LOCK:-/var/lock/pulumi-remote-browser-apt.lock}"
flock 9
apt=(apt-get -o DPkg::Lock::Timeout=600 -qq)
"${apt[@]}" update >&2
DEBIAN_FRONTEND=noninteractive "${apt[@]}" install -y --no-install-recommends "$@" >&2
