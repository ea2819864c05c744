#!/usr/bin/env bash
# A one-node Slurm cluster on this machine, for the Slurm test suite and for trying
# `fourierlab-cli sweep run --slurm` without a real cluster. Debian's slurm-wlm and munge
# (scripts/setup.sh installs them): munged + slurmctld + slurmd, no systemd, no cgroups
# (proctrack/linuxproc, task/none), everything (config, keys, state, logs, pid files) in one
# private folder, on ports of its own. Run as root, as CI does: slurmd runs jobs as their user.
#
# Usage: scripts/slurm/local-cluster.sh start|stop|status
#   FOURIERLAB_SLURM_DIR  the private folder (default /tmp/fourierlab-slurm-$UID)
#   FOURIERLAB_SLURM_PORT the first of three consecutive ports tried (default 26817; the next
#                         free pair >= it is taken: slurmctld, slurmd)
#
# `start` prints `export SLURM_CONF=...`: Slurm's commands (sbatch, squeue, scancel) read the
# cluster from it, e.g. `eval "$(scripts/slurm/local-cluster.sh start)"`. It exits non-zero with
# the reason (and the daemon's last log lines) when a daemon cannot start; nothing it started is
# left running then. `stop` ends exactly the daemons this folder's pid files name, after checking
# that each pid still runs that daemon with this folder's config.
set -euo pipefail

DIR=${FOURIERLAB_SLURM_DIR:-/tmp/fourierlab-slurm-$(id -u)}
BASE_PORT=${FOURIERLAB_SLURM_PORT:-26817}
CONF=$DIR/etc/slurm.conf
NODE=fl-node

say() { echo "local-cluster: $*" >&2; }
die() {
  say "$*"
  exit 1
}

# The pid in FILE when it is alive and its command line names DAEMON and WORD (our folder), so a
# reused pid is never signalled.
ours() {
  local file=$1 daemon=$2 word=$3 pid
  [ -s "$file" ] || return 1
  pid=$(tr -dc '0-9' <"$file")
  [ -n "$pid" ] && [ -r "/proc/$pid/cmdline" ] || return 1
  local cmd
  cmd=$(tr '\0' ' ' <"/proc/$pid/cmdline")
  case "$cmd" in *"$daemon"*"$word"* | *"$word"*"$daemon"*) echo "$pid" ;; *) return 1 ;; esac
}

port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

stop_one() {
  local name=$1 file=$2 word=$3 pid
  if pid=$(ours "$file" "$name" "$word"); then
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 50); do
      [ -d "/proc/$pid" ] || break
      sleep 0.1
    done
    if [ -d "/proc/$pid" ]; then
      say "$name (pid $pid) did not stop on SIGTERM: SIGKILL"
      kill -KILL "$pid" 2>/dev/null || true
    fi
    say "stopped $name (pid $pid)"
  fi
  rm -f "$file"
}

stop() {
  # Jobs first: slurmd ends their processes when it is told to (scancel), not when it stops.
  if ours "$DIR/run/slurmctld.pid" slurmctld "$CONF" >/dev/null; then
    SLURM_CONF=$CONF scancel --full --quiet --user="$(id -un)" 2>/dev/null || true
  fi
  stop_one slurmd "$DIR/run/slurmd.pid" "$CONF"
  stop_one slurmctld "$DIR/run/slurmctld.pid" "$CONF"
  stop_one munged "$DIR/run/munged.pid" "$DIR/run/munge.socket"
}

show_log() {
  local log=$1
  if [ -s "$log" ]; then
    say "last lines of $log:"
    tail -n 15 "$log" >&2
  fi
}

# Waits up to ~20 s for a command to succeed.
wait_for() {
  for _ in $(seq 100); do
    if "$@" >/dev/null 2>&1; then return 0; fi
    sleep 0.2
  done
  return 1
}

fail_start() {
  say "$1"
  show_log "$2"
  stop
  exit 1
}

write_config() {
  local ctld_port=$1 slurmd_port=$2 cpus memory user
  cpus=$(nproc)
  # Leave the node some memory; --mem within it is accepted.
  memory=$(awk '/MemTotal/ {printf "%d", $2 / 1024 * 0.9}' /proc/meminfo)
  user=$(id -un)
  cat >"$CONF" <<EOF
# Written by scripts/slurm/local-cluster.sh: a one-node test cluster in $DIR.
ClusterName=fourierlab-local
SlurmctldHost=$(hostname -s)(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=$user
SlurmdUser=$user
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$DIR/run/munge.socket
StateSaveLocation=$DIR/state
SlurmdSpoolDir=$DIR/spool/%n
SlurmctldPidFile=$DIR/run/slurmctld.pid
SlurmdPidFile=$DIR/run/slurmd.pid
SlurmctldLogFile=$DIR/log/slurmctld.log
SlurmdLogFile=$DIR/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
# No systemd, no cgroups: processes tracked by their parent ids, tasks not confined.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
# The node is what this file says, whatever slurmd detects.
SlurmdParameters=config_overrides
ReturnToService=2
# Scancel and time limits: SIGTERM, then SIGKILL after this many seconds.
KillWait=30
MinJobAge=600
InactiveLimit=0
NodeName=$NODE NodeHostname=$(hostname -s) NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$memory State=UNKNOWN
PartitionName=debug Nodes=$NODE Default=YES MaxTime=INFINITE State=UP
EOF
}

start() {
  for tool in munged mungekey slurmctld slurmd sbatch squeue scancel scontrol; do
    command -v "$tool" >/dev/null ||
      die "cannot start: '$tool' is not installed (scripts/setup.sh installs slurm-wlm and munge)"
  done
  if ours "$DIR/run/slurmctld.pid" slurmctld "$CONF" >/dev/null &&
    ours "$DIR/run/slurmd.pid" slurmd "$CONF" >/dev/null; then
    say "already running in $DIR"
    echo "export SLURM_CONF=$CONF"
    return 0
  fi
  stop  # a half-started cluster from before
  mkdir -p "$DIR"
  chmod 700 "$DIR"
  mkdir -p "$DIR"/{etc,run,state,spool,log,munge}
  chmod 700 "$DIR"/{etc,run,munge}

  local ctld_port=$BASE_PORT
  while ! { port_free "$ctld_port" && port_free $((ctld_port + 1)); }; do
    ctld_port=$((ctld_port + 2))
    [ "$ctld_port" -lt $((BASE_PORT + 200)) ] || die "cannot start: no two free ports from $BASE_PORT"
  done
  write_config "$ctld_port" $((ctld_port + 1))

  [ -s "$DIR/munge/munge.key" ] || mungekey --create --keyfile="$DIR/munge/munge.key" >/dev/null
  chmod 600 "$DIR/munge/munge.key"
  munged --key-file="$DIR/munge/munge.key" --socket="$DIR/run/munge.socket" \
    --pid-file="$DIR/run/munged.pid" --log-file="$DIR/log/munged.log" \
    --seed-file="$DIR/munge/munged.seed" --force 2>>"$DIR/log/munged.log" ||
    fail_start "cannot start: munged failed" "$DIR/log/munged.log"
  wait_for munge --socket="$DIR/run/munge.socket" --no-input ||
    fail_start "cannot start: munged does not answer on $DIR/run/munge.socket" "$DIR/log/munged.log"

  slurmctld -f "$CONF" -i 2>>"$DIR/log/slurmctld.log" ||
    fail_start "cannot start: slurmctld failed" "$DIR/log/slurmctld.log"
  wait_for env SLURM_CONF="$CONF" scontrol ping ||
    fail_start "cannot start: slurmctld does not answer on port $ctld_port" "$DIR/log/slurmctld.log"

  mkdir -p "$DIR/spool/$NODE"
  slurmd -f "$CONF" -N "$NODE" 2>>"$DIR/log/slurmd.log" ||
    fail_start "cannot start: slurmd failed" "$DIR/log/slurmd.log"
  node_idle() {
    SLURM_CONF=$CONF sinfo -h -N -n "$NODE" -o '%T' | grep -qE '^(idle|mixed|allocated)'
  }
  wait_for node_idle ||
    fail_start "cannot start: node $NODE did not become idle ($(SLURM_CONF=$CONF sinfo -h -N -o '%T %E' 2>&1))" \
      "$DIR/log/slurmd.log"
  say "running in $DIR: slurmctld on port $ctld_port, slurmd on $((ctld_port + 1)), node $NODE with $(nproc) CPUs"
  echo "export SLURM_CONF=$CONF"
}

status() {
  local up=0
  for d in munged slurmctld slurmd; do
    local word=$CONF
    [ "$d" = munged ] && word=$DIR/run/munge.socket
    if pid=$(ours "$DIR/run/$d.pid" "$d" "$word"); then
      echo "$d: running (pid $pid)"
    else
      echo "$d: not running"
      up=1
    fi
  done
  if [ "$up" -eq 0 ]; then
    SLURM_CONF=$CONF sinfo -N -o '%N %T %C' || up=1
    echo "export SLURM_CONF=$CONF"
  fi
  return "$up"
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  status) status ;;
  *)
    echo "usage: $0 start|stop|status   (folder: \$FOURIERLAB_SLURM_DIR, now $DIR)" >&2
    exit 2
    ;;
esac
