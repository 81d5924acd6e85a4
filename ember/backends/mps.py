"""Apple's Metal backend: not built into ember."""


def is_available() -> bool:
    return False


def is_built() -> bool:
    return False
