#!/usr/bin/python3
"""slurm_cluster.py — a real single-node Slurm cluster for the tests, started
and stopped by the test itself (no systemd): munged with a fresh key,
slurmctld and slurmd in the foreground, a minimal slurm.conf, all of it in a
temporary directory, as root.  Debian 12's slurm-wlm 22.05 and munge
(scripts/install-deps.sh).

    with Cluster(tmpdir) as c:       # raises Unavailable when it cannot start
        c.run(["srun", "-n", "2", "hostname"])   # SLURM_CONF in c.env

The node declares 8 CPUs whatever the machine has (SlurmdParameters=
config_overrides): the tests start 4 tasks on a 2-core machine, as mpirun
--oversubscribe does."""
import os
import shutil
import socket
import subprocess
import time


class Unavailable(Exception):
    """Slurm cannot start here (not root, a daemon missing or failing)."""


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


CONF = """\
ClusterName=scalana-test
SlurmctldHost={host}
SlurmctldPort={ctld_port}
SlurmdPort={d_port}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket={dir}/munge.socket
CredType=cred/munge
StateSaveLocation={dir}/state
SlurmdSpoolDir={dir}/spool
SlurmctldPidFile={dir}/slurmctld.pid
SlurmdPidFile={dir}/slurmd.pid
SlurmctldLogFile={dir}/slurmctld.log
SlurmdLogFile={dir}/slurmd.log
SlurmdParameters=config_overrides
ProctrackType=proctrack/pgid
TaskPlugin=task/none
SwitchType=switch/none
MpiDefault=none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
ReturnToService=2
MailProg=/bin/true
PropagateResourceLimits=NONE
KillWait=2
InactiveLimit=0
MinJobAge=10
NodeName={host} CPUs=8 State=UNKNOWN
PartitionName=test Nodes={host} Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
"""


class Cluster:
    def __init__(self, workdir):
        self.dir = os.path.abspath(workdir)
        self.procs = []
        self.munged_pid = None
        self.env = dict(os.environ)

    # ---- start ---------------------------------------------------------------
    def __enter__(self):
        try:
            self.start()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc):
        self.stop()

    def start(self):
        if os.geteuid() != 0:
            raise Unavailable("not root: slurmd and munged of our own need root")
        for exe in ("munged", "slurmctld", "slurmd", "srun", "sinfo"):
            if not shutil.which(exe) and not os.path.exists("/usr/sbin/" + exe):
                raise Unavailable(f"{exe} not installed (scripts/install-deps.sh: slurm-wlm munge)")
        os.makedirs(self.dir, exist_ok=True)
        for d in ("state", "spool"):
            os.makedirs(os.path.join(self.dir, d), exist_ok=True)
        key = os.path.join(self.dir, "munge.key")
        with open(key, "wb") as f:
            f.write(os.urandom(1024))
        os.chmod(key, 0o600)
        os.chmod(self.dir, 0o755)
        sock = os.path.join(self.dir, "munge.socket")
        p = subprocess.run(["munged", "--force", "--key-file", key, "--socket", sock,
                            "--pid-file", os.path.join(self.dir, "munged.pid"),
                            "--log-file", os.path.join(self.dir, "munged.log"),
                            "--seed-file", os.path.join(self.dir, "munged.seed")],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=30)
        if p.returncode != 0:
            raise Unavailable("munged did not start: " + p.stdout.strip())
        with open(os.path.join(self.dir, "munged.pid")) as f:
            self.munged_pid = int(f.read().strip())
        host = socket.gethostname().split(".")[0]
        conf = os.path.join(self.dir, "slurm.conf")
        with open(conf, "w") as f:
            f.write(CONF.format(host=host, dir=self.dir, ctld_port=free_port(), d_port=free_port()))
        self.env["SLURM_CONF"] = conf
        self.host = host
        for cmd in (["slurmctld", "-D", "-i", "-f", conf], ["slurmd", "-D", "-f", conf, "-N", host]):
            log = open(os.path.join(self.dir, cmd[0] + ".out"), "w")
            self.procs.append(subprocess.Popen(cmd, env=self.env, stdout=log, stderr=subprocess.STDOUT))
        deadline = time.monotonic() + 40
        while time.monotonic() < deadline:
            for pr in self.procs:
                if pr.poll() is not None:
                    raise Unavailable(f"{pr.args[0]} exited {pr.returncode}: " + self.log_tail(pr.args[0]))
            s = subprocess.run(["sinfo", "-h", "-N", "-o", "%T"], env=self.env, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True)
            if s.returncode == 0 and s.stdout.strip() in ("idle", "mixed", "allocated"):
                return
            time.sleep(0.5)
        raise Unavailable("the node did not become idle in 40 s: " + self.log_tail("slurmd") +
                          self.log_tail("slurmctld"))

    def log_tail(self, name, n=15):
        out = []
        for suffix in (".out", ".log"):
            p = os.path.join(self.dir, name + suffix)
            if os.path.exists(p):
                with open(p, errors="replace") as f:
                    out += f.read().splitlines()[-n:]
        return "\n".join(out)

    # ---- use -----------------------------------------------------------------
    def run(self, cmd, env=None, timeout=180, cwd=None):
        full = dict(self.env)
        full.update(env or {})
        return subprocess.run(cmd, env=full, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True, timeout=timeout)

    # ---- stop ----------------------------------------------------------------
    def stop(self):
        """Stops the daemons this cluster started (by their own pids)."""
        for pr in reversed(self.procs):
            if pr.poll() is None:
                pr.terminate()
        for pr in reversed(self.procs):
            try:
                pr.wait(timeout=15)
            except subprocess.TimeoutExpired:
                pr.kill()
                pr.wait()
        self.procs = []
        if self.munged_pid:
            try:
                os.kill(self.munged_pid, 15)
                for _ in range(50):
                    os.kill(self.munged_pid, 0)
                    time.sleep(0.1)
            except ProcessLookupError:
                pass
            self.munged_pid = None
