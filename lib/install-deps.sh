#!/usr/bin/env bash
# Install the Debian packages given that are not installed yet (as root,
# with apt-get); do nothing, quickly, when all are present.
set -euo pipefail
# shellcheck source=log.sh
. "$(dirname "$0")/log.sh"

missing=()
for pkg in "$@"; do
	status=$(dpkg-query -W -f '${db:Status-Status}' "$pkg" 2>/dev/null || true)
	[[ $status == installed ]] || missing+=("$pkg")
done
if ((${#missing[@]} == 0)); then
	say "all ${#} Debian packages present"
	exit 0
fi
((EUID == 0)) || die "missing Debian packages: ${missing[*]} (run as root, or install them)"
step "apt-get install ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >/dev/null || die "apt-get update failed"
apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null ||
	die "apt-get install failed for: ${missing[*]}"
step_done "${#missing[@]} packages"
