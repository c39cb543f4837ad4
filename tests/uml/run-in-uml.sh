#!/usr/bin/env bash
# run-in-uml.sh - run a command inside User-Mode Linux (UML), with the host's
# root directory (or --root DIR) mounted as the guest root through hostfs,
# kernel TLS (tls.ko) loaded and loopback up.  hs's copy of the prototype
# runner (shared/uml/), see tests/uml/README.md.
#
#   run-in-uml.sh [options] -- CMD [ARGS...]
#
# CMD runs as root in the guest, in the current directory, with the caller's
# exported environment.  Its stdout/stderr are copied to the caller's
# stdout/stderr and its exit status becomes this script's exit status.
# Exit statuses of the runner itself: 124 timeout, 125 runner/boot failure,
# or --unavailable-status N (the tests use 77, meson's "skipped") when the
# kernel cannot be had or the guest never reaches its init: UML cannot start
# here, which is not a failure of the code under test.
set -euo pipefail

PROG=${0##*/}

usage() {
	cat <<EOF
usage: $PROG [options] -- CMD [ARGS...]

options:
  --kernel 6.1|6.12|sid  UML kernel to use (default: \$UML_KERNEL or 6.1);
                      7, 7.x and unstable are other names for sid.
                      6.1  = Debian bookworm user-mode-linux (installed with apt
                             when missing),
                      6.12 = Debian trixie user-mode-linux, downloaded with apt
                             into the cache and patched (patchelf) to use the
                             trixie glibc that is downloaded next to it,
                      sid  = the newest Debian build (unstable; 7.x at the time
                             of writing: has kTLS rekey, Linux >= 6.14), the
                             same way as 6.12.
  --timeout SECS      kill the guest after SECS seconds (default \$UML_TIMEOUT or 300);
                      the script then exits 124.
  --mem SIZE          guest memory (default \$UML_MEM or 1G).
  --append "ARGS"     extra kernel command line arguments (default \$UML_APPEND).
  --modules "M1 M2"   modules to modprobe before CMD (default "tls"); a name
                      prefixed with '?' may fail.
  --root DIR          use host directory DIR as guest root instead of /
                      (e.g. a debootstrap tree).  The current directory is
                      then mounted at the same path inside the guest.
  --cache DIR         where kernels are prepared (default \$UML_CACHE_DIR or
                      \${XDG_CACHE_HOME:-\$HOME/.cache}/run-in-uml).
  --prepare-only      only make sure the kernel is available, print its
                      path and modules dir, then exit.
  --print-mirror      print the Debian mirror URI derived from the apt sources
                      and exit.
  --console           copy the guest console (kernel log) to stderr at the end.
  --keep              keep the per-run directory (init script, logs).
  --unavailable-status N
                      exit N (instead of 125/124) when the kernel cannot be
                      prepared or the guest does not reach its init script
                      (default \$UML_UNAVAILABLE_STATUS or 125).
  -h, --help          this help.

environment: UML_DEBIAN_MIRROR overrides the Debian mirror URI that is
otherwise derived from the system's apt sources; UML_FORCE_DOWNLOAD=1 makes
6.1 come from the bookworm archive into the cache like 6.12 does, even when
the system has the package; UML_TIMING=1 prints the wall time of the run;
UML_QUIET=1 silences the runner's own progress messages.
EOF
}

die() { echo "$PROG: $*" >&2; exit 125; }
# UML cannot start here (no kernel to be had, or it does not boot).
unavailable() { echo "$PROG: UML unavailable: $*" >&2; exit "$UNAVAILABLE"; }
log() { [ -n "${UML_QUIET:-}" ] || echo "$PROG: $*" >&2; }

KERNEL=${UML_KERNEL:-6.1}
TIMEOUT=${UML_TIMEOUT:-300}
MEM=${UML_MEM:-1G}
APPEND=${UML_APPEND:-}
MODULES="tls"
ROOT=/
CACHE=${UML_CACHE_DIR:-${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/run-in-uml}
PREPARE_ONLY=0
PRINT_MIRROR=0
SHOW_CONSOLE=0
KEEP=0
UNAVAILABLE=${UML_UNAVAILABLE_STATUS:-125}

while [ $# -gt 0 ]; do
	case $1 in
	--kernel) KERNEL=${2:?}; shift 2 ;;
	--kernel=*) KERNEL=${1#*=}; shift ;;
	--timeout) TIMEOUT=${2:?}; shift 2 ;;
	--timeout=*) TIMEOUT=${1#*=}; shift ;;
	--append) APPEND=${2?}; shift 2 ;;
	--append=*) APPEND=${1#*=}; shift ;;
	--mem) MEM=${2:?}; shift 2 ;;
	--mem=*) MEM=${1#*=}; shift ;;
	--modules) MODULES=${2?}; shift 2 ;;
	--modules=*) MODULES=${1#*=}; shift ;;
	--root) ROOT=${2:?}; shift 2 ;;
	--root=*) ROOT=${1#*=}; shift ;;
	--cache) CACHE=${2:?}; shift 2 ;;
	--cache=*) CACHE=${1#*=}; shift ;;
	--prepare-only) PREPARE_ONLY=1; shift ;;
	--print-mirror) PRINT_MIRROR=1; shift ;;
	--console) SHOW_CONSOLE=1; shift ;;
	--keep) KEEP=1; shift ;;
	--unavailable-status) UNAVAILABLE=${2:?}; shift 2 ;;
	--unavailable-status=*) UNAVAILABLE=${1#*=}; shift ;;
	-h|--help) usage; exit 0 ;;
	--) shift; break ;;
	*) usage >&2; exit 125 ;;
	esac
done
[ $# -gt 0 ] || [ $PREPARE_ONLY = 1 ] || [ $PRINT_MIRROR = 1 ] || { usage >&2; exit 125; }
case $KERNEL in
6.1) SUITE=bookworm ;;
6.12) SUITE=trixie ;;
sid|7|7.x|unstable) KERNEL=sid; SUITE=sid ;;
*) die "unsupported --kernel '$KERNEL' (6.1, 6.12 or sid)" ;;
esac
[[ $TIMEOUT =~ ^[0-9]+$ ]] || die "bad --timeout '$TIMEOUT'"
ROOT=$(cd "$ROOT" && pwd -P) || die "bad --root"

# ---------------------------------------------------------------- kernel ----

# The Debian mirror the system already uses (no host name is hard-coded).
debian_mirror() {
	if [ -n "${UML_DEBIAN_MIRROR:-}" ]; then echo "$UML_DEBIAN_MIRROR"; return; fi
	local uri
	# Origin/Label come from the Release files, so this skips debian-security.
	uri=$(apt-get indextargets --format '$(ORIGIN)|$(LABEL)|$(REPO_URI)' 2>/dev/null |
		awk -F'|' '$1 == "Debian" && $2 == "Debian" { print $3; exit }')
	if [ -z "$uri" ]; then
		# No apt lists yet: parse the sources themselves (one-line and deb822).
		uri=$( { cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
			awk '$1 == "deb" { for (i = 2; i <= NF; i++) if ($i !~ /^\[/ && $i !~ /\]$/) { print $i; break } }'
			cat /etc/apt/sources.list.d/*.sources 2>/dev/null |
			awk 'tolower($1) == "uris:" { for (i = 2; i <= NF; i++) print $i }'
		} | grep -v -e -security -e '^cdrom:' | grep -E '/debian/?$' | head -n1)
	fi
	[ -n "$uri" ] || unavailable "cannot derive a Debian mirror from the apt sources; set UML_DEBIAN_MIRROR"
	echo "${uri%/}/"
}

# Download user-mode-linux + libc6 of $SUITE into $1 and make the binary run
# here: its ELF interpreter and runpath are pointed at the downloaded glibc.
fetch_suite_uml() {
	local d=$1 mirror keyring apt
	command -v patchelf >/dev/null || { log "installing patchelf"; apt-get install -y -qq patchelf >/dev/null; } ||
		unavailable "patchelf is missing and cannot be installed"
	mirror=$(debian_mirror)
	log "downloading user-mode-linux from $mirror $SUITE"
	rm -rf "$d.tmp"
	mkdir -p "$d.tmp/apt/lists/partial" "$d.tmp/apt/cache/archives/partial" "$d.tmp/debs" "$d.tmp/root"
	keyring=
	[ -r /usr/share/keyrings/debian-archive-keyring.gpg ] &&
		keyring="[signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] "
	echo "deb ${keyring}${mirror} $SUITE main" >"$d.tmp/apt/sources.list"
	apt=(apt-get -q -o "Dir::Etc::SourceList=$d.tmp/apt/sources.list" -o Dir::Etc::SourceParts=/dev/null
		-o "Dir::State::Lists=$d.tmp/apt/lists" -o "Dir::Cache=$d.tmp/apt/cache"
		-o APT::Architecture=amd64 -o APT::Architectures=amd64)
	"${apt[@]}" update >"$d.tmp/apt.log" 2>&1 || { cat "$d.tmp/apt.log" >&2; unavailable "apt-get update ($SUITE) failed"; }
	(cd "$d.tmp/debs" && "${apt[@]}" download user-mode-linux libc6) >>"$d.tmp/apt.log" 2>&1 ||
		{ cat "$d.tmp/apt.log" >&2; unavailable "apt-get download failed"; }
	local deb
	for deb in "$d.tmp"/debs/*.deb; do dpkg -x "$deb" "$d.tmp/root"; done
	local ld libdir
	ld=$(find "$d.tmp/root" -name 'ld-linux-x86-64.so.2' -type f | head -n1)
	libdir=$(dirname "$(find "$d.tmp/root" -name 'libc.so.6' -type f | head -n1)")
	[ -n "$ld" ] && [ -f "$libdir/libc.so.6" ] || unavailable "no glibc in the downloaded libc6"
	rm -rf "$d"
	mv "$d.tmp" "$d"	# final paths from here on
	ld=$d${ld#"$d.tmp"}; libdir=$d${libdir#"$d.tmp"}
	cp "$d/root/usr/bin/linux.uml" "$d/linux.uml"
	patchelf --set-interpreter "$ld" --set-rpath "$libdir" "$d/linux.uml"
	"$d/linux.uml" --version >/dev/null 2>&1 || unavailable "patched $d/linux.uml does not run"
	rm -rf "$d/apt/lists" "$d/apt/cache" "$d/debs" "$d/root/usr/bin/linux.uml"
}

# Sets UML_BIN and UML_MODDIR for $KERNEL.
prepare_kernel() {
	local ver
	ver=$(dpkg-query -W -f '${Version}' user-mode-linux 2>/dev/null || true)
	if [ -z "$ver" ] && [ -z "${UML_FORCE_DOWNLOAD:-}" ] &&
		[ "$(. /etc/os-release && echo "${VERSION_CODENAME:-}")" = "$SUITE" ]; then
		log "installing user-mode-linux with apt"
		apt-get install -y -qq user-mode-linux >/dev/null || unavailable "apt-get install user-mode-linux failed"
		ver=$(dpkg-query -W -f '${Version}' user-mode-linux)
	fi
	if [[ $ver == "${KERNEL}um"* ]] && [ -x /usr/bin/linux.uml ] && [ -z "${UML_FORCE_DOWNLOAD:-}" ]; then
		UML_BIN=/usr/bin/linux.uml
		UML_MODDIR=/usr/lib/uml/modules/$(/usr/bin/linux.uml --version 2>/dev/null)
	else
		local d=$CACHE/$SUITE
		mkdir -p "$CACHE"
		exec 9>"$CACHE/.lock"
		flock 9
		[ -x "$d/linux.uml" ] || fetch_suite_uml "$d"
		flock -u 9
		exec 9>&-
		UML_BIN=$d/linux.uml
		UML_MODDIR=$d/root/usr/lib/uml/modules/$("$UML_BIN" --version 2>/dev/null)
	fi
	[ -d "$UML_MODDIR" ] || unavailable "no modules dir $UML_MODDIR"
	[ "$KERNEL" = sid ] || [[ $("$UML_BIN" --version 2>/dev/null) == "$KERNEL".* ]] || unavailable "$UML_BIN is not a $KERNEL kernel"
}

if [ $PRINT_MIRROR = 1 ]; then debian_mirror; exit 0; fi
prepare_kernel
if [ $PREPARE_ONLY = 1 ]; then
	echo "kernel=$UML_BIN"
	echo "version=$("$UML_BIN" --version 2>/dev/null)"
	echo "modules=$UML_MODDIR"
	exit 0
fi

# ------------------------------------------------------------------- run ----

# Per-run directory: it must lie inside the guest root (the kernel execs the
# generated init from it); HOSTRUN is its host path, RUN its guest path.
if [ "$ROOT" = / ]; then
	HOSTRUN=$(mktemp -d "${TMPDIR:-/tmp}/run-in-uml.XXXXXX")
	HOSTRUN=$(cd "$HOSTRUN" && pwd -P)
	RUN=$HOSTRUN
else
	mkdir -p "$ROOT/tmp"
	HOSTRUN=$(mktemp -d "$ROOT/tmp/run-in-uml.XXXXXX")
	RUN=${HOSTRUN#"$ROOT"}
fi
UML_PID=
TAIL_PIDS=()
cleanup() {
	local rc=$?
	if [ -n "$UML_PID" ]; then	# timeout(1) passes the signal on to UML's group
		kill "$UML_PID" 2>/dev/null || true
		wait "$UML_PID" 2>/dev/null || true
	fi
	local p
	for p in "${TAIL_PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
	if [ $KEEP = 1 ]; then echo "$PROG: run directory kept: $HOSTRUN" >&2
	else rm -rf "$HOSTRUN"; fi
	exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

mkdir -p "$HOSTRUN/mods/lib/modules/$("$UML_BIN" --version)" "$HOSTRUN/uml"
: >"$HOSTRUN/stdout"
: >"$HOSTRUN/stderr"

# The caller's exported environment, minus what belongs to this shell.
{
	for name in $(compgen -e); do
		case $name in
		PWD|OLDPWD|SHLVL|_|BASH_*|MODPROBE_OPTIONS) continue ;;
		esac
		printf 'export %s=%q\n' "$name" "${!name}"
	done
} >"$HOSTRUN/env"

CWD=$(pwd -P)
# Where the current directory is seen in the guest: the same path when the
# root is the host's /, its path inside --root DIR when it lies there, else the
# same path with the host directory mounted onto it.
MOUNT_CWD=0
if [ "$ROOT" = / ]; then GUEST_CWD=$CWD
elif [ "$CWD" = "$ROOT" ]; then GUEST_CWD=/
elif [[ $CWD == "$ROOT"/* ]]; then GUEST_CWD=${CWD#"$ROOT"}
else GUEST_CWD=$CWD; MOUNT_CWD=1
fi
{
	printf '#!/bin/bash\n'
	printf '# generated by %s\n' "$PROG"
	printf 'RUN=%q\n' "$RUN"
	printf 'HOST_MODDIR=%q\n' "$UML_MODDIR"
	printf 'HOST_CWD=%q\n' "$CWD"
	printf 'GUEST_CWD=%q\n' "$GUEST_CWD"
	printf 'MOUNT_CWD=%q\n' "$MOUNT_CWD"
	printf 'MODULES=%q\n' "$MODULES"
	printf 'CMD=('; printf '%q ' "$@"; printf ')\n'
	cat <<'EOF'
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
exec </dev/null >>"$RUN/init.log" 2>&1
status=125
finish() {
	echo "$status" >"$RUN/status.tmp" && mv "$RUN/status.tmp" "$RUN/status"
	sync
	echo o >/proc/sysrq-trigger		# immediate power off
	sleep 10
	exit 0
}
fail() { echo "init: $*"; finish; }
# hostfs takes the host path as its whole option string.  util-linux >= 2.39
# passes options through fsconfig(), which 6.12's hostfs only accepts as
# "hostfs=PATH" (6.1 has no such key): force classic mount(2) first.
hostfs_mount() {
	LIBMOUNT_FORCE_MOUNT2=always mount -t hostfs -o "$1" hostfs "$2" 2>/dev/null ||
		mount -t hostfs -o "hostfs=$1" hostfs "$2" 2>/dev/null ||
		mount -t hostfs -o "$1" hostfs "$2"
}
PS4='+ ${EPOCHREALTIME} '
set -x
mount -t proc proc /proc || fail "mount proc"
mount -t sysfs sysfs /sys || fail "mount sysfs"
grep -q ' /dev devtmpfs ' /proc/mounts || mount -t devtmpfs devtmpfs /dev || true
mkdir -p /dev/pts /dev/shm 2>/dev/null && mount -t devpts devpts /dev/pts && mount -t tmpfs tmpfs /dev/shm || true
# Modules: the host's module tree is mounted under $RUN so nothing outside the
# run directory has to exist on the host; modprobe is pointed at it with -d,
# for the caller (MODPROBE_OPTIONS) and for kernel auto-loading (wrapper).
KVER=$(uname -r)
hostfs_mount "$HOST_MODDIR" "$RUN/mods/lib/modules/$KVER" || fail "mount modules"
MODPROBE=$(command -v modprobe) || fail "no modprobe in the guest root"
printf '#!/bin/sh\nexec %s -d %s "$@"\n' "$MODPROBE" "$RUN/mods" >"$RUN/modprobe"
chmod +x "$RUN/modprobe"
echo "$RUN/modprobe" >/proc/sys/kernel/modprobe
export MODPROBE_OPTIONS="-d $RUN/mods"
for m in $MODULES; do
	case $m in
	\?*) modprobe "${m#?}" || echo "init: optional module ${m#?} not loaded" ;;
	*) modprobe "$m" || fail "modprobe $m" ;;
	esac
done
if command -v ip >/dev/null; then ip link set lo up || fail "lo up"
else echo "init: no ip command, lo stays down"; fi
hostname uml 2>/dev/null || true
if [ "$MOUNT_CWD" = 1 ]; then
	mkdir -p "$GUEST_CWD" && hostfs_mount "$HOST_CWD" "$GUEST_CWD" || fail "mount cwd"
fi
cd "$GUEST_CWD" || fail "cd $GUEST_CWD"
set +x
. "$RUN/env"
export MODPROBE_OPTIONS="-d $RUN/mods"
export HOME=${HOME:-/root}
echo "init: running ${CMD[*]}"
"${CMD[@]}" >"$RUN/stdout" 2>"$RUN/stderr" </dev/null
status=$?
echo "init: exit status $status"
finish
EOF
} >"$HOSTRUN/init"
chmod +x "$HOSTRUN/init"

# Stream the command's output while it runs (hostfs writes go straight to the
# host file, so tail sees them at once).
start_tails() {
	tail -s 0.2 -n +1 -F --pid="$1" "$HOSTRUN/stdout" 2>/dev/null &
	TAIL_PIDS+=($!)
	tail -s 0.2 -n +1 -F --pid="$1" "$HOSTRUN/stderr" >&2 2>/dev/null &
	TAIL_PIDS+=($!)
}

# The console (kernel log) and UML's own host-side chatter go to a file; the
# console input is the "null" channel, so no host tty is touched, stdin may be
# closed, and UML never sets O_NONBLOCK on a descriptor it shares with us.
# timeout(1) runs UML in a process group of its own and kills that whole
# group (UML's helper processes included) when the time is up.
T0=$(date +%s.%N)
timeout -k 10 "$TIMEOUT" "$UML_BIN" \
	mem="$MEM" rootfstype=hostfs rootflags="$ROOT" rw \
	init="$RUN/init" uml_dir="$HOSTRUN/uml" \
	con=null ssl=null con0=null,fd:1 printk.time=1 pty.legacy_count=0 $APPEND \
	</dev/null >"$HOSTRUN/console.log" 2>&1 &
UML_PID=$!
start_tails "$UML_PID"
set +e
wait "$UML_PID"
uml_rc=$?
set -e
UML_PID=
for p in "${TAIL_PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
TAIL_PIDS=()
T1=$(date +%s.%N)

if [ -n "${UML_TIMING:-}" ]; then
	awk -v a="$T0" -v b="$T1" 'BEGIN { printf "run-in-uml: %.2f s wall\n", b - a }' >&2
fi
if [ $SHOW_CONSOLE = 1 ]; then
	{ echo "----- guest console -----"; cat "$HOSTRUN/console.log"; echo "----- guest init -----"; cat "$HOSTRUN/init.log" 2>/dev/null; } >&2
fi
# No init.log: the kernel never ran our init, so UML cannot start here.
if [ ! -e "$HOSTRUN/init.log" ]; then
	echo "$PROG: the guest never reached its init (UML exit $uml_rc); console:" >&2
	tail -n 20 "$HOSTRUN/console.log" >&2
	unavailable "$UML_BIN did not boot"
fi
if [ $uml_rc = 124 ] || [ $uml_rc = 137 ]; then
	echo "$PROG: timeout after ${TIMEOUT}s; last console and init lines:" >&2
	tail -n 5 "$HOSTRUN/console.log" >&2
	tail -n 5 "$HOSTRUN/init.log" >&2 2>/dev/null || true
	exit 124
fi
if [ ! -s "$HOSTRUN/status" ]; then
	echo "$PROG: guest ended without a status (UML exit $uml_rc); console and init log:" >&2
	tail -n 30 "$HOSTRUN/console.log" >&2
	tail -n 30 "$HOSTRUN/init.log" >&2 2>/dev/null || true
	exit 125
fi
status=$(cat "$HOSTRUN/status")
if [ "$status" = 125 ] && grep -q '^init: ' "$HOSTRUN/init.log"; then
	grep '^init: ' "$HOSTRUN/init.log" >&2
fi
exit "$status"
