#!/usr/bin/env bash
# Fetch real CPython 3.13/3.14/3.15 builds (Debian's stripped release builds and
# their Py_DEBUG "-dbg" builds) from Debian unstable into a private tree that
# runs on bookworm, so the cpython plugin is tested against distro binaries.
#
# Usage: tests/get-debian-pythons.sh [DEST]
#   DEST defaults to $SPYGLASS_PYTHONS, else /opt/spyglass-pythons.
#   SPYGLASS_PYTHON_VERSIONS="3.13 3.14 3.15" picks the minors.
#   SPYGLASS_PYTHONS_FORCE=1 fetches again even if DEST is complete.
#   SPYGLASS_DEBIAN_MIRROR=URL overrides the mirror taken from apt's sources.
#
# Result: DEST/pythons.txt, one runnable interpreter a line:
#   <tag> <path> <sys.version>      tag is "3.14" (release) or "3.14d" (-dbg)
# and "# <tag> missing: <reason>" lines for what could not be had, which tests
# use as their skip reason. DEST/README says where the debug info is.
#
# Never touches the system's apt sources or installed packages (except
# installing patchelf and debian-archive-keyring from bookworm if absent).
# Always exits 0: failures are reported on one line each.

set -u -o pipefail
DEST=${1:-${SPYGLASS_PYTHONS:-/opt/spyglass-pythons}}
VERSIONS=${SPYGLASS_PYTHON_VERSIONS:-3.13 3.14 3.15}
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
LIST=$DEST/pythons.txt
LIBDIR=$DEST/usr/lib/x86_64-linux-gnu
LDSO=$LIBDIR/ld-linux-x86-64.so.2
# What every interpreter must manage: the modules the plugin's targets use.
CHECK='import sys, threading, asyncio, ctypes, select, time
t = threading.Thread(target=time.sleep, args=(0.01,)); t.start(); t.join()
print(sys.version.replace("\n", " "))'

say() { echo "get-debian-pythons: $*"; }

# Prints sys.version if $1 runs the check, else nothing (status 1).
works() { [ -x "$1" ] && "$1" -c "$CHECK" 2>/dev/null; }

# Done already if every requested version is either listed and still runs,
# or was recorded as not in the archive (a fact, unlike "unreachable").
complete() {
    [ -f "$LIST" ] || return 1
    local v tag path
    for v in $VERSIONS; do
        for tag in "$v" "${v}d"; do
            grep -q "^# $tag missing: not in unstable" "$LIST" && continue
            path=$(awk -v t="$tag" '$1 == t { print $2 }' "$LIST")
            [ -n "$path" ] && works "$path" >/dev/null || return 1
        done
    done
}

mkdir -p "$DEST" || { say "cannot create $DEST"; exit 0; }
# Tests may run this concurrently; one fetch at a time.
exec 9>"$DEST/.lock" && flock 9
if [ -z "${SPYGLASS_PYTHONS_FORCE:-}" ] && complete; then
    say "$DEST already complete"
    exit 0
fi
START=$SECONDS

# Tools from bookworm itself; apt-get update only if the install needs it.
need=()
command -v patchelf >/dev/null || need+=(patchelf)
[ -f "$KEYRING" ] || need+=(debian-archive-keyring)
if [ ${#need[@]} -gt 0 ]; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -y -q "${need[@]}" >/dev/null 2>&1 ||
        { apt-get update -q >/dev/null 2>&1 &&
          apt-get install -y -q "${need[@]}" >/dev/null 2>&1; } ||
        { say "cannot install ${need[*]}; nothing fetched"; exit 0; }
fi

# Use the mirror the system already uses (it is the one we can reach).
MIRROR=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list \
             /etc/apt/sources.list.d/*.sources 2>/dev/null |
         grep -v '^[[:space:]]*#' | grep -oE 'https?://[^ ]+/debian/?( |$)' |
         head -n1 | tr -d ' ')
MIRROR=${SPYGLASS_DEBIAN_MIRROR:-${MIRROR:-http://deb.debian.org/debian}}
MIRROR=${MIRROR%/}

# Private apt state: own sources, lists, cache and an empty dpkg status, so
# nothing of the system's apt configuration is read or changed.
WORK=$(mktemp -d /tmp/get-debian-pythons.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WORK/lists/partial" "$WORK/cache/archives/partial" "$WORK/debs"
echo "deb [signed-by=$KEYRING] $MIRROR unstable main" >"$WORK/sources.list"
: >"$WORK/status"
APT=(-q -o Dir::Etc::sourcelist="$WORK/sources.list"
     -o Dir::Etc::sourceparts=- -o Dir::Etc::preferences=/dev/null
     -o Dir::Etc::preferencesparts=- -o Dir::State::Lists="$WORK/lists"
     -o Dir::State::status="$WORK/status" -o Dir::Cache="$WORK/cache"
     -o APT::Get::List-Cleanup=0 -o Acquire::Languages=none
     -o APT::Sandbox::User=root -o Acquire::Retries=1
     -o Acquire::http::Timeout=30)

if ! err=$(apt-get "${APT[@]}" update 2>&1) || grep -q '^[WE]:' <<<"$err"; then
    say "cannot reach $MIRROR unstable: $(grep -m1 '^[WE]:' <<<"$err" | cut -c1-200)"
    exit 0
fi

# libc6 is required (the interpreters need GLIBC_2.42, bookworm has 2.36).
# expat/zlib/zstd/libffi: unstable's python packages depend on newer versions
# than bookworm's. libssl so that `ssl` (asyncio's TLS) imports too.
pkgs=(libc6 libexpat1 zlib1g libzstd1 libffi8 libssl3t64)
declare -A why
for v in $VERSIONS; do
    for p in python$v python$v-minimal libpython$v-minimal libpython$v-stdlib \
             python$v-dbg libpython$v-dbg; do
        if apt-cache "${APT[@]}" show --no-all-versions "$p" >/dev/null 2>&1; then
            pkgs+=("$p")
        else
            # The -dbg build needs the release build's stdlib as well.
            case $p in *-dbg) ;; *) why[$v]=${why[$v]:-"not in unstable ($p)"} ;; esac
            why[${v}d]=${why[${v}d]:-"not in unstable ($p)"}
        fi
    done
done

cd "$WORK/debs" || exit 0
if ! apt-get "${APT[@]}" download "${pkgs[@]}" >"$WORK/dl.log" 2>&1; then
    # One bad package must not cost the others.
    for p in "${pkgs[@]}"; do
        apt-get "${APT[@]}" download "$p" >/dev/null 2>&1 || say "download of $p failed"
    done
fi
for f in *.deb; do
    [ -e "$f" ] || { say "nothing downloaded from $MIRROR"; exit 0; }
    dpkg -x "$f" "$DEST" || say "cannot extract $f"
done

# Point the executables at unstable's loader and libraries. DT_RPATH (not
# RUNPATH) because it is also searched for the dependencies of dlopen'd
# extension modules (_ctypes -> libffi, _ssl -> libssl). sys.prefix needs no
# help: getpath finds lib/python3.X/os.py relative to the executable.
tmp=$LIST.new
: >"$tmp"
for v in $VERSIONS; do
    for tag in "$v" "${v}d"; do
        exe=$DEST/usr/bin/python$tag
        if [ -n "${why[$tag]:-}" ]; then
            echo "# $tag missing: ${why[$tag]}" >>"$tmp"
            say "$tag missing: ${why[$tag]}"
            continue
        fi
        if [ ! -f "$exe" ] || [ ! -e "$LDSO" ]; then
            echo "# $tag missing: not fetched" >>"$tmp"
            say "$tag missing: not fetched"
            continue
        fi
        patchelf --set-interpreter "$LDSO" --force-rpath --set-rpath "$LIBDIR" "$exe"
        if ver=$(works "$exe"); then
            echo "$tag $exe $ver" >>"$tmp"
        else
            msg=$("$exe" -c "$CHECK" 2>&1 | tail -n1 | cut -c1-200)
            echo "# $tag missing: does not run: $msg" >>"$tmp"
            say "$tag does not run: $msg"
        fi
    done
done
mv "$tmp" "$LIST"

cat >"$DEST/README" <<EOF
CPython builds from Debian unstable ($MIRROR), fetched by spyglass's
tests/get-debian-pythons.sh, made to run on this system with patchelf
(interpreter $LDSO, DT_RPATH $LIBDIR).

pythons.txt: "<tag> <path> <sys.version>" per working interpreter; tag X.Y is
the stripped release build (non-PIE, libpython linked in, _PyRuntime and
Py_Version in .dynsym, .PyRuntime section), X.Yd the Py_DEBUG build from
python3.X-dbg (not stripped: has .symtab and DWARF). "# ... missing:" lines say
why a build is absent.

Separate debug info for the release builds (python3.X-dbg ships it by
build-id): $DEST/usr/lib/debug/.build-id/NN/REST.debug. For gdb:
  gdb -iex 'set debug-file-directory $DEST/usr/lib/debug' \\
      -iex 'add-auto-load-safe-path $LIBDIR' \\
      -iex 'set libthread-db-search-path $LIBDIR' -p PID
(the last two let gdb use unstable's libthread_db; libc itself is stripped).
EOF
for v in $VERSIONS; do
    exe=$DEST/usr/bin/python$v
    [ -f "$exe" ] || continue
    id=$(readelf -n "$exe" 2>/dev/null | awk '/Build ID/ { print $3 }')
    dbg=$DEST/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug
    if [ -n "$id" ] && [ -f "$dbg" ]; then
        echo "$v debug file: $dbg" >>"$DEST/README"
    else
        echo "$v debug file: none" >>"$DEST/README"
    fi
done

say "$(grep -vc '^#' "$LIST") interpreters in $LIST ($((SECONDS - START))s)"
exit 0
