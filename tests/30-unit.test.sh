#!/usr/bin/env bash
# Unit tests of the host-side C parsers (collector/unit-tests.c).
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

bin=$build/collector/unit-tests
[[ -x $bin ]] || { fail unit.built "$bin missing: run make host-tools"; exit 1; }
"$bin"
