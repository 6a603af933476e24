#!/usr/bin/env bash
# debug-kernel.sh - build (once) a 6.12 kernel with KASAN, lockdep, kmemleak
# and debug objects from Debian's linux-source-6.12, for `make check-debug`.
#
#   debug-kernel.sh build    build it unless cached; print its release
#   debug-kernel.sh release  print the release of the cached build (fails if
#                            there is none for this source and debug.config)
#   debug-kernel.sh tree     print its build tree (the kbuild dir for M= builds)
#
# The config is x86_64 defconfig + kvm_guest.config + debug.config (beside
# this script), not Debian's: that one builds thousands of modules, hours on
# two cores. The build lives in
#   $COSCHED_CACHE/debug-kernel/<source version>-<hash of debug.config>/linux
# and is installed like an unpacked Debian image, so that kernels.sh and
# vmrun.sh boot it as any other release:
#   $COSCHED_CACHE/kernels/<release>/{boot/vmlinuz-R,lib/modules/R}
# The release is 6.12.N-debug-<hash>: a new fragment is a new kernel.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
CACHE="${COSCHED_CACHE:-${HOME:-/root}/.cache/cosched}"
DCACHE="$CACHE/debug-kernel"
KCACHE="$CACHE/kernels"
FRAGMENT="$HERE/debug.config"
SRCPKG=linux-source-6.12
JOBS=2
export DEBIAN_FRONTEND=noninteractive

log() { echo "debug-kernel.sh: $*" >&2; }
die() { log "error: $*"; exit 1; }

usage() {
	sed -n '2,8s/^# \{0,1\}//p' "$0" >&2
	exit 2
}

# Only the option lines count: editing a comment must not cost a rebuild.
fragment_hash() {
	grep -E '^(CONFIG_|# CONFIG_)' "$FRAGMENT" | LC_ALL=C sort | sha256sum | cut -c1-8
}

src_version() {
	dpkg-query -W -f='${db:Status-Status} ${Version}' "$SRCPKG" 2>/dev/null |
		sed -n 's/^installed //p'
}

# Set KEY, DIR, TREE for the installed source; empty KEY if none.
locate() {
	local ver
	ver=$(src_version)
	KEY='' DIR='' TREE=''
	[[ -n "$ver" ]] || return 0
	KEY="${ver//[~:]/_}-$(fragment_hash)"
	DIR="$DCACHE/$KEY"
	TREE="$DIR/linux"
}

# The release of a finished build, empty if there is none.
built_release() {
	local rel
	[[ -n "$KEY" && -s "$DIR/.built" ]] || return 0
	rel=$(cat "$DIR/.built")
	[[ -f "$KCACHE/$rel/boot/vmlinuz-$rel" && -f "$TREE/Module.symvers" ]] && echo "$rel"
	return 0
}

install_packages() {
	local need=() p
	pkg_ok "$SRCPKG" || need+=("$SRCPKG")
	# What a kernel build needs beyond the module builds' packages.
	for p in flex bison bc libelf-dev libssl-dev dwarves cpio kmod; do
		pkg_ok "$p" || need+=("$p")
	done
	((${#need[@]})) || return 0
	log "installing ${need[*]}"
	apt-get install -y -q=2 --no-install-recommends "${need[@]}" >&2 ||
		{ apt-get update -qq >/dev/null && apt-get install -y -q=2 --no-install-recommends "${need[@]}" >&2; } ||
		die "apt-get install ${need[*]} failed"
}

pkg_ok() {
	[[ "$(dpkg-query -W -f='${db:Status-Status}' "$1" 2>/dev/null)" == installed ]]
}

unpack() {
	local tarballs tarball tmp
	[[ -f "$TREE/Makefile" ]] && return 0
	tarballs=(/usr/src/linux-source-6.12.tar.*)
	tarball=${tarballs[0]}
	[[ -f "$tarball" ]] || die "$SRCPKG is installed but /usr/src has no tarball"
	log "unpacking $tarball into $DIR"
	mkdir -p "$DIR"
	tmp=$(mktemp -d "$DIR/.unpack.XXXXXX")
	tar -xf "$tarball" -C "$tmp" || { rm -rf "$tmp"; die "tar -xf $tarball failed"; }
	mv "$tmp"/linux-source-6.12 "$TREE"
	rmdir "$tmp"
}

# Every option debug.config sets must be in the final .config as asked:
# Kconfig silently drops an option whose dependencies are not met.
verify_config() {
	local line opt bad=0
	while read -r line; do
		case "$line" in
		"# CONFIG_"*)
			opt=${line#\# }
			opt=${opt%% *}
			if grep -q "^$opt=" "$TREE/.config"; then
				log "asked '$line', got '$(grep "^$opt=" "$TREE/.config")'"
				bad=1
			fi
			;;
		CONFIG_*)
			if ! grep -qxF "$line" "$TREE/.config"; then
				opt=${line%%=*}
				log "asked '$line', got '$(grep "^$opt=" "$TREE/.config" || echo "# $opt is not set")'"
				bad=1
			fi
			;;
		esac
	done < <(grep -E '^(CONFIG_|# CONFIG_)' "$FRAGMENT")
	((bad == 0)) || die "the merged .config lacks options of $FRAGMENT (unmet dependencies?)"
}

configure() {
	[[ -f "$DIR/.configured" && -f "$TREE/.config" ]] && return 0
	log "configuring: defconfig + kvm_guest.config + $(basename "$FRAGMENT")"
	(
		cd "$TREE"
		rm -f .config
		make -s defconfig
		make -s kvm_guest.config
		scripts/kconfig/merge_config.sh -m .config "$FRAGMENT"
		# The hash in the release keeps two configs' modules apart.
		echo "CONFIG_LOCALVERSION=\"-debug-$(fragment_hash)\"" >>.config
		make -s olddefconfig
	) >"$DIR/configure.log" 2>&1 || die "configuring failed, see $DIR/configure.log"
	verify_config
	touch "$DIR/.configured"
}

compile() {
	local start secs
	log "building in $TREE (nice -n 19 make -j$JOBS: well over an hour on a shared 2-core machine), log: $DIR/build.log"
	start=$(date +%s)
	(cd "$TREE" && nice -n 19 make -j"$JOBS" all) >"$DIR/build.log" 2>&1 ||
		{ tail -n 30 "$DIR/build.log" >&2; die "kernel build failed, see $DIR/build.log"; }
	secs=$(($(date +%s) - start))
	echo "$secs" >"$DIR/build-seconds"
	log "built in ${secs}s"
}

# Install like kernels.sh unpacks a Debian image: boot/vmlinuz-R and a
# depmod'ed lib/modules/R, whose build link is the tree (kernels.sh kdir).
install_image() {
	local rel=$1 tmp dst="$KCACHE/$1"
	mkdir -p "$KCACHE"
	tmp=$(mktemp -d "$KCACHE/.debug.XXXXXX")
	mkdir -p "$tmp/boot"
	cp "$TREE/arch/x86/boot/bzImage" "$tmp/boot/vmlinuz-$rel"
	cp "$TREE/.config" "$tmp/boot/config-$rel"
	# Stripped modules: a fraction of the size, still with their BTF.
	(cd "$TREE" && make -s INSTALL_MOD_PATH="$tmp" INSTALL_MOD_STRIP=1 DEPMOD=true modules_install) \
		>"$DIR/install.log" 2>&1 || { rm -rf "$tmp"; die "modules_install failed, see $DIR/install.log"; }
	ln -sfn "$TREE" "$tmp/lib/modules/$rel/build"
	rm -f "$tmp/lib/modules/$rel/source"
	depmod -b "$tmp" "$rel" || { rm -rf "$tmp"; die "depmod for $rel failed"; }
	# vmrun.sh keys its initramfs cache on this file.
	echo "debug-kernel $KEY $(date +%s)" >"$tmp/.cosched-unpacked"
	rm -rf "$dst"
	mv "$tmp" "$dst"
}

build() {
	local rel
	install_packages
	locate
	[[ -n "$KEY" ]] || die "$SRCPKG is not installed"
	rel=$(built_release)
	if [[ -n "$rel" ]]; then
		echo "$rel"
		return 0
	fi
	mkdir -p "$DCACHE"
	exec 9>"$DCACHE/.lock"
	flock 9
	rel=$(built_release)
	[[ -n "$rel" ]] && { echo "$rel"; return 0; }
	unpack
	configure
	compile
	rel=$(cd "$TREE" && make -s kernelrelease)
	[[ "$rel" == *-debug-* ]] || die "unexpected release '$rel'"
	install_image "$rel"
	echo "$rel" >"$DIR/.built"
	log "cache: $(du -sh "$DIR" | cut -f1) in $DIR, $(du -sh "$KCACHE/$rel" | cut -f1) in $KCACHE/$rel"
	echo "$rel"
}

main() {
	(($# == 1)) || usage
	local rel
	case "$1" in
	build) build ;;
	release | tree)
		locate
		rel=$(built_release)
		[[ -n "$rel" ]] || die "no debug kernel built for this source and $(basename "$FRAGMENT"); run: $0 build (or make check-debug)"
		if [[ "$1" == release ]]; then echo "$rel"; else echo "$TREE"; fi
		;;
	*) usage ;;
	esac
}

main "$@"
