#!/usr/bin/env bash
# Kernel-style gates on the module, for every test kernel:
#   - builds with no warnings at W=1,
#   - sparse (C=2) reports nothing,
#   - checkpatch.pl --strict (from Debian's linux-source-6.1) reports nothing,
#   - kernel-doc is complete,
#   - the files keep their layers (tests/kernel-layers.py).
# Prints one "ok"/"not ok" line per gate and a final "N passed, N failed".
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cache=${COSCHED_CACHE:-$HOME/.cache/cosched}
kernels="$root/tests/vm/kernels.sh"
passed=0 failed=0

verdict() { # name, status, output
	if [ "$2" -eq 0 ] && [ -z "$3" ]; then
		echo "ok - $1"; passed=$((passed + 1))
	else
		echo "not ok - $1"; printf '%s\n' "$3" | sed 's/^/#   /'
		failed=$((failed + 1))
	fi
}

# checkpatch.pl, the data files it reads, and kernel-doc, taken from the
# source tarball (scripts/setup.sh may have fetched some of them already).
kernel_scripts() {
	local dir="$cache/checkpatch" tarball
	if [ ! -x "$dir/scripts/checkpatch.pl" ] || [ ! -f "$dir/scripts/kernel-doc" ]; then
		tarball=$(ls /usr/src/linux-source-6.1.tar.* | head -n1)
		mkdir -p "$dir"
		tar -xf "$tarball" -C "$dir" --strip-components=1 --wildcards \
			'*/scripts/checkpatch.pl' '*/scripts/spelling.txt' \
			'*/scripts/const_structs.checkpatch' '*/scripts/kernel-doc'
	fi
	echo "$dir/scripts"
}

for k in 6.1 6.12; do
	rel=$("$kernels" resolve "$k")
	kdir=$("$kernels" kdir "$rel")
	obj="$root/build/lint-$rel"
	rm -rf "$obj" && mkdir -p "$obj"
	for f in "$root"/kernel/*.c "$root"/kernel/*.h "$root"/kernel/Kbuild; do
		ln -s "$f" "$obj/"
	done
	status=0
	make -s -C "$kdir" M="$obj" COSCHED_ROOT="$root" W=1 C=2 modules \
		>"$obj/lint.log" 2>&1 || status=$?
	out=$(grep -v -e 'Skipping BTF generation' -e '^make\[' "$obj/lint.log" || true)
	verdict "module builds for $rel with W=1 and sparse silent" "$status" "$out"
done

scripts=$(kernel_scripts)
cp=$scripts/checkpatch.pl
# Trace headers follow the TRACE_EVENT layout that --strict's
# parenthesis checks do not know; everything else gets all checks.
cd "$root"
out=$( (perl "$cp" --no-tree --strict --terse --show-types -f \
	$(ls kernel/*.c kernel/*.h | grep -v trace.h) include/uapi/linux/cosched.h
	perl "$cp" --no-tree --strict --terse --show-types \
	--ignore OPEN_ENDED_LINE,PARENTHESIS_ALIGNMENT -f kernel/trace.h) |
	grep -v '^total:' || true)
verdict "checkpatch --strict" 0 "$out"

# Every function with a kernel-doc comment, and every uapi struct, is
# documented completely.
out=$(perl "$scripts/kernel-doc" -none kernel/*.c kernel/*.h \
	include/uapi/linux/cosched.h 2>&1 || true)
verdict "kernel-doc complete" 0 "$out"

# Calls go down the layers only, and no file shares a mutable global.
status=0
out=$(python3 "$root/tests/kernel-layers.py" "$root/kernel" 2>&1) || status=$?
[ "$status" -eq 0 ] && out=''
verdict "kernel layers (Documentation/design.rst)" "$status" "$out"
status=0
out=$(sh "$root/tests/kernel-layers-selftest.sh" 2>&1) || status=$?
[ "$status" -eq 0 ] && out=''
verdict "the layer check catches injected violations" "$status" "$out"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
