#!/usr/bin/env bash
# Why a tensor-parallel point hangs on 2 GPUs: tiny generate eager and graph at tp2, each
# with a short --comm-timeout; a run still going after 25 s gets every rank's stacks (gdb).
# usage: OUT=dir docs/results/issue44/call-tp-debug.sh bundle.tar.xz
set -u
out=${OUT:-$PWD/out}; mkdir -p "$out"
rm -rf /tmp/b && mkdir -p /tmp/b && tar -C /tmp/b -xf "$1"
bin=$(echo /tmp/b/rooftop-*/bin); R=$bin/rooftop
export ROOFTOP_HOME=/tmp/rooftop-home NCCL_NVLS_ENABLE=0 NCCL_DEBUG=WARN ROOFTOP_TP_TRACE=1
which gdb > "$out/tools.txt" 2>&1
for shape in tiny:generate:2x16x8:eager:tp2 tiny:generate:2x16x8:graph:tp2; do
  name=$(echo "$shape" | tr ':' '_')
  "$R" run --ranks 2 --backend cuda --suite inference --dtype bf16 --seed 7 --repetitions 1 --comm-timeout 40 \
    --shape "$shape" --out "$out/$name.json" > "$out/$name.log" 2>&1 &
  job=$!
  for i in $(seq 25); do sleep 1; kill -0 $job 2>/dev/null || break; done
  if kill -0 $job 2>/dev/null; then
    for pid in $(pgrep -f "rooftop run --ranks"); do
      echo "== pid $pid $(tr '\0' ' ' < /proc/$pid/environ | grep -o 'ROOFTOP_RANK=[0-9]*')" >> "$out/$name.stacks"
      for t in /proc/$pid/task/*; do echo "$t $(cat $t/comm) $(cat $t/wchan)"; done >> "$out/$name.stacks" 2>&1
    done
  fi
  wait $job; echo "$shape exit $?"; grep -v "^\[" "$out/$name.log" | cut -c1-200 | tail -25
done
