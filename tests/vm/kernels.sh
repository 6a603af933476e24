#!/usr/bin/env bash
# kernels.sh - find, download and unpack the Debian kernels the VM tests boot.
#
#   kernels.sh resolve 6.1|6.12|<release>  print the kernel release (6.1.0-56-amd64)
#                                           (6.12-debug: debug-kernel.sh's build)
#   kernels.sh fetch   6.1|6.12|<release>  install its headers, download and
#                                           unpack its image; print the release
#   kernels.sh image   6.1|6.12|<release>  only download/unpack the image; print
#                                           the unpacked directory (for vmrun.sh)
#   kernels.sh kdir    <release>            print the kbuild dir for out-of-tree builds
#   kernels.sh tick    6.1|6.12|<release>  print its tick in ns (1e9 / CONFIG_HZ, from
#                                           the image's boot/config, else a debug
#                                           tree's .config); exit 1 if neither says
#
# The ABI number (the "56" in 6.1.0-56) moves whenever Debian publishes a
# kernel update, so nothing here hard-codes it: the release is read from the
# metapackages' dependencies at run time.
#
# Kernel images are never installed: that would write the host's /boot and
# run update-initramfs for a kernel the host never boots. The image .deb is
# fetched with `apt-get download` and unpacked with `dpkg -x` into
#   $COSCHED_CACHE/kernels/<release>/   (boot/vmlinuz-<release>, lib/modules/<release>)
# COSCHED_CACHE defaults to ~/.cache/cosched.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
CACHE="${COSCHED_CACHE:-${HOME:-/root}/.cache/cosched}"
KCACHE="$CACHE/kernels"
DEB=
export DEBIAN_FRONTEND=noninteractive

log() { echo "kernels.sh: $*" >&2; }
die() { log "error: $*"; exit 1; }

usage() {
	sed -n '2,10s/^# \{0,1\}//p' "$0" >&2
	exit 2
}

# apt-get update at most once per run: setup.sh exports COSCHED_APT_UPDATED=1
# after its own update so that the kernels.sh calls it makes do not repeat it.
apt_update_once() {
	[[ "${COSCHED_APT_UPDATED:-0}" == 1 ]] && return 0
	log "apt-get update"
	apt-get update -qq >/dev/null || die "apt-get update failed"
	export COSCHED_APT_UPDATED=1
}

pkg_installed() {
	[[ "$(dpkg-query -W -f='${db:Status-Status}' "$1" 2>/dev/null)" == installed ]]
}

# Candidate version of a package in the apt lists, empty if unknown.
candidate_version() {
	local v
	v=$(apt-cache policy "$1" 2>/dev/null | sed -n 's/^ *Candidate: //p')
	[[ "$v" == "(none)" ]] && v=
	echo "$v"
}

# The release a metapackage currently points to, e.g. linux-image-amd64 ->
# 6.1.0-56-amd64. Empty if the apt lists do not know the metapackage.
meta_release() {
	apt-cache depends "$1" 2>/dev/null |
		sed -n 's/^ *|\{0,1\}Depends: linux-image-\([^ ]*\)$/\1/p' |
		sed 's/-unsigned$//' | head -n1
}

# resolve 6.1|6.12|<release>: print the release string.
resolve() {
	local want=$1 meta rel
	case "$want" in
	6.12-debug) "$HERE/debug-kernel.sh" release; return ;; # built, not fetched
	6.1) meta=linux-image-amd64 ;;       # bookworm's default kernel
	6.12) meta=linux-image-6.12-amd64 ;; # bookworm-backports/security 6.12 LTS
	*-*) echo "$want"; return 0 ;;       # already a release, e.g. 6.1.0-56-amd64
	*) die "unknown kernel '$want' (use 6.1, 6.12 or a release like 6.1.0-56-amd64)" ;;
	esac
	# apt-cache takes about a second to load its cache, and vmrun.sh resolves
	# on every boot: remember the answer until the package lists change.
	local memo="$KCACHE/.resolve-$meta"
	if [[ -s "$memo" && "$memo" -nt /var/lib/apt/lists ]]; then
		cat "$memo"
		return 0
	fi
	rel=$(meta_release "$meta")
	if [[ -z "$rel" ]]; then
		# Fresh machine: the package lists are empty until the first update.
		apt_update_once
		rel=$(meta_release "$meta")
	fi
	[[ -n "$rel" ]] || die "apt does not know $meta; is a Debian 12 mirror configured?"
	mkdir -p "$KCACHE"
	echo "$rel" >"$memo.$$" && mv -f "$memo.$$" "$memo"
	echo "$rel"
}

# Take an exclusive lock for the rest of the calling process so that parallel
# vmrun.sh / setup.sh runs do not unpack the same kernel twice.
lock_cache() {
	mkdir -p "$KCACHE"
	exec 9>"$KCACHE/.lock"
	flock 9
}

# image_deb <release>: make sure the image .deb for <release> is in the cache;
# set DEB to its path (not printed: apt_update_once must not run in a
# subshell). Re-downloads when the mirror has a newer build of it.
image_deb() {
	local rel=$1 pkg="linux-image-$1" ver deb
	ver=$(candidate_version "$pkg")
	if [[ -z "$ver" ]]; then
		# Not in the lists: fine if we already have a copy (an old release
		# still in the cache), otherwise the lists may just be stale.
		deb=$(find "$KCACHE" -maxdepth 1 -name "${pkg}_*.deb" 2>/dev/null | sort -V | tail -n1)
		if [[ -n "$deb" ]]; then DEB=$deb; return 0; fi
		apt_update_once
		ver=$(candidate_version "$pkg")
		[[ -n "$ver" ]] || die "no package $pkg in the apt lists"
	fi
	deb="$KCACHE/${pkg}_${ver//:/%3a}_amd64.deb"
	if [[ ! -s "$deb" ]]; then
		log "downloading $pkg=$ver"
		if ! download "$pkg=$ver"; then
			# Stale lists point at a file the mirror has dropped: refresh, and
			# take whatever build of this release the mirror has now.
			[[ "${COSCHED_APT_UPDATED:-0}" == 1 ]] && die "apt-get download $pkg=$ver failed"
			apt_update_once
			ver=$(candidate_version "$pkg")
			[[ -n "$ver" ]] || die "$pkg is no longer on the mirror"
			deb="$KCACHE/${pkg}_${ver//:/%3a}_amd64.deb"
			[[ -s "$deb" ]] || download "$pkg=$ver" || die "apt-get download $pkg=$ver failed"
		fi
		[[ -s "$deb" ]] || die "apt-get download did not produce $deb"
	fi
	DEB=$deb
}

download() {
	# The _apt sandbox user cannot write to root's cache dir; downloading as
	# root is what apt would fall back to anyway, minus the warning.
	(cd "$KCACHE" && apt-get download -q=2 -o APT::Sandbox::User=root "$1") >&2
}

# unpack_image <release>: print the unpacked image dir, unpacking if needed.
unpack_image() {
	local rel=$1 dir="$KCACHE/$1" deb tmp old
	lock_cache
	image_deb "$rel"
	deb=$DEB
	if [[ -f "$dir/.cosched-unpacked" && "$(cat "$dir/.cosched-unpacked")" == "$(basename "$deb")" &&
		-f "$dir/boot/vmlinuz-$rel" ]]; then
		echo "$dir"
		return 0
	fi
	log "unpacking $(basename "$deb") into $dir"
	# Unpack beside the final dir and rename, so an interrupted run never
	# leaves a half-unpacked kernel that looks complete.
	tmp=$(mktemp -d "$KCACHE/.unpack.XXXXXX")
	dpkg -x "$deb" "$tmp" || { rm -rf "$tmp"; die "dpkg -x $deb failed"; }
	[[ -f "$tmp/boot/vmlinuz-$rel" ]] || { rm -rf "$tmp"; die "$deb has no boot/vmlinuz-$rel"; }
	# The package's postinst would run depmod; we need modules.dep for modprobe
	# inside the guest and for vmrun.sh's initramfs builder.
	depmod -b "$tmp" "$rel" || { rm -rf "$tmp"; die "depmod for $rel failed"; }
	basename "$deb" >"$tmp/.cosched-unpacked"
	rm -rf "$dir"
	mv "$tmp" "$dir"
	# Keep one .deb per kernel: an old build of the same release is dead weight.
	for old in "$KCACHE/linux-image-${rel}"_*.deb; do
		[[ "$old" == "$deb" ]] || rm -f "$old"
	done
	echo "$dir"
}

# Install a do-nothing package that Provides the image the headers depend on.
# Debian's 6.12 headers Depend on "linux-image-R (= V) | linux-image-R-unsigned
# (= V)": without this, installing the headers would drag the image into /boot.
# (Debian's own tool for this is equivs; it is not worth its dependencies.)
install_image_stub() {
	local rel=$1 ver=$2 name="cosched-image-stub-$1" dir
	pkg_installed "$name" && return 0
	log "installing $name (provides linux-image-$rel-unsigned, installs nothing)"
	dir=$(mktemp -d)
	mkdir -p "$dir/pkg/DEBIAN"
	cat >"$dir/pkg/DEBIAN/control" <<EOF
Package: $name
Version: $ver
Architecture: all
Maintainer: cosched tests <root@localhost>
Provides: linux-image-$rel-unsigned (= $ver)
Section: misc
Priority: optional
Description: lets linux-headers-$rel install without a kernel image
 The cosched VM tests boot linux-image-$rel from an unpacked copy under
 QEMU; the host only needs the headers to build modules. Empty package.
EOF
	dpkg-deb --build --root-owner-group "$dir/pkg" "$dir/stub.deb" >/dev/null ||
		die "building $name failed"
	dpkg -i "$dir/stub.deb" >/dev/null || die "installing $name failed"
	rm -rf "$dir"
}

# install_headers <release>: apt-get install linux-headers-<release>.
install_headers() {
	local rel=$1 pkg="linux-headers-$1" ver need_image plan
	pkg_installed "$pkg" && return 0
	ver=$(candidate_version "$pkg")
	if [[ -z "$ver" ]]; then
		apt_update_once
		ver=$(candidate_version "$pkg")
		[[ -n "$ver" ]] || die "no package $pkg in the apt lists"
	fi
	need_image=$(apt-cache depends "$pkg" | grep -c "Depends: linux-image-$rel" || true)
	if ((need_image > 0)) && ! pkg_installed "linux-image-$rel" &&
		! pkg_installed "linux-image-$rel-unsigned"; then
		install_image_stub "$rel" "$ver"
	fi
	# Refuse, rather than quietly write /boot, if apt still wants an image.
	plan=$(apt-get install -s --no-install-recommends "$pkg" 2>&1) || die "apt cannot install $pkg: $plan"
	if grep -q '^Inst linux-image-' <<<"$plan"; then
		die "installing $pkg would install a kernel image into /boot:
$(grep '^Inst linux-image-' <<<"$plan")"
	fi
	log "installing $pkg"
	if ! apt-get install -y -q=2 --no-install-recommends "$pkg" >&2; then
		# Stale lists (a dependency's old version is gone): refresh once.
		[[ "${COSCHED_APT_UPDATED:-0}" == 1 ]] && die "apt-get install $pkg failed"
		apt_update_once
		apt-get install -y -q=2 --no-install-recommends "$pkg" >&2 || die "apt-get install $pkg failed"
	fi
}

kdir() {
	local rel=$1 d
	# The third is debug-kernel.sh's build tree.
	for d in "/lib/modules/$rel/build" "/usr/src/linux-headers-$rel" "$KCACHE/$rel/lib/modules/$rel/build"; do
		if [[ -f "$d/Makefile" ]]; then
			echo "$d"
			return 0
		fi
	done
	die "no headers for $rel; run: tests/vm/kernels.sh fetch $rel"
}

main() {
	(($# == 2)) || usage
	local cmd=$1 rel
	case "$cmd" in
	resolve) resolve "$2" ;;
	fetch)
		rel=$(resolve "$2")
		if [[ "$rel" == *-debug-* ]]; then
			"$HERE/debug-kernel.sh" build
			return
		fi
		install_headers "$rel"
		unpack_image "$rel" >/dev/null
		echo "$rel"
		;;
	image)
		rel=$(resolve "$2")
		# Already unpacked: no apt look-up (vmrun.sh calls this every boot).
		# `fetch` is what notices a newer build of the same release.
		if [[ -f "$KCACHE/$rel/.cosched-unpacked" && -f "$KCACHE/$rel/boot/vmlinuz-$rel" ]]; then
			echo "$KCACHE/$rel"
		elif [[ "$rel" == *-debug-* ]]; then
			die "debug kernel $rel is not built; run: tests/vm/debug-kernel.sh build"
		else
			unpack_image "$rel"
		fi
		;;
	kdir) kdir "$(resolve "$2")" ;;
	tick)
		rel=$(resolve "$2")
		local dir f
		dir=$(main image "$rel")
		for f in "$dir/boot/config-$rel" "$dir/lib/modules/$rel/build/.config"; do
			[[ -r "$f" ]] && awk -F= '$1 == "CONFIG_HZ" && $2 > 0 { print int(1e9 / $2); found = 1 }
				END { exit !found }' "$f" && return 0
		done
		return 1
		;;
	*) usage ;;
	esac
}

main "$@"
