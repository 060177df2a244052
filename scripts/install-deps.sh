#!/bin/sh
# Installs what wasp needs to build and test on Debian 12 (bookworm).
# Idempotent: packages already installed are left as they are.
# Run as root; when not root, sudo is used if it exists.
set -eu

# clang and libclang-rt-14-dev (libFuzzer, ASan, UBSan): the fuzzers of `make check`.
PACKAGES="build-essential make pkg-config libzydis-dev libzycore-dev libpfm4-dev \
libnuma-dev libcmocka-dev libseccomp-dev zlib1g-dev openjdk-17-jdk-headless python3 \
clang libclang-rt-14-dev"
# chromium: `make check` opens the HTML report in it, headless (tests/integration/report_html.py).
PACKAGES="$PACKAGES chromium"
# protobuf-c (generated at build time) for `wasp report --format pprof`; golang-go:
# `go tool pprof` reads it back in the tests (tests/integration/formats.py).
PACKAGES="$PACKAGES protobuf-c-compiler libprotobuf-c-dev golang-go"
# elfutils (libdw, libelf): the agent names native code by its ELF symbols.
PACKAGES="$PACKAGES libdw-dev libelf-dev"
# sablecc: the real program the fourth paper's analyses are measured on
# (bench/sablecc_grammar.py, docs/fields.md, docs/alloc.md).
PACKAGES="$PACKAGES sablecc"
# The corpus of real programs (bench/corpus/, docs/corpus.md; the smoke tests
# tests/integration/corpus.py run sablecc, xalan and lucene).
PACKAGES="$PACKAGES sunflow libbatik-java libxalan2-java liblucene4.10-java libh2-java rhino ant \
libjfreechart-java libpdfbox2-java libfop-java"

if [ "$(id -u)" -eq 0 ]; then
    SUDO=""
elif command -v sudo >/dev/null 2>&1; then
    SUDO="sudo"
else
    echo "install-deps: must run as root (and sudo is not available)" >&2
    exit 1
fi

export DEBIAN_FRONTEND=noninteractive
# shellcheck disable=SC2086
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get -qq update
# shellcheck disable=SC2086
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get -qq install -y --no-install-recommends $PACKAGES >/dev/null

echo "install-deps: done ($(javac -version 2>&1), $(python3 --version 2>&1))"
