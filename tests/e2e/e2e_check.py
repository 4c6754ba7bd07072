"""e2e_check.py — what the e2e test scripts that raise on the first broken
assertion share: a Failure, log() that flushes (ctest interleaves output),
check(cond, msg)."""


class Failure(Exception):
    """An assertion of the test failed; its message says which and why."""


def log(msg):
    print(msg, flush=True)


def check(cond, msg):
    if not cond:
        raise Failure(msg)
