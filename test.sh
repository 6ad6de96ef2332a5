#!/usr/bin/env bash
# The tests, on a fresh machine: installs what they need and the machine lacks, then runs
# ./mvnw -B verify (extra arguments go to Maven), then scripts/release-check. README.md's test
# command; .ci/run calls it.
#
# Needs a JDK 17+, git, and Node.js 20.19+ with npm (README.md, Requirements). Installs Chromium for
# the web page's browser tests when none is found (GADGET_CHROMIUM, or chromium or
# chromium-browser on the PATH): with apt-get (sudo when not root). Elsewhere, install Chromium
# with your package manager or set GADGET_CHROMIUM to a Chromium or Chrome binary. Installs
# bubblewrap (bwrap) for the command sandbox's tests the same way, and redis-server for the
# cluster's.
set -euo pipefail
cd "$(dirname "$0")"

have_chromium() {
  if [ -n "${GADGET_CHROMIUM:-}" ]; then
    [ -f "$GADGET_CHROMIUM" ] && [ -x "$GADGET_CHROMIUM" ]
    return
  fi
  command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1
}

if ! have_chromium; then
  if [ -n "${GADGET_CHROMIUM:-}" ]; then
    echo "test.sh: GADGET_CHROMIUM=$GADGET_CHROMIUM is not an executable file" >&2
    exit 1
  fi
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "test.sh: the browser tests need Chromium: install it with your package manager," \
      "or set GADGET_CHROMIUM to a Chromium or Chrome binary" >&2
    exit 1
  fi
  echo "test.sh: installing Chromium for the browser tests (apt-get install -y chromium)"
  SUDO=""
  if [ "$(id -u)" != 0 ]; then SUDO=sudo; fi
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -q
  # Debian calls it chromium; older Ubuntu releases chromium-browser.
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium \
    || $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium-browser
fi

# Installs Debian package $2 (for $3) with apt-get when command $1 is missing and apt-get is there.
apt_install_for() {
  if ! command -v "$1" >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1; then
    echo "test.sh: installing $2 for $3 (apt-get install -y $2)"
    local sudo=""
    if [ "$(id -u)" != 0 ]; then sudo=sudo; fi
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -q
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$2"
  fi
}

# The agent's commands run in a bubblewrap sandbox (docs/AGENT.md, "Sandbox"); its tests use
# a real one: bwrap, Debian's bubblewrap package.
apt_install_for bwrap bubblewrap "the sandbox tests"

# gadget-cluster-redis and the cluster's integration tests start a real Redis (docs/CLUSTER.md):
# redis-server, Debian's redis-server package.
apt_install_for redis-server redis-server "the cluster tests"

# HAProxyTest starts Debian's haproxy with docs/haproxy.cfg in front of three cluster nodes.
apt_install_for haproxy haproxy "the load balancer example's test"

# The release as Maven Central would receive it, signed with a throwaway key and checked
# (scripts/release-check, docs/RELEASING.md): it needs gpg.
apt_install_for gpg gnupg "the release check"

./mvnw -B verify "$@"
exec scripts/release-check
