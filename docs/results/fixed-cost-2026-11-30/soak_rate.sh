#!/bin/bash
# soakrate.sh LABEL LIB: one 45 s MPICH caller soak (rescue after 1 ms), killed past 800 MB
label=$1; lib=$2; out=/tmp/p/rate-$label.txt
( env ${lib:+LD_LIBRARY_PATH=$lib} OVERLAP_CALLER_RESCUE_MS=1 timeout 200 mpiexec.mpich -n 3 /work/main/build/test-mpich/tests/mpi/ovx-soak caller --seconds 45 > $out 2>&1 ) &
pid=$!; peak=0
while kill -0 $pid 2>/dev/null; do sleep 1; for r in $(ps -C ovx-soak -o rss=); do [ "$r" -gt "$peak" ] && peak=$r; done
  if [ "$peak" -gt 800000 ]; then pkill -f ovx-soak; fi; done
echo "$label peak ${peak} kB $(grep -cE '^PASS' $out) pass"
