#!/bin/bash
# perf-bins.txt's table from a perf.data of QEMU's vCPU thread: samples per
# half second by what they hit.  perf-bins.sh PERF.DATA T0 OFFSET
# (T0: the perf clock of the first sample; OFFSET: realtime % 60 then)
perf script -i "$1" -F time,ip,sym 2>/dev/null | awk -v t0="$2" -v off="$3" '
{ t = $1; sub(":", "", t); bin = int((t - t0) / 0.5); sym = $3
  if (sym ~ /^float64|^int64_to_float|^float/) c = "sf"
  else if (sym ~ /mmu/) c = "mmu"
  else if (sym == "[unknown]") c = ($2 ~ /^7f/) ? "jit" : "q?"
  else if (sym ~ /qht|tcg_gen|tb_|translat/) c = "xlat"
  else c = "oth:"
  n[bin]++; k[bin, c]++ }
END { split("jit sf q? xlat mmu oth:", cs, " ")
  for (b = 0; b <= 50; b++) if (n[b]) {
    printf "%05.2f n=%d", (off + b * 0.5) % 60, n[b]
    for (i = 1; i <= 6; i++) printf " %s=%.2f", cs[i], k[b, cs[i]] / n[b]
    print "" } }'
