#!/usr/bin/env bash
# test.sh: `make test-kernels`. Installs qemu when it is missing (CI runs on a fresh
# machine), fetches the kernels of the matrix into the cache, then boots each one
# and runs the tests in it. Arguments go to the runner (kernels/runner), e.g.
#   kernels/test.sh -kernel '^6\.1' -run TestLandlock -v
set -euo pipefail
cd "$(dirname "$0")/.."
export DEBIAN_FRONTEND=noninteractive

updated=
apt_update() { [ -n "$updated" ] || apt-get update -qq; updated=1; }
if ! command -v qemu-system-x86_64 >/dev/null; then
	if [ "$(id -u)" != 0 ]; then
		echo "test-kernels: error: qemu-system-x86_64 is missing" >&2
		echo "hint: apt-get install --no-install-recommends qemu-system-x86" >&2
		exit 2
	fi
	apt_update
	apt-get install -y -qq --no-install-recommends qemu-system-x86 >/dev/null
fi
# fetch.sh takes busybox-static and bash-static from this machine's own suite.
if ! apt-cache show busybox-static bash-static >/dev/null 2>&1; then
	apt_update
fi
./kernels/fetch.sh
exec go run ./kernels/runner "$@"
