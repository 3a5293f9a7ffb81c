# attack: read the memory of the test process (/proc/TESTPID/mem): search its
# stack for the canary in its environment.
# detected: the test looks for its canary in $PWD/loot.
"$PY" - <<'PYEOF'
import os, re
pid = os.environ["TESTPID"]
out = open("loot", "wb")
with open("/proc/%s/mem" % pid, "rb", 0) as mem:
    for line in open("/proc/%s/maps" % pid):
        rng, perms = line.split()[:2]
        if not perms.startswith("r") or "[stack]" not in line:
            continue
        lo, hi = (int(x, 16) for x in rng.split("-"))
        mem.seek(lo)
        data = mem.read(hi - lo)
        for m in re.finditer(rb"ESCAPE_CANARY=[0-9a-f]+", data):
            out.write(m.group(0) + b"\n")
PYEOF
