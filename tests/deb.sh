#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# deb.sh: build the Debian packages (make deb), check what each contains,
# run lintian (no error allowed; warnings are printed) and have DKMS build
# the module from cosched-dkms for both test kernels, in a DKMS tree of
# its own (the host's /var/lib/dkms is left as it was).  Host only, as
# root (dpkg-buildpackage, dkms).  Ends with "N passed, N failed".
#
#   tests/deb.sh [--no-build] [--no-dkms]
#     --no-build  check the .debs already in build/deb/
#     --no-dkms   skip the DKMS builds (a few minutes)
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 1
out=$root/build/deb
build=1 dkms=1
for a in "$@"; do
	case $a in
	--no-build) build=0 ;;
	--no-dkms) dkms=0 ;;
	*) echo "usage: $0 [--no-build] [--no-dkms]" >&2; exit 2 ;;
	esac
done
passed=0 failed=0 n=0
ok() { n=$((n + 1)); passed=$((passed + 1)); echo "ok $n - $*"; }
nok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $*"; }
check() { local what=$1; shift; if "$@"; then ok "$what"; else nok "$what"; return 1; fi; }
finish() { echo "$passed passed, $failed failed"; exit $((failed > 0)); }

ver=$(dpkg-parsechangelog -S Version)
arch=$(dpkg --print-architecture)
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if ((build)); then
	t0=$SECONDS
	if make --no-print-directory deb >"$tmp/build.log" 2>&1; then
		ok "make deb ($((SECONDS - t0)) s)"
	else
		tail -n 30 "$tmp/build.log"
		nok "make deb"
		finish
	fi
fi

deb() { echo "$out/${1}_${ver}_$2.deb"; }
declare -A debs=(
	[cosched-dkms]=$(deb cosched-dkms all)
	[libcosched1]=$(deb libcosched1 "$arch")
	[libcosched-dev]=$(deb libcosched-dev "$arch")
	[cosched-mpi]=$(deb cosched-mpi "$arch")
	[cosched-tools]=$(deb cosched-tools "$arch")
)
for p in "${!debs[@]}"; do
	[ -f "${debs[$p]}" ] || { nok "$p: ${debs[$p]} exists"; finish; }
	dpkg-deb -x "${debs[$p]}" "$tmp/$p"
	dpkg-deb -e "${debs[$p]}" "$tmp/$p/DEBIAN"
done

# $1 package, then paths that must be in it.
has() {
	local p=$1 f missing=
	shift
	for f in "$@"; do
		[ -e "$tmp/$p/$f" ] || [ -L "$tmp/$p/$f" ] || missing="$missing $f"
	done
	[ -z "$missing" ] || echo "  $p lacks:$missing"
	[ -z "$missing" ]
}

src=usr/src/cosched-$ver
check "cosched-dkms: dkms.conf, the ABI header, modprobe.d, udev rule" \
	has cosched-dkms "$src/dkms.conf" "$src/include/uapi/linux/cosched.h" \
	"$src/kernel/Kbuild" etc/modprobe.d/cosched.conf \
	lib/udev/rules.d/60-cosched.rules usr/sbin/rmmod-cosched
# Every source file of the module, whatever kernel/ holds today.
check "cosched-dkms: every kernel/*.[ch] of the tree" \
	has cosched-dkms $(cd kernel && ls ./*.c ./*.h | sed "s|^\./|$src/kernel/|")
check "cosched-dkms: dkms.conf names cosched $ver" \
	grep -qx "PACKAGE_VERSION=\"$ver\"" "$tmp/cosched-dkms/$src/dkms.conf"
check "cosched-dkms: modprobe.d defaults are all commented out" \
	sh -c "! grep -q '^[[:space:]]*options' '$tmp/cosched-dkms/etc/modprobe.d/cosched.conf'"
# Each parameter the module takes (bpf_kfuncs only reports) is documented.
params=$(sed -n 's/.*module_param[a-z_]*(\([a-z_]*\),.*/\1/p' kernel/*.c | grep -vx bpf_kfuncs)
check "cosched-dkms: modprobe.d shows all $(echo "$params" | wc -l) parameters" \
	sh -c "for p in $(echo $params); do
		grep -q \"^#options cosched \$p=\" '$tmp/cosched-dkms/etc/modprobe.d/cosched.conf' ||
			{ echo \"  no \$p\"; exit 1; }; done"
check "cosched-dkms: modprobe.d file is a conffile" \
	grep -qx /etc/modprobe.d/cosched.conf "$tmp/cosched-dkms/DEBIAN/conffiles"
check "cosched-dkms: postinst creates group cosched and runs dkms" \
	sh -c "grep -q 'addgroup --system --quiet cosched' '$tmp/cosched-dkms/DEBIAN/postinst' &&
		grep -q common.postinst '$tmp/cosched-dkms/DEBIAN/postinst'"
check "cosched-dkms: udev rule gives the device to group cosched" \
	grep -q 'GROUP="cosched"' "$tmp/cosched-dkms/lib/udev/rules.d/60-cosched.rules"

lib=usr/lib/$multiarch
check "libcosched1: libcosched.so.1 only" \
	sh -c "[ \"\$(cd '$tmp/libcosched1' && find usr/lib -type f -o -type l)\" = '$lib/libcosched.so.1' ]"
check "libcosched1: soname libcosched.so.1" \
	sh -c "objdump -p '$tmp/libcosched1/$lib/libcosched.so.1' | grep -q 'SONAME *libcosched.so.1$'"
# Every exported function at COSCHED_1, one per declaration in cosched.h.
exports() {
	objdump -T "$tmp/libcosched1/$lib/libcosched.so.1" |
		awk '$4 == ".text" { print $6, $7 }' | sort
}
decls() {
	sed -n 's/^[a-z].*[ *]\(cosched_[a-z_]*\)(.*/COSCHED_1 \1/p' userlib/include/cosched.h | sort
}
check "libcosched1: exports exactly cosched.h's functions, at COSCHED_1 ($(decls | wc -l))" \
	diff <(exports) <(decls)
check "libcosched-dev: headers, .so link, .a, cosched.pc, man pages" \
	has libcosched-dev usr/include/cosched.h usr/include/linux/cosched.h \
	"$lib/libcosched.so" "$lib/libcosched.a" "$lib/pkgconfig/cosched.pc" \
	usr/share/man/man3/cosched_open.3.gz usr/share/man/man7/libcosched.7.gz
check "libcosched-dev: a man page for every function" \
	has libcosched-dev $(decls | awk '{ print "usr/share/man/man3/" $2 ".3.gz" }' | grep -v cosched_arrivals)
check "libcosched-dev: cosched.pc points at the multiarch libdir" \
	grep -qx "libdir=/$lib" "$tmp/libcosched-dev/$lib/pkgconfig/cosched.pc"

glue=$lib/cosched
check "cosched-mpi: cosched-run and both glue libraries" \
	has cosched-mpi usr/bin/cosched-run "$glue/libcosched-mpi-mpich.so" \
	"$glue/libcosched-mpi-openmpi.so" usr/share/man/man1/cosched-run.1.gz
check "cosched-mpi: cosched-run looks for the glue in /$glue" \
	grep -qx "GLUEDIR=\${COSCHED_MPI_GLUE_DIR:-/$glue}" "$tmp/cosched-mpi/usr/bin/cosched-run"
check "cosched-mpi: the glue exports MPI, not libcosched" \
	sh -c "nm -D --defined-only '$tmp/cosched-mpi/$glue/libcosched-mpi-mpich.so' | grep -q ' MPI_Recv' &&
		! nm -D --defined-only '$tmp/cosched-mpi/$glue/libcosched-mpi-mpich.so' | grep -q ' cosched_open'"
# The packaged launcher and glue run a C program (a glue that needs a
# symbol the program does not load fails here when bound at load time).
cat >"$tmp/hello.c" <<'EOF'
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	int rank, sum;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	if (!rank)
		printf("hello: sum %d\n", sum);
	MPI_Finalize();
	return 0;
}
EOF
for m in mpich openmpi; do
	mpicc.$m -o "$tmp/hello.$m" "$tmp/hello.c" &&
		COSCHED_MPI_GLUE_DIR=$tmp/cosched-mpi/$glue OMPI_ALLOW_RUN_AS_ROOT=1 \
		OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 timeout 120 \
		"$tmp/cosched-mpi/usr/bin/cosched-run" -v -m $m -n 2 "$tmp/hello.$m" \
		>"$tmp/hello.$m.out" 2>&1
	check "cosched-mpi: cosched-run runs a 2-rank $m C program through the glue" \
		sh -c "grep -q '^hello: sum 1$' '$tmp/hello.$m.out' &&
			grep -Eq 'rank 1.* Allreduce 1$' '$tmp/hello.$m.out'" ||
		sed 's/^/  /' "$tmp/hello.$m.out"
done

check "cosched-tools: monitor, hooks, unit, man pages" \
	has cosched-tools usr/sbin/cosched-monitor usr/sbin/cosched-hooks \
	lib/systemd/system/cosched-hooks.service \
	usr/share/man/man8/cosched-hooks.8.gz usr/share/man/man8/cosched-monitor.8.gz
check "cosched-tools: unit runs the packaged cosched-hooks" \
	grep -qx 'ExecStart=/usr/sbin/cosched-hooks attach' \
	"$tmp/cosched-tools/lib/systemd/system/cosched-hooks.service"

if command -v lintian >/dev/null; then
	lintian -I "$out/cosched_${ver}_$arch.changes" >"$tmp/lintian" 2>&1
	sed -n 's/^\([EW]\): /lintian: &/p' "$tmp/lintian"
	check "lintian: no error ($(grep -c '^W: ' "$tmp/lintian") warnings)" \
		sh -c "! grep -q '^E: ' '$tmp/lintian'"
else
	nok "lintian installed (apt-get install lintian)"
fi

# DKMS in a tree of its own; sign_file pointing nowhere stops DKMS from
# creating a signing key in /var/lib/dkms (unsigned modules load).
if ((dkms)); then
	if ! command -v dkms >/dev/null; then
		nok "dkms installed (apt-get install dkms)"
		finish
	fi
	before=$(ls -la /var/lib/dkms 2>&1)
	d=(--dkmstree "$tmp/dkms" --sourcetree "$tmp/cosched-dkms/usr/src")
	mkdir -p "$tmp/dkms"
	dkms add -m cosched -v "$ver" "${d[@]}" >/dev/null
	for k in 6.1 6.12; do
		rel=$(tests/vm/kernels.sh resolve "$k") || { nok "kernel $k resolves"; continue; }
		kdir=$(tests/vm/kernels.sh kdir "$rel")
		t0=$SECONDS
		if sign_file=/nonexistent nice -n 19 dkms build -m cosched -v "$ver" -k "$rel" \
			--kernelsourcedir "$kdir" "${d[@]}" >"$tmp/dkms-$k.log" 2>&1; then
			ko=$tmp/dkms/cosched/$ver/$rel/$(uname -m)/module/cosched.ko
			check "dkms build for $rel ($((SECONDS - t0)) s): vermagic $rel" \
				sh -c "modinfo -F vermagic '$ko' | grep -q '^$rel '"
		else
			tail -n 20 "$tmp/dkms-$k.log"
			find "$tmp/dkms" -name make.log -exec tail -n 20 {} \;
			nok "dkms build for $rel"
		fi
	done
	check "dkms: /var/lib/dkms unchanged" test "$before" = "$(ls -la /var/lib/dkms 2>&1)"
fi
finish
