# System V IPC through libc, for the escape suite (python has no sysv_ipc
# module here). Usage:
#   sysv-self.py use KEY     two processes meet at KEY: a segment, a
#                            semaphore set and a queue; prints "self=ok" and
#                            "ids=SHM,SEM,MSG", and leaves the three
#   sysv-self.py read KEY    prints "read=TEXT", what the segment of KEY holds
#   sysv-self.py attach ID   attaches segment ID, prints "attach=TEXT" and
#                            overwrites it, or "attach=ERRNO"
import ctypes
import os
import sys

libc = ctypes.CDLL(None, use_errno=True)
libc.shmat.restype = ctypes.c_void_p
libc.shmat.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_int]
libc.shmdt.argtypes = [ctypes.c_void_p]
libc.msgrcv.restype = ctypes.c_ssize_t
libc.msgrcv.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_long, ctypes.c_int]
libc.msgsnd.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
IPC_CREAT, IPC_NOWAIT = 0o1000, 0o4000


class sembuf(ctypes.Structure):
    _fields_ = [("num", ctypes.c_ushort), ("op", ctypes.c_short), ("flg", ctypes.c_short)]


class msgbuf(ctypes.Structure):
    _fields_ = [("mtype", ctypes.c_long), ("text", ctypes.c_char * 32)]


def check(name, r):
    if r == -1 or r is None or r == ctypes.c_void_p(-1).value:
        e = ctypes.get_errno()
        raise OSError(e, name + ": " + os.strerror(e))
    return r


def attach(id):
    return check("shmat", libc.shmat(id, None, 0))


def semop(sem, op, flg=0):
    b = sembuf(0, op, flg)
    check("semop", libc.semop(sem, ctypes.byref(b), 1))


def use(key):
    shm = check("shmget", libc.shmget(key, 4096, IPC_CREAT | 0o600))
    sem = check("semget", libc.semget(key, 1, IPC_CREAT | 0o600))
    msg = check("msgget", libc.msgget(key, IPC_CREAT | 0o600))
    pid = os.fork()
    if pid == 0:
        try:
            # Another process: it finds the three by the key alone.
            p = attach(check("shmget", libc.shmget(key, 0, 0)))
            ctypes.memmove(p, b"from-child\0", 11)
            libc.shmdt(ctypes.c_void_p(p))
            semop(check("semget", libc.semget(key, 0, 0)), 1)
            m = msgbuf(1, b"done")
            check("msgsnd", libc.msgsnd(check("msgget", libc.msgget(key, 0)), ctypes.byref(m), 32, 0))
            os._exit(0)
        except OSError as e:
            print("child:", e, flush=True)
            os._exit(1)
    _, status = os.waitpid(pid, 0)
    if status != 0:
        sys.exit("the child failed")
    semop(sem, -1, IPC_NOWAIT)
    m = msgbuf()
    check("msgrcv", libc.msgrcv(msg, ctypes.byref(m), 32, 0, IPC_NOWAIT))
    p = attach(shm)
    got = ctypes.string_at(p)
    libc.shmdt(ctypes.c_void_p(p))
    if m.text != b"done" or got != b"from-child":
        sys.exit("got %r and %r" % (m.text, got))
    print("self=ok")
    print("ids=%d,%d,%d" % (shm, sem, msg))


def main():
    what, arg = sys.argv[1], int(sys.argv[2], 0)
    try:
        if what == "use":
            use(arg)
        elif what == "read":
            p = attach(check("shmget", libc.shmget(arg, 0, 0)))
            print("read=" + ctypes.string_at(p).decode())
        elif what == "attach":
            p = attach(arg)
            print("attach=" + ctypes.string_at(p).decode())
            ctypes.memmove(p, b"OVERWRITTEN\0", 12)
    except OSError as e:
        print("%s=%s" % (what, e))
        sys.exit(1)


main()
