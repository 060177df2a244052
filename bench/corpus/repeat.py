"""A corpus program run over and over in one JVM (Repeat.java): a long-lived
JVM of real work to attach wasp to. Used by bench/corpus_attach.py (the
benchmark) and tests/integration/corpus.py (its smoke test).

Only programs whose rounds print a checksum line (programs.checksum_line) are
repeated: every round's checksum must then equal the one of a run without the
agent.
"""

import os
import subprocess
import tempfile
import threading

import programs

DRIVER = programs.Program("repeat", [], [], "runs a program's main over and over", {}, None,
                          None, None, driver="Repeat")


def repeatable(prog):
    return prog.digest is programs.checksum_line


class RepeatJvm:
    """The program under Repeat, started at once: its stdout lines in a
    list, its rounds counted. rounds=None: until stop() (the stop file)."""

    def __init__(self, prog, java, inputs, size, workdir, rounds=None, extra=()):
        programs.compile_driver(os.path.join(os.path.dirname(java), "javac"), DRIVER)
        self.dir = tempfile.mkdtemp(prefix=prog.name + "-", dir=workdir)
        self.stop_file = os.path.join(self.dir, "stop")
        cmd = prog.command(java, inputs, size, self.dir)
        # [java, heap..., -cp, CP, -D options..., MAIN, args...]: Repeat goes
        # in front of MAIN, its class on the class path.
        cp_at = cmd.index("-cp")
        rest = cmd[cp_at + 2:]
        opts = [a for a in rest if a.startswith("-D")]
        # The heap resident from the start: RSS then moves with native memory.
        self.cmd = (cmd[:cp_at] + ["-XX:+AlwaysPreTouch"] + list(extra) + opts +
                    ["-cp", cmd[cp_at + 1] + ":" + programs.CLASSES, "Repeat",
                     str(rounds) if rounds else self.stop_file] + rest[len(opts):])
        self.err = open(os.path.join(self.dir, "stderr.txt"), "wb")
        self.p = subprocess.Popen(self.cmd, cwd=self.dir, stdin=subprocess.DEVNULL,
                                  stdout=subprocess.PIPE, stderr=self.err, start_new_session=True)
        # The reader counts rounds as they end; next_round waits for one
        # that ends after it was called.
        self.out, self.rounds, self.ended = [], 0, False
        self.changed = threading.Condition()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        for raw in self.p.stdout:
            line = raw.decode(errors="replace").rstrip("\n")
            with self.changed:
                self.out.append(line)
                if line.startswith("round "):
                    self.rounds = int(line.split()[1])
                    self.changed.notify_all()
        with self.changed:
            self.ended = True
            self.changed.notify_all()

    def next_round(self, timeout):
        """Waits until a round ends (one that ends after this call): True, or
        False when the output ends first or after timeout seconds."""
        with self.changed:
            start = self.rounds
            return self.changed.wait_for(lambda: self.rounds > start or self.ended,
                                         timeout) and self.rounds > start

    def stop(self, timeout):
        """Asks the JVM to end after its round; its exit code (None: it did
        not end within timeout seconds and was killed)."""
        open(self.stop_file, "w").close()
        try:
            rc = self.p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            rc = None
        self.reader.join(timeout=30)  # every line read: the pipe closed with the JVM
        self.err.close()
        return rc

    def kill(self):
        try:
            os.killpg(self.p.pid, 9)
        except ProcessLookupError:
            pass
        self.p.wait()
        self.err.close()

    def rss_kib(self):
        try:
            with open("/proc/%d/status" % self.p.pid) as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        return int(line.split()[1])
        except OSError:
            pass
        return None

    def checksums(self):
        with self.changed:
            return [line[len("checksum: "):].strip() for line in self.out
                    if line.startswith("checksum: ")]

    def tail(self, n=5):
        with self.changed:
            return " | ".join(self.out[-n:])

    def stderr_text(self):
        with open(os.path.join(self.dir, "stderr.txt"), errors="replace") as f:
            return f.read()
