#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# build-deb.sh: build the Debian packages (Documentation/packaging.rst)
# from a copy of the tree in build/deb/cosched-VERSION/, so that the
# package's clean step never touches the tree's own build/; the .debs
# land in build/deb/.  Files git ignores are left out of the copy.
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
out=$root/build/deb
ver=$(cd "$root" && dpkg-parsechangelog -S Version)
src=$out/cosched-$ver

rm -rf "$out"
mkdir -p "$src"
cd "$root"
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	# Tracked and new files as they are in the tree (a deleted one is
	# skipped).
	git ls-files -z --cached --others --exclude-standard |
		xargs -0 sh -c 'for f; do [ -e "$f" ] && printf "%s\0" "$f"; done' sh |
		tar --null -T - -cf - | tar -xf - -C "$src"
else
	tar --exclude=./build -cf - . | tar -xf - -C "$src"
fi
cd "$src"
dpkg-buildpackage -us -uc -b
rm -rf "$src"
ls "$out"/*.deb
