"""The software's version, as `welcome.server` and `gother --version` report it."""

from importlib.metadata import PackageNotFoundError, version


def software_version() -> str:
    try:
        return version("gother-than-thou")
    except PackageNotFoundError:  # running from a source tree that was never installed
        return "unknown"
