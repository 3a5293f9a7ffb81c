# attack: load a kernel module (needs CAP_SYS_MODULE). The image is empty, so
# nothing is loaded even with the capability: the kernel checks the capability
# first (EPERM) and only then reads the image (EFAULT, ENOEXEC...).
# detected: the errno of init_module in $PWD/errno (a module that loaded would
# be seen from outside, but we do not load one).
"$PY" - <<'PYEOF'
import ctypes, errno, os
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
r = libc.syscall(175, None, 0, b"")
e = ctypes.get_errno()
open("errno", "w").write("0" if r == 0 else errno.errorcode.get(e, str(e)))
PYEOF
cat errno
