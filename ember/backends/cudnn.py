"""cuDNN's flags: stored for programs that set them; ember has no cuDNN, so they change nothing."""

enabled = True
benchmark = False
deterministic = False
allow_tf32 = True


def is_available() -> bool:
    return False


def version() -> None:
    return None
