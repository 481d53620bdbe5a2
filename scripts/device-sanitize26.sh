#!/usr/bin/env bash
# Issue 26: compute-sanitizer's four tools on the triangular solve's GPU suite
# (check_gpu_sptrsv, a run per case: shapes, chains, large, contracts), on an already built
# build-gpu (a lane of scripts/device-session.sh). Logs under $OUT (else
# build-gpu/logs-sanitize26). Exit status non-zero when a run is not clean.
#   bash scripts/device-sanitize26.sh
set -u
cd "$(dirname "$0")/.." || exit 1
L=${OUT:-build-gpu/logs-sanitize26}; mkdir -p "$L"
SUITES='^check_gpu_sptrsv' SP_SANITIZE_JOBS=${SP_SANITIZE_JOBS:-8} bash scripts/device-sanitize.sh "$L"
