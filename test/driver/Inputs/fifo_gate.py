"""A named pipe that an analysis #includes, for the driver tests: the
compiler opens it when it reaches the #include and reads until it is closed,
so a test knows when the parse is there and decides when it goes on."""
import errno
import os
import sys
import time


def wait_until_read(gate, proc, who, timeout=300):
    """The write end of GATE, opened once the compiler has the pipe open for
    reading (only then does a non-blocking open succeed); exits when PROC
    ends or TIMEOUT passes first."""
    deadline = time.time() + timeout
    while True:
        try:
            return os.open(gate, os.O_WRONLY | os.O_NONBLOCK)
        except OSError as e:
            if e.errno != errno.ENXIO:
                raise
            if proc.poll() is not None or time.time() > deadline:
                sys.exit("%s: nothing ever opened %s" % (who, gate))
            time.sleep(0.005)
