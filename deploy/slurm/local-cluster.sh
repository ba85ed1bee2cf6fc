#!/usr/bin/env bash
# Runs a sweep as a Slurm job array on a one-node Slurm cluster started on this machine, merges
# the shards and checks that the merged result is byte-identical to the same sweep run directly.
# CI runs it (.ci/run); it is also a way to try shard.sbatch before submitting it to a real cluster.
#
#   deploy/slurm/local-cluster.sh SIMULATE [SHARDS]
#
# SIMULATE is the simulate binary; SHARDS the number of array tasks (default 4). Needs Debian's
# slurm-wlm and munge (apt-get install slurm-wlm munge) and root, as the daemons run as root. All
# state (munge key and socket, slurm.conf, spool, logs, results) is in a scratch folder; munged,
# slurmctld and slurmd are started with their pid files there and stopped by them on exit, on
# success or failure. Nothing outside the scratch folder is changed.
set -euo pipefail

if [ $# -lt 1 ] || [ ! -x "$1" ]; then
  echo "usage: $0 SIMULATE [SHARDS]" >&2
  exit 2
fi
sim=$(realpath "$1")
shards=${2:-4}
here=$(cd "$(dirname "$0")" && pwd)
for cmd in munged mungekey slurmctld slurmd sbatch sinfo; do
  command -v "$cmd" >/dev/null || { echo "$0: $cmd not found: apt-get install slurm-wlm munge" >&2; exit 2; }
done

work=$(mktemp -d /tmp/overloadsim-slurm.XXXXXX)
chmod 700 "$work"
export SLURM_CONF=$work/slurm.conf

# stop_daemon NAME: stop the daemon whose pid file is $work/NAME.pid, and wait until it is gone.
stop_daemon() {
  local pidfile=$work/$1.pid pid
  [ -s "$pidfile" ] || return 0
  pid=$(cat "$pidfile")
  kill "$pid" 2>/dev/null || return 0
  for _ in $(seq 100); do
    kill -0 "$pid" 2>/dev/null || return 0
    sleep 0.1
  done
  kill -9 "$pid" 2>/dev/null || true
}
finish() {
  local status=$?
  stop_daemon slurmd
  stop_daemon slurmctld
  stop_daemon munged
  if [ "$status" -ne 0 ]; then
    echo "== slurm: failed; the logs:" >&2
    for log in "$work"/*.log; do
      [ -f "$log" ] && { echo "--- $log" >&2; tail -n 30 "$log" >&2; }
    done
  fi
  rm -rf "$work"
  exit "$status"
}
trap finish EXIT

echo "== slurm: munged"
mungekey --create --keyfile="$work/munge.key"
munged --force --socket="$work/munge.socket" --key-file="$work/munge.key" --pid-file="$work/munged.pid" \
  --log-file="$work/munged.log" --seed-file="$work/munged.seed"

# The node as slurmd sees it (name, CPUs, sockets, memory): a node configured with more than it
# has would be drained.
node=$(slurmd -C | head -n 1)
mkdir -p "$work/state" "$work/spool"
cat >"$SLURM_CONF" <<EOF
ClusterName=overloadsim
SlurmctldHost=localhost(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$work/munge.socket
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
MpiDefault=none
ReturnToService=2
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
$node NodeAddr=127.0.0.1 State=UNKNOWN
PartitionName=local Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF

echo "== slurm: slurmctld and slurmd"
slurmctld
slurmd
for _ in $(seq 60); do
  state=$(sinfo --noheader --format=%T 2>/dev/null || true)
  [ "$state" = idle ] && break
  sleep 1
done
if [ "$state" != idle ]; then
  echo "$0: the node did not become idle (state: ${state:-none})" >&2
  exit 1
fi

# The sweep: a load sweep of the default scenario, small enough for CI.
sweep=(sweep spike --vary 'clients[0].workload.rate=1000/s:3000/s:500/s' --replications 2 --set duration=20s)

echo "== slurm: sbatch --array=0-$((shards - 1)) --wait shard.sbatch ${sweep[*]}"
SIMULATE=$sim sbatch --array="0-$((shards - 1))" --wait --output="$work/shard-%a.log" \
  "$here/shard.sbatch" "$work/shards" "${sweep[@]}"

echo "== slurm: merge, and the same sweep on this machine"
"$sim" merge "$work"/shards/shard-* --out "$work/merged" >/dev/null
"$sim" "${sweep[@]}" --out "$work/direct" >/dev/null 2>&1
for f in points.csv sweep.json manifest.json; do
  cmp "$work/direct/$f" "$work/merged/$f"
done
echo "== slurm: the merged sweep of $shards array tasks is byte-identical to the direct sweep"
