#!/bin/bash
# Set up spyglass on a Debian 12 machine and run one of its jobs.
#
#   ./setup.sh demo    install, build, attach to a demo process and show its
#                      threads, modules and stacks, then a Python process's
#                      Python stacks, a merged stack and Python locals
#   ./setup.sh check   install, build, run the test suite
#   ./setup.sh build   install and build only
#   ./setup.sh deps    install the Debian packages only
#
# Run as root (or with sudo) so that apt-get can install packages.
# Environment: BUILD_DIR (default _build), CONFIGURE_FLAGS (extra flags for
# configure, e.g. --enable-werror or --enable-sanitizers), JOBS.
set -euo pipefail

cd "$(dirname "$0")"
src=$PWD
build=${BUILD_DIR:-_build}
jobs=${JOBS:-$(nproc)}

# Every package the build, the tests and the benchmarks need, and nothing
# else: a new machine has only what this list installs.
packages=(
	# build
	autoconf automake libtool pkgconf make gcc g++
	libdw-dev libelf-dev libiberty-dev libreadline-dev
	zlib1g-dev
	# disassemble and x/i: binutils' libopcodes (dis-asm.h), the
	# disassembler gdb uses, so the text is gdb's (doc/design.md)
	binutils-dev
	# tests: gdb is the oracle, eu-stack and readelf check our answers,
	# jq parses JSON, tmux drives the prompt, setpriv tests refusals,
	# libc6-dbg gives libc a separate debug file to find
	gdb elfutils binutils jq tmux util-linux procps libc6-dbg
	# the libc++ plugin's fixture is built by clang against libc++
	clang libc++-dev libc++abi-dev
	# libFuzzer, for the fuzz targets (only recommended by clang)
	libclang-rt-14-dev
	# memcheck, for bench/valgrind.sh (the tests under valgrind)
	valgrind
	# the cpython plugin: Debian's stripped python3.11 is a target, its
	# -dbg package brings gdb's py-bt (the oracle) and the debug file;
	# austin is the Python sampler bench/py-bt.sh compares with;
	# patchelf and the archive keyring fetch unstable's 3.13-3.15
	python3.11 python3.11-dbg austin patchelf debian-archive-keyring
	# GCC's own libstdc++ pretty-printer tests (tests/run-gcc-printers.sh)
	gcc-12-source
)

install_deps() {
	local missing=()
	local p
	for p in "${packages[@]}"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	if [ "$(id -u)" != 0 ]; then
		echo "setup.sh: missing packages: ${missing[*]}; run as root to install them" >&2
		exit 1
	fi
	echo "setup.sh: installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q >/dev/null
	apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
}

# Real CPython 3.13, 3.14 and 3.15 builds from Debian unstable, unpacked
# under /opt/spyglass-pythons for the cpython plugin's tests; without
# network the tests skip those versions and say why.
get_pythons() {
	[ "$(id -u)" = 0 ] || return 0
	tests/get-debian-pythons.sh
}

build() {
	if [ ! -x configure ] || [ configure.ac -nt configure ] || [ Makefile.am -nt configure ] ||
	   [ tests/Makefile.inc -nt configure ] || [ fuzz/Makefile.inc -nt configure ]; then
		autoreconf -fi >/dev/null 2>&1 || autoreconf -fi
	fi
	mkdir -p "$build"
	if [ ! -f "$build/Makefile" ] || [ "$build/config.status" -ot configure ] ||
	   [ "$(cat "$build/.configure-flags" 2>/dev/null)" != "${CONFIGURE_FLAGS:-}" ]; then
		(cd "$build" && "$src/configure" -q ${CONFIGURE_FLAGS:-})
		printf '%s' "${CONFIGURE_FLAGS:-}" >"$build/.configure-flags"
	fi
	make -s -C "$build" -j"$jobs"
}

demo() {
	make -s -C "$build" tests/fixtures/sg-threads
	# Globals: the EXIT trap runs after this function has returned.
	demo_out=$(mktemp)
	"$build/tests/fixtures/sg-threads" 4 >"$demo_out" &
	demo_pid=$!
	trap 'kill "$demo_pid" 2>/dev/null; rm -f "$demo_out"' EXIT
	local out=$demo_out pid=$demo_pid
	for _ in $(seq 1 200); do
		grep -q ready "$out" && break
		sleep 0.025
	done
	echo "== spyglass -p $pid -batch -ex 'info threads' -ex 'info sharedlibrary' -ex 'thread apply all bt'"
	# The plugins of the build tree, not of an install.
	SPYGLASS_PLUGIN_DIR="$build/plugins" \
	SPYGLASS_PLUGIN_PATH="$build/plugins/cfi-unwind/.libs:$build/plugins/fp-unwind/.libs:$build/plugins/libstdcxx/.libs" \
		"$build/shell/spyglass" -nx -p "$pid" -batch \
		-ex 'info threads' -ex 'info sharedlibrary' -ex 'thread apply all bt' --stats

	# A Python program: its Python stacks, then one merged with the
	# native frames.
	demo_py_out=$(mktemp)
	/usr/bin/python3.11 "$src/tests/python/demo.py" >"$demo_py_out" &
	demo_py=$!
	trap 'kill "$demo_pid" "$demo_py" 2>/dev/null; rm -f "$demo_out" "$demo_py_out"' EXIT
	for _ in $(seq 1 200); do
		grep -q ready "$demo_py_out" && break
		sleep 0.025
	done
	echo
	echo "== spyglass -p $demo_py -batch -ex py-version -ex py-bt -ex 'thread 2' -ex 'bt --python' -ex py-locals"
	SPYGLASS_PLUGIN_DIR="$build/plugins" \
	SPYGLASS_PLUGIN_PATH="$build/plugins/cfi-unwind/.libs:$build/plugins/fp-unwind/.libs:$build/plugins/cpython/.libs" \
		"$build/shell/spyglass" -nx -p "$demo_py" -batch -ex py-version -ex py-bt \
		-ex 'thread 2' -ex 'bt --python' -ex py-locals --stats
	# A profile of it: one second of samples of every thread (they
	# sleep: --idle), merged stacks, as folded lines.
	demo_prof=$(mktemp --suffix=.folded)
	trap 'kill "$demo_pid" "$demo_py" 2>/dev/null; rm -f "$demo_out" "$demo_py_out" "$demo_prof"' EXIT
	echo
	echo "== spyglass -p $demo_py -- record --duration 1 --idle --stack mixed -o $demo_prof"
	SPYGLASS_PLUGIN_DIR="$build/plugins" \
	SPYGLASS_PLUGIN_PATH="$build/plugins/cfi-unwind/.libs:$build/plugins/fp-unwind/.libs:$build/plugins/cpython/.libs" \
		"$build/shell/spyglass" -nx -p "$demo_py" -- record --duration 1 --idle --stack mixed \
		-o "$demo_prof"
	sort -t' ' -k2,2nr "$demo_prof" | head -n 3 | cut -c1-200
	# A core of the first process, written and then read back.
	demo_core=$(mktemp -u /tmp/spyglass-demo-core.XXXXXX)
	trap 'kill "$demo_pid" "$demo_py" 2>/dev/null; rm -f "$demo_out" "$demo_py_out" "$demo_prof" "$demo_core"' EXIT
	echo
	echo "== spyglass -p $pid -batch -ex 'gcore $demo_core'; spyglass -c $demo_core -batch -ex 'info threads' -ex 'thread apply all bt 3'"
	SPYGLASS_PLUGIN_DIR="$build/plugins" \
	SPYGLASS_PLUGIN_PATH="$build/plugins/cfi-unwind/.libs:$build/plugins/fp-unwind/.libs" \
		"$build/shell/spyglass" -nx -p "$pid" -batch -ex "gcore $demo_core"
	SPYGLASS_PLUGIN_DIR="$build/plugins" \
	SPYGLASS_PLUGIN_PATH="$build/plugins/cfi-unwind/.libs:$build/plugins/fp-unwind/.libs" \
		"$build/shell/spyglass" -nx -c "$demo_core" -batch -ex 'info threads' -ex 'thread apply all bt 3'
}

case "${1:-}" in
deps) install_deps; get_pythons ;;
build) install_deps; build ;;
demo) install_deps; build; demo ;;
check) install_deps; get_pythons; build; make -s -C "$build" -j"$jobs" check ;;
*) sed -n '2,13s/^# \{0,1\}//p' "$0"; exit 64 ;;
esac
